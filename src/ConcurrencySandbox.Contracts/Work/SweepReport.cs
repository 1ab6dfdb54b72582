using System.Globalization;
using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Contracts.Statistics;

namespace ConcurrencySandbox.Contracts.Work;

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

/// <summary>One row of seed 004's table: the same amount run inline and with Task.Run, side by side in one process.</summary>
/// <param name="EfficiencyPercent">Sync median / Task.Run median x 100: above 100 means Task.Run paid off.</param>
/// <param name="TaskRunAddedSeconds">Task.Run median minus sync median: the pool's overhead when positive.</param>
/// <param name="Seed">Seed 004's efficiency for the same amount, where it measured one.</param>
public sealed record ComparisonRow(
    long Amount,
    int Repeat,
    double SyncSeconds,
    double TaskRunSeconds,
    double EfficiencyPercent,
    double TaskRunAddedSeconds,
    Spread Sync,
    Spread TaskRun,
    SeedEfficiency? Seed)
{
    /// <summary>This row's figures that cannot be true on <paramref name="cores"/> cores or are too noisy to trust, named "10 cycles: ...".</summary>
    public IReadOnlyList<FigureFlag> Flags(string amountName, int cores) =>
        FigureChecks.Comparison(string.Create(CultureInfo.InvariantCulture, $"{Amount:N0} {amountName}"), EfficiencyPercent, Sync, TaskRun, cores);
}

/// <summary>The seed's efficiency (sync / async x 100) for one amount, on 4 cores and on 1 core where it measured them.</summary>
public sealed record SeedEfficiency(double? FourCoresPercent, double? OneCorePercent);
