using ConcurrencySandbox.Contracts.Work;

namespace ConcurrencySandbox.Experiments.Work;

/// <summary>Seed 003's fan-out figures: the stub's wait, the CLR pool's mean, max and longest queue wait, the custom pool's mean.</summary>
public sealed record FanOutSeedFigures(double StubSeconds, double ClrMeanSeconds, double ClrMaxSeconds, double ClrQueueWaitSeconds, double CustomMeanSeconds);

/// <summary>Seed 000's cold start: the first request's latency with 4 and with 40 bindings.</summary>
public sealed record ColdStartSeedFigures(double FirstRequest4BindingsSeconds, double FirstRequest40BindingsSeconds);

/// <summary>
/// Figures the seeds published (shared/seeds), printed beside today's: seed 004's efficiency table (2015, .NET 4.5 on
/// Azure) for the API's compare and sweep, seed 003's and seed 000's latencies for the load runner's verdicts, and
/// seed 002's CPU ticks per receive for both.
/// </summary>
public static class SeedFigures
{
    public static readonly FanOutSeedFigures Seed003 = new(StubSeconds: 4.0, ClrMeanSeconds: 10.4, ClrMaxSeconds: 19.8, ClrQueueWaitSeconds: 12.0, CustomMeanSeconds: 4.5);

    public static readonly ColdStartSeedFigures Seed000 = new(FirstRequest4BindingsSeconds: 1.8, FirstRequest40BindingsSeconds: 37.7);

    /// <summary>
    /// Seed 002 (clrzmq's Receive under the ANTS profiler), CPU ticks per receive with per-call message objects and
    /// Stopwatch/SpinWait in the timeout path: the seed's own 191,196,025 ticks / 14,548 receives. The profiler's tick
    /// is not a unit we can reproduce, so only the before/after ratio compares with today's.
    /// </summary>
    public const double Seed002PerCallCpuTicks = 191_196_025.0 / 14_548;

    /// <summary>Seed 002 after pre-allocated buffers and a narrower timeout path: 5,132,725,522 ticks / 1,903,448 receives.</summary>
    public const double Seed002PreallocatedCpuTicks = 5_132_725_522.0 / 1_903_448;

    public const double Seed002CpuRatio = Seed002PerCallCpuTicks / Seed002PreallocatedCpuTicks;

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

    public static SeedEfficiency? Seed004(WorkUnit unit, long amount) =>
        TableOf(unit) is { } table && table.TryGetValue(amount, out var seed) ? seed : null;

    /// <summary>The seed 004 row nearest (in decades) to <paramref name="amount"/>, or null for a unit the seed did not tabulate.</summary>
    public static (long Amount, SeedEfficiency Efficiency)? Seed004Nearest(WorkUnit unit, long amount)
    {
        if (TableOf(unit) is not { } table)
        {
            return null;
        }

        var decades = Math.Log10(Math.Max(1, amount));
        var nearest = table.MinBy(row => Math.Abs(Math.Log10(row.Key) - decades));
        return (nearest.Key, nearest.Value);
    }

    private static Dictionary<long, SeedEfficiency>? TableOf(WorkUnit unit) =>
        unit == WorkUnit.Compute ? ComputeByCycles : unit == WorkUnit.Sleep ? SleepByMilliseconds : null;
}
