using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.ApiClient;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>Where a variant's progress goes while it runs: each interval row with the latest telemetry, and each step as it closes.</summary>
public interface IVariantProgress
{
    void OnInterval(IntervalRow row, RuntimeSnapshot? latest);

    void OnStep(VariantKey variant, StepRow step);

    /// <summary>Progress that only hands each interval row to <paramref name="onInterval"/> (a load agent streams its rows to the coordinator, which reports the steps).</summary>
    static IVariantProgress OfIntervals(Action<IntervalRow> onInterval) => new IntervalsOnly(onInterval);

    private sealed class IntervalsOnly(Action<IntervalRow> onInterval) : IVariantProgress
    {
        public void OnInterval(IntervalRow row, RuntimeSnapshot? latest) => onInterval(row);

        public void OnStep(VariantKey variant, StepRow step)
        {
        }
    }
}

/// <summary>What a load driver gets for one variant: the API it loads, the run's load settings and where progress goes.</summary>
/// <param name="Api">The API's own endpoints (an experiment's status routes).</param>
/// <param name="Telemetry">Where the pool series is read over HTTP when no observer is attached: the API, a container's control plane, or nowhere (null).</param>
/// <param name="Observed">The runtime observer's series when one is attached to the API's process: then no telemetry goes over HTTP.</param>
public sealed record LoadContext(VariantKey Key, Uri BaseAddress, SandboxClient Api, SandboxClient? Telemetry, LoadOptions Load, IVariantProgress Progress, IOutOfBandTelemetry? Observed = null)
{
    /// <summary>False: <see cref="Telemetry"/> is asked only for its history once the variant is done, never while it runs.</summary>
    public bool TelemetryLive { get; init; } = true;
}

/// <summary>
/// How one variant puts load on its API and measures it. The HTTP ramp and the cold-start burst are built in; an
/// experiment whose load is something else (raw TCP clients, say) brings its own, usually an <see cref="IWorkload"/>
/// and a <see cref="SendRequest"/> handed to <see cref="VariantRunner"/> so intervals and telemetry come for free.
/// </summary>
public interface ILoadDriver
{
    /// <summary>One unit of load as the report prints it: a request path, or e.g. "50 TCP clients on the announced port".</summary>
    string Request { get; }

    /// <summary>The report's profile name and load shape, e.g. ("quick", "KeepConstant(4, 6 s), ...") or ("burst", "a burst of 64 ...").</summary>
    (string Profile, string Shape) Describe(LoadOptions load);

    /// <summary>How long the load lasts, for the run's remaining-time estimate: the shape's length unless the driver knows better.</summary>
    TimeSpan PlannedLength(LoadOptions load) => load.Shape.Duration;

    Task<VariantResult> RunAsync(LoadContext context, CancellationToken cancellationToken);
}

/// <summary>
/// The HTTP ramp: the run's load shape (closed users or open arrival rate) sends GET <see cref="Request"/>, after one
/// unmeasured request so the JIT and the first connection are not in the curves.
/// </summary>
public sealed class HttpRamp(string request, bool reportsQueueWait = false) : ILoadDriver
{
    public string Request => request;

    public (string Profile, string Shape) Describe(LoadOptions load) => (load.ProfileName, load.Describe());

    public async Task<VariantResult> RunAsync(LoadContext context, CancellationToken cancellationToken)
    {
        var load = context.Load;
        using var http = HttpLoadClient.For(context.BaseAddress, load.RequestTimeout);
        var workload = IWorkload.Of(load.Shape, load.MaxInFlight);
        await http.Get(request)(cancellationToken);
        // Fan-out answers carry the server's per-call queue wait: seed 003's "waiting up to 12 s for work to start".
        var queueWaits = reportsQueueWait ? new QueueWaitProbe() : null;
        var result = await VariantRunner.RunAsync(context.Key, request, workload, http.Get(request, queueWaits), load.Shape.ReportingInterval, context.Telemetry, context.Progress, cancellationToken, observed: context.Observed, telemetryLive: context.TelemetryLive);
        return result with { MaxQueueWaitMs = queueWaits?.MaxMs };
    }
}

/// <summary>
/// The cold-start burst: <paramref name="copies"/> concurrent GET <see cref="Request"/> the moment a fresh API is
/// ready, with no warm-up (the cold start is what is measured), reported in one-second intervals.
/// </summary>
public sealed class BurstAtFreshApi(string request, int copies) : ILoadDriver
{
    private static readonly TimeSpan Interval = TimeSpan.FromSeconds(1);

    public string Request => request;

    public (string Profile, string Shape) Describe(LoadOptions load) => ("burst", $"a burst of {copies} concurrent requests the moment a fresh API is ready");

    /// <summary>A burst lasts as long as the fresh API takes to answer it, which is what it measures: no length is planned.</summary>
    public TimeSpan PlannedLength(LoadOptions load) => TimeSpan.Zero;

    public async Task<VariantResult> RunAsync(LoadContext context, CancellationToken cancellationToken)
    {
        using var http = HttpLoadClient.For(context.BaseAddress, context.Load.RequestTimeout);
        return await VariantRunner.RunAsync(context.Key, request, new Burst(copies), http.Get(request), Interval, context.Telemetry, context.Progress, cancellationToken, keepEveryRequest: true, observed: context.Observed, telemetryLive: context.TelemetryLive);
    }
}
