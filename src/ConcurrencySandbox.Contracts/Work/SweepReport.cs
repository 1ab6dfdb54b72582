using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Contracts.Statistics;

namespace ConcurrencySandbox.Contracts.Work;

/// <summary>Seed 004's whole table for this machine, with the break-even amount.</summary>
/// <param name="BreakEvenAmount">The smallest amount from which every row passed its checks and has Task.Run at least as fast as inline across the efficiency's CI (the upper end of <paramref name="Bracket"/>); null when none is.</param>
/// <param name="Policy">How each row was measured, in words.</param>
/// <param name="SpeedDriftPercent">(max - min) / min of the calibration loop's times before, between and after the rows.</param>
/// <param name="Flags">Every row's flagged figures, judged on the process's cores (<see cref="ProcessorCount"/>).</param>
/// <param name="Bracket">Where Task.Run catches up, as a bracket a flagged row widens instead of moving; null from an API before it (<see cref="BreakEvenAmount"/> is its upper end).</param>
public sealed record SweepReport(
    string Work,
    string AmountName,
    IReadOnlyList<ComparisonRow> Rows,
    long? BreakEvenAmount,
    double TotalSeconds,
    MachineInfo Machine,
    string Policy,
    double SpeedDriftPercent,
    IReadOnlyList<FigureFlag> Flags,
    BreakEvenBracket? Bracket = null)
{
    public int ProcessorCount => Machine.ProcessorCount;

    public string RuntimeVersion => Machine.RuntimeVersion;

    /// <summary>The row the break-even was read from, with its efficiency's CI.</summary>
    public ComparisonRow? BreakEvenRow => Rows.FirstOrDefault(r => r.Amount == BreakEvenAmount);
}

/// <summary>
/// One row of seed 004's table: the same amount run inline and with Task.Run, interleaved in one process under a
/// measurement policy. Every figure is an <see cref="Estimate"/> (median, 95 % CI, n, min).
/// </summary>
/// <param name="Sync">Seconds per sync run (the unit twice on the calling thread).</param>
/// <param name="TaskRun">Seconds per Task.Run run (the unit twice as two work items).</param>
/// <param name="Efficiency">Total sync time / total Task.Run time x 100 over the pairs (seed 004's efficiency; each pair ran back to back), its CI that of a ratio estimator, its min the smallest per-pair ratio: above 100 means Task.Run paid off.</param>
/// <param name="Remeasured">The first measurement's efficiency was impossible beyond its CI, so the row was measured again.</param>
/// <param name="TargetHalfWidthPercent">The policy's target: a figure whose CI is wider is inconclusive.</param>
/// <param name="Load">What other processes, steal and CFS throttling took while the row was measured (in a sweep: from its first round to the round it stopped in, the other rows' interleaved pairs inside that span being this process's own time); null off Linux.</param>
/// <param name="Speed">The calibration loop before the row's first pair and after its last (in a sweep: before the first round and after the round it stopped in): the machine's own speed drift.</param>
/// <param name="Seed">Seed 004's efficiency for the same amount, where it measured one.</param>
public sealed record ComparisonRow(
    long Amount,
    Estimate Sync,
    Estimate TaskRun,
    Estimate Efficiency,
    StopReason Stopped,
    bool Remeasured,
    double TargetHalfWidthPercent,
    MachineLoad? Load,
    SpeedCheck Speed,
    SeedEfficiency? Seed)
{
    /// <summary>Pairs measured.</summary>
    public int Repeat => Efficiency.Count;

    public double SyncSeconds => Sync.Median;

    public double TaskRunSeconds => TaskRun.Median;

    public double EfficiencyPercent => Efficiency.Median;

    /// <summary>Task.Run median minus sync median: the pool's overhead when positive.</summary>
    public double TaskRunAddedSeconds => TaskRun.Median - Sync.Median;
}

/// <summary>The calibration loop's time before and after a measurement: how far the machine's own speed moved meanwhile.</summary>
public sealed record SpeedCheck(double BeforeSeconds, double AfterSeconds)
{
    /// <summary>After minus before, as a share of before: positive when the machine got slower.</summary>
    public double DriftPercent => (AfterSeconds - BeforeSeconds) / BeforeSeconds * 100;
}

/// <summary>The seed's efficiency (sync / async x 100) for one amount, on 4 cores and on 1 core where it measured them.</summary>
public sealed record SeedEfficiency(double? FourCoresPercent, double? OneCorePercent);
