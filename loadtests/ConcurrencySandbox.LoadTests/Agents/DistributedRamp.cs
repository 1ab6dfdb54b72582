using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// The HTTP ramp run by load agents instead of this process: each agent gets its share of the shape, the coordinator
/// releases them at once and merges their intervals into the same result a single runner would give, plus one row per agent.
/// </summary>
public sealed class DistributedRamp(string request, AgentCoordinator coordinator) : ILoadDriver
{
    public string Request => request;

    public (string Profile, string Shape) Describe(LoadOptions load) => (load.ProfileName, $"{load.Describe()}, split over {coordinator.Count} load agents");

    public async Task<VariantResult> RunAsync(LoadContext context, CancellationToken cancellationToken)
    {
        var released = Stopwatch.GetTimestamp();
        var releasedUtc = DateTimeOffset.UtcNow;
        var outcomes = await coordinator.RunVariantAsync(
            segment => AgentWire.AssignmentFor(context.Key, context.BaseAddress, request, context.Load, segment),
            () => (released, releasedUtc) = (Stopwatch.GetTimestamp(), DateTimeOffset.UtcNow),
            cancellationToken);
        var result = AgentMerge.Merge(context.Key, request, context.Load.Shape, outcomes);
        foreach (var row in result.Intervals)
        {
            context.Progress.OnInterval(row, null);
        }
        foreach (var step in result.Steps)
        {
            context.Progress.OnStep(context.Key, step);
        }
        // The pool series: the observer's rows, else the API's own per-second history for the span the agents ran.
        IReadOnlyList<TelemetryRow>? telemetry = context.Observed is { } observed ? observed.RowsSince(context.Key, released)
            : context.Telemetry is { } http ? await VariantRunner.RecordedDuringAsync(http, context.Key, releasedUtc, result.ElapsedSeconds, cancellationToken)
            : null;
        return result with { Telemetry = telemetry ?? [] };
    }
}
