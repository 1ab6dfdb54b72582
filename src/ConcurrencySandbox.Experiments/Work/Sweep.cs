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

    public static async Task<SweepReport> RunAsync(WorkUnit unit, IReadOnlyList<long> amounts, int repeat, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        var rows = new List<ComparisonRow>(amounts.Count);
        foreach (var amount in amounts)
        {
            rows.Add(await Comparison.CompareAsync(unit, amount, repeat, cancellationToken));
        }

        var breakEven = rows.FirstOrDefault(r => r.EfficiencyPercent >= 100)?.Amount;
        return new SweepReport(unit.Name, unit.AmountName, rows, breakEven, Stopwatch.GetElapsedTime(started).TotalSeconds, MachineInfo.Current);
    }
}
