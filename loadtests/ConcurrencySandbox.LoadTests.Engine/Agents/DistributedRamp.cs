using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// The HTTP ramp run by load agents instead of this process: each agent gets its share of the shape, the coordinator
/// releases them at once and merges their intervals into the same result a single runner would give, plus one row per agent.
/// </summary>
internal sealed class DistributedRamp(string request, AgentCoordinator coordinator) : ILoadDriver
{
    public string Request => request;

    public (string Profile, string Shape) Describe(LoadOptions load) => (load.ProfileName, $"{load.Describe()}, split over {coordinator.Count} load agents");

    public async Task<VariantResult> RunAsync(LoadContext context, CancellationToken cancellationToken)
    {
        var released = Stopwatch.GetTimestamp();
        var releasedUtc = DateTimeOffset.UtcNow;
        // The merge hands each interval to the live progress as soon as every running agent has sent it.
        var merge = new AgentMerge(context.Key, context.Load.Shape, coordinator.Count, context.Progress);
        var outcomes = await coordinator.RunVariantAsync(
            segment => AgentWire.AssignmentFor(context.Key, context.BaseAddress, request, context.Load, segment),
            () => (released, releasedUtc) = (Stopwatch.GetTimestamp(), DateTimeOffset.UtcNow),
            merge,
            cancellationToken);
        var result = merge.Finish(request, outcomes);
        // The pool series: the observer's rows, else the API's own per-second history for the span the agents ran.
        IReadOnlyList<TelemetryRow>? telemetry = context.Observed is { } observed ? observed.RowsSince(context.Key, released)
            : context.Telemetry is { } http ? await VariantRunner.RecordedDuringAsync(http, context.Key, releasedUtc, result.ElapsedSeconds, cancellationToken)
            : null;
        return result with { Telemetry = telemetry ?? [] };
    }
}
