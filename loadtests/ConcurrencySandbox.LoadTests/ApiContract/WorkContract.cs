using ConcurrencySandbox.Experiments.Machine;
using ConcurrencySandbox.Experiments.Statistics;

namespace ConcurrencySandbox.LoadTests.ApiContract;

/// <summary>The API's <c>GET /api/compute/sweep?format=json</c> answer (seed 004's table), as far as the runner reads it.</summary>
/// <param name="BreakEvenAmount">The first amount, among conclusive rows, at which Task.Run was at least as fast as inline; null when none was.</param>
/// <param name="SpeedDriftPercent">How far the API's calibration loop's time moved over the sweep.</param>
public sealed record SweepResponse(IReadOnlyList<SweepRow> Rows, double? BreakEvenAmount, int? ProcessorCount, string? Policy = null, double? SpeedDriftPercent = null);

/// <summary>One row of the sweep: each figure with its 95 % CI, the policy's target and the machine's load while it was measured.</summary>
public sealed record SweepRow(double Amount, Estimate Sync, Estimate TaskRun, Estimate Efficiency, double TargetHalfWidthPercent, MachineLoad? Load)
{
    public double SyncSeconds => Sync.Median;

    public double TaskRunSeconds => TaskRun.Median;

    public double EfficiencyPercent => Efficiency.Median;

    /// <summary>The row as the shared flag rule reads it.</summary>
    public ComparisonFigures Figures => new(Sync, TaskRun, Efficiency, Load, TargetHalfWidthPercent);
}
