namespace ConcurrencySandbox.LoadTests.ApiContract;

/// <summary>The API's <c>GET /api/compute/sweep?format=json</c> answer (seed 004's table), as far as the runner reads it.</summary>
/// <param name="BreakEvenAmount">The first amount at which Task.Run was at least as fast as inline; null when it never was.</param>
public sealed record SweepResponse(IReadOnlyList<SweepRow> Rows, double? BreakEvenAmount, int? ProcessorCount);

/// <summary>One row of the sweep.</summary>
public sealed record SweepRow(double Amount, double SyncSeconds, double TaskRunSeconds, double EfficiencyPercent);
