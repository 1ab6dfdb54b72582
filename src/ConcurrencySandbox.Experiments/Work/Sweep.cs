using System.Diagnostics;
using ConcurrencySandbox.Experiments.Machine;
using ConcurrencySandbox.Experiments.Statistics;

namespace ConcurrencySandbox.Experiments.Work;

/// <summary>Seed 004's whole table for this machine, with the break-even amount.</summary>
/// <param name="BreakEvenAmount">The first amount at which Task.Run is at least as fast as inline; null when it never is.</param>
public sealed record SweepReport(
    string Work,
    string AmountName,
    IReadOnlyList<ComparisonRow> Rows,
    long? BreakEvenAmount,
    double TotalSeconds,
    MachineInfo Machine)
{
    public int ProcessorCount => Machine.ProcessorCount;

    public string RuntimeVersion => Machine.RuntimeVersion;

    /// <summary>Every row's figures that cannot be true on this process's cores (<see cref="ProcessorCount"/>) or are too noisy to trust.</summary>
    public IReadOnlyList<FigureFlag> Flags => [.. Rows.SelectMany(r => r.Flags(AmountName, ProcessorCount))];
}

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
