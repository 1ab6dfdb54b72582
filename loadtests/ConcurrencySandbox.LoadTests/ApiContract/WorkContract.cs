using ConcurrencySandbox.Experiments.Statistics;

namespace ConcurrencySandbox.LoadTests.ApiContract;

/// <summary>The API's <c>GET /api/compute/sweep?format=json</c> answer (seed 004's table), as far as the runner reads it.</summary>
/// <param name="BreakEvenAmount">The first amount at which Task.Run was at least as fast as inline; null when it never was.</param>
public sealed record SweepResponse(IReadOnlyList<SweepRow> Rows, double? BreakEvenAmount, int? ProcessorCount);

/// <summary>One row of the sweep, with the spread (median, fastest, slowest in seconds) of each form's repeats when the API sent it.</summary>
public sealed record SweepRow(double Amount, double SyncSeconds, double TaskRunSeconds, double EfficiencyPercent)
{
    public Spread? Sync { get; init; }
    public Spread? TaskRun { get; init; }
}
