using System.Diagnostics;
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
    /// The break-even on <paramref name="cores"/> cores: the first amount from which on every row that passed its checks
    /// (nothing impossible or inconclusive) has an efficiency of at least 100 % across its whole CI (Task.Run is at least
    /// as fast, not just possibly so), that amount's row among them. A conclusive row at or above 100 % followed by a
    /// larger conclusive one that is not is a lucky row, not the break-even; rows that failed their checks are skipped.
    /// </summary>
    public static long? BreakEven(IEnumerable<ComparisonRow> rows, string amountName, int cores)
    {
        long? breakEven = null;
        foreach (var row in rows.Where(r => FigureChecks.Conclusive(r.Flags(amountName, cores))).OrderByDescending(r => r.Amount))
        {
            if (row.Efficiency.Low is not >= 100)
            {
                break;
            }

            breakEven = row.Amount;
        }

        return breakEven;
    }

    /// <summary>A row per amount, measured in interleaved rounds under <paramref name="policy"/>, whose budget is the whole sweep's (<see cref="Comparison.MeasureRowsAsync"/>).</summary>
    public static async Task<SweepReport> RunAsync(WorkUnit unit, IReadOnlyList<long> amounts, MeasurementPolicy policy, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        var rows = await Comparison.MeasureRowsAsync(unit, amounts, policy, Bench.Of(unit), Comparison.ShuffleSeed, cancellationToken);
        var cores = CurrentMachine.Info.ProcessorCount;
        return new SweepReport(unit.Name, unit.AmountName, rows, BreakEven(rows, unit.AmountName, cores), Stopwatch.GetElapsedTime(started).TotalSeconds, CurrentMachine.Info,
            Comparison.Describe(policy, amounts.Count, Comparison.ShuffleSeed), Calibration.DriftPercent(rows.Select(r => r.Speed)), rows.Flags(unit.AmountName, cores));
    }
}
