using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.Platform.Machine;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.Experiments.Work;

public static class Sweep
{
    /// <summary>from, from x factor, ... up to and including to.</summary>
    public static IReadOnlyList<long> Amounts(long from, long to, long factor)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(from, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(factor, 2);
        var amounts = new List<long>();
        for (var amount = from; amount <= to; amount = checked(amount * factor))
        {
            amounts.Add(amount);
            if (amount > to / factor)
            {
                break;
            }
        }

        return amounts;
    }

    /// <summary>
    /// The break-even on <paramref name="cores"/> cores: the smallest amount from which every row is at least 105 % across
    /// its whole CI (Task.Run is faster, not just possibly so), the upper end of <see cref="BreakEvens.Bracket"/>. A row
    /// that cannot be placed in between keeps it higher instead of being skipped.
    /// </summary>
    public static long? BreakEven(IEnumerable<ComparisonRow> rows, string amountName, int cores) => BreakEvens.Bracket(rows, amountName, cores).Above;

    /// <summary>A row per amount, measured in interleaved rounds under <paramref name="policy"/>, whose budget is the whole sweep's (<see cref="Comparison.MeasureRowsAsync"/>).</summary>
    /// <remarks>
    /// Every row is measured for at least <see cref="SpanShare"/> of the budget. Then the rows inside the break-even bracket
    /// that could not be placed are measured again with <see cref="MeasurementPolicy.CrossingBudgetShare"/> of the
    /// budget on top (<see cref="NarrowBracketAsync"/>).
    /// </remarks>
    public static async Task<SweepReport> RunAsync(WorkUnit unit, IReadOnlyList<long> amounts, MeasurementPolicy policy, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        var bench = Bench.Of(unit);
        policy = policy with { MinimumSpanShare = SpanShare };
        var rows = await Comparison.MeasureRowsAsync(unit, amounts, policy, bench, Comparison.ShuffleSeed, cancellationToken);
        var cores = CurrentMachine.Info.ProcessorCount;
        rows = await NarrowBracketAsync(rows, unit.AmountName, cores, policy.Budget * MeasurementPolicy.CrossingBudgetShare,
            (again, budget, token) => Comparison.MeasureRowsAsync(unit, again, policy with { Budget = budget }, bench, Comparison.ShuffleSeed, token), TimeProvider.System, cancellationToken);
        var bracket = BreakEvens.Bracket(rows, unit.AmountName, cores);
        return new SweepReport(unit.Name, unit.AmountName, rows, bracket.Above, Stopwatch.GetElapsedTime(started).TotalSeconds, CurrentMachine.Info,
            Comparison.Describe(policy, amounts.Count, Comparison.ShuffleSeed) + CrossingPolicy, Calibration.DriftPercent(rows.Select(r => r.Speed)), rows.Flags(unit.AmountName, cores), bracket);
    }

    /// <summary>
    /// The share of a sweep's budget every row is measured for before it may stop as converged (<see cref="MeasurementPolicy.MinimumSpanShare"/>):
    /// its pairs then cover the stretches of seconds in which a second pool worker is awake and those in which it is parked.
    /// </summary>
    public const double SpanShare = 0.5;

    /// <summary>The most times the flagged rows inside the bracket are measured again.</summary>
    public const int CrossingPasses = 2;

    private static readonly string CrossingPolicy = string.Create(CultureInfo.InvariantCulture,
        $"; then the rows inside the break-even bracket that could not be placed measured again (at most {CrossingPasses} times, within {MeasurementPolicy.CrossingBudgetShare * 100:0} % of the budget on top), a row replaced only by one that can be placed (a CI, not impossible)");

    /// <summary>
    /// Measures the rows inside the break-even bracket that could not be placed (<see cref="BreakEvenBracket.Widened"/>:
    /// impossible, or no CI) again through <paramref name="measure"/> (given the amounts and the budget left) until the
    /// bracket is conclusive, <paramref name="budget"/> is spent or <see cref="CrossingPasses"/> passes are done. A row
    /// measured again replaces the first only when it can be placed (<see cref="BreakEvens.Placed"/>), so a second bad
    /// measurement never hides a first one.
    /// </summary>
    public static async Task<IReadOnlyList<ComparisonRow>> NarrowBracketAsync(
        IReadOnlyList<ComparisonRow> rows, string amountName, int cores, TimeSpan budget,
        Func<IReadOnlyList<long>, TimeSpan, CancellationToken, Task<IReadOnlyList<ComparisonRow>>> measure, TimeProvider time, CancellationToken cancellationToken)
    {
        var started = time.GetTimestamp();
        for (var pass = 0; pass < CrossingPasses; pass++)
        {
            var bracket = BreakEvens.Bracket(rows, amountName, cores);
            var left = budget - time.GetElapsedTime(started);
            if (bracket.Conclusive || left <= TimeSpan.Zero)
            {
                break;
            }
            var again = await measure(bracket.Widened, left, cancellationToken);
            rows = [.. rows.Select(row => again.FirstOrDefault(a => a.Amount == row.Amount) is { } remeasured && BreakEvens.Placed(remeasured, cores) ? remeasured : row)];
        }
        return rows;
    }
}
