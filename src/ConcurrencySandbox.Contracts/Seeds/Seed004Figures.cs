using ConcurrencySandbox.Contracts.Work;

namespace ConcurrencySandbox.Contracts.Seeds;

/// <summary>
/// Seed 004's efficiency table (2015, .NET 4.5 on Azure; shared/seeds), printed beside today's by the API's compare and
/// sweep and by the load runner's compute, spinwait and sleep verdicts.
/// </summary>
public static class Seed004Figures
{
    private static readonly Dictionary<long, SeedEfficiency> ComputeByCycles = new()
    {
        [1] = new(0.2630425, 0.2866503),
        [10] = new(0.2840910, 0.2771180),
        [100] = new(0.3928416, 0.3874467),
        [1_000] = new(1.6680228, 1.6528926),
        [10_000] = new(9.4669628, 10.8268446),
        [100_000] = new(69.7553358, 70.4740850),
        [1_000_000] = new(94.0868988, 92.1228157),
        [10_000_000] = new(134.5728267, 103.8128455),
        [100_000_000] = new(183.6655326, 103.5375364),
        [1_000_000_000] = new(198.6237583, 98.5530548),
    };

    private static readonly Dictionary<long, SeedEfficiency> SleepByMilliseconds = new()
    {
        [1] = new(106.6208421, null),
        [10] = new(228.7814139, null),
        [100] = new(205.8556292, null),
        [1_000] = new(201.2361411, null),
    };

    /// <summary>Seed 004 measured Task.Run's added cost at about 0.23 ms per pair of units.</summary>
    public const double TaskRunOverheadSeconds = 0.0002281 - 0.0000006;

    public static SeedEfficiency? Efficiency(WorkKind unit, long amount) =>
        TableOf(unit) is { } table && table.TryGetValue(amount, out var seed) ? seed : null;

    /// <summary>The seed 004 row nearest (in decades) to <paramref name="amount"/>, or null for a unit the seed did not tabulate.</summary>
    public static (long Amount, SeedEfficiency Efficiency)? Nearest(WorkKind unit, long amount)
    {
        if (TableOf(unit) is not { } table)
        {
            return null;
        }

        var decades = Math.Log10(Math.Max(1, amount));
        var nearest = table.MinBy(row => Math.Abs(Math.Log10(row.Key) - decades));
        return (nearest.Key, nearest.Value);
    }

    private static Dictionary<long, SeedEfficiency>? TableOf(WorkKind unit) =>
        unit == WorkKind.Compute ? ComputeByCycles : unit == WorkKind.Sleep ? SleepByMilliseconds : null;
}
