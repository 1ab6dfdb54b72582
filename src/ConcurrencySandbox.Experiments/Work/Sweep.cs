using System.Diagnostics;
using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;

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
    /// The first amount whose row passed its checks on <paramref name="cores"/> cores (nothing impossible or inconclusive)
    /// and whose efficiency is at least 100 % across its whole CI: Task.Run is at least as fast, not just possibly so.
    /// </summary>
    public static long? BreakEven(IEnumerable<ComparisonRow> rows, string amountName, int cores) =>
        rows.FirstOrDefault(r => r.Efficiency.Low >= 100 && FigureChecks.Conclusive(r.Flags(amountName, cores)))?.Amount;

    /// <summary>A compare row per amount under <paramref name="policy"/>, whose budget is the whole sweep's, shared equally by the rows.</summary>
    public static async Task<SweepReport> RunAsync(WorkUnit unit, IReadOnlyList<long> amounts, MeasurementPolicy policy, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        var rowPolicy = policy with { Budget = policy.Budget / Math.Max(1, amounts.Count) };
        var rows = new List<ComparisonRow>(amounts.Count);
        foreach (var amount in amounts)
        {
            rows.Add(await Comparison.CompareAsync(unit, amount, rowPolicy, cancellationToken));
        }

        return new SweepReport(unit.Name, unit.AmountName, rows, BreakEven(rows, unit.AmountName, MachineInfo.Current.ProcessorCount), Stopwatch.GetElapsedTime(started).TotalSeconds, MachineInfo.Current,
            rowPolicy.Describe(), Calibration.DriftPercent(rows.Select(r => r.Speed)));
    }
}
