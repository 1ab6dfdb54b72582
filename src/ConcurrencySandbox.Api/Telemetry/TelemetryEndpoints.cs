using System.Collections.Concurrent;
using System.Diagnostics;
using ConcurrencySandbox.Api.Hosting;
using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Experiments.Telemetry;
using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Api.Telemetry;

/// <summary>
/// One snapshot of the runtime's own counters, cheap enough to poll every second under load, and the
/// per-second history recorded on a thread of its own, complete even while the ThreadPool starves.
/// </summary>
public static class TelemetryEndpoints
{
    private const int HistoryCapacity = 3600;

    private static readonly ApiTag Tag = new(
        "Telemetry", "The runtime's own counters now, and the per-second history recorded on a dedicated thread. Also on the control plane.", Order: 60);

    public static WebApplicationBuilder AddTelemetry(this WebApplicationBuilder builder)
    {
        builder.Services.AddSingleton<InFlightRequests>();
        builder.Services.AddSingleton(services =>
        {
            var inFlight = services.GetRequiredService<InFlightRequests>();
            return new RuntimeSampler(TimeProvider.System, () => inFlight.Counts);
        });

        // The recorder has its own sampler, so its CPU share is measured over its own steady interval.
        builder.Services.AddSingleton(services =>
        {
            var inFlight = services.GetRequiredService<InFlightRequests>();
            return new TelemetryRecorder(new RuntimeSampler(TimeProvider.System, () => inFlight.Counts), TimeSpan.FromSeconds(1), HistoryCapacity);
        });
        builder.Services.AddSingleton<TelemetryActions>();
        // Started with the host, so the history covers the whole run.
        builder.Services.AddHostedService<StartWithHost<TelemetryRecorder>>();
        return builder;
    }

    /// <summary>Counts requests in progress; put it first so it sees every request.</summary>
    public static WebApplication UseInFlightRequests(this WebApplication app)
    {
        var inFlight = app.Services.GetRequiredService<InFlightRequests>();
        app.Use(async (context, next) =>
        {
            var id = inFlight.Enter(context.Request);
            try
            {
                await next(context);
            }
            finally
            {
                inFlight.Leave(id);
            }
        });
        return app;
    }

    public static IEndpointRouteBuilder MapTelemetry(this IEndpointRouteBuilder endpoints)
    {
        var group = endpoints.MapGroup(ControlRoutes.Telemetry).WithApiTag(Tag);
        group.MapGet("/history", (HistoryQuery query, TelemetryActions actions) => actions.History(query.Since))
            .WithName("TelemetryHistory")
            .WithSummary("The samples recorded every second (the last hour), taken on a dedicated thread: no gaps while the pool starves.")
            .WithDescription("Poll with since = the last uptimeSeconds you saw to get only new samples. " +
                "The control port serves it (and the live snapshot) while the pool starves; on this port it answers late then.")
            .WithQueryParameters(TelemetryActions.Since);
        group.MapGet("", (TelemetryActions actions) => actions.Snapshot())
            .WithName("Telemetry")
            .WithSummary("The thread pool, GC, process and lock-contention counters now, and the requests in flight.")
            .WithDescription("Read from the runtime (ThreadPool, GC, Environment.CpuUsage, Process, Monitor), not estimated. " +
                "process.cpuPercent is the CPU time since the previous snapshot over (wall time x processorCount) x 100, so poll at a steady interval. " +
                "inFlightRequests counts the API port's requests, this one included when asked here; the control port's are not counted. " +
                "requestsStarted counts the API port's requests since the process started (this one included when asked there): " +
                "two readings give any load tool's throughput as the server saw it.");
        return endpoints;
    }
}

/// <summary>The history's input: only samples taken after this uptime, in seconds.</summary>
internal sealed record HistoryQuery(double Since) : DeclaredQuery<HistoryQuery>;

/// <summary>The HTTP requests the server is handling right now, so a forced shutdown can say what it abandoned.</summary>
public sealed class InFlightRequests
{
    // The request itself, not its description: formatting happens only when someone asks (a forced shutdown),
    // so counting adds no string allocation to the experiments' own figures.
    private readonly ConcurrentDictionary<long, (HttpRequest Request, long StartTimestamp)> _requests = new();
    private long _nextId;

    /// <summary>In flight now, and started since the process began (every request that entered, this one included).</summary>
    public RequestCounts Counts => new(_requests.Count, Interlocked.Read(ref _nextId));

    /// <summary>Records a request; pass the id to <see cref="Leave"/> when it ends.</summary>
    public long Enter(HttpRequest request)
    {
        var id = Interlocked.Increment(ref _nextId);
        _requests[id] = (request, Stopwatch.GetTimestamp());
        return id;
    }

    public void Leave(long id) => _requests.TryRemove(id, out _);

    /// <summary>Each request in flight with its age, oldest first, for example "GET /api/fanout?calls=1 (running 12.3 s)".</summary>
    public IReadOnlyList<string> Describe() =>
        [.. _requests.Values.OrderBy(r => r.StartTimestamp)
            .Select(r => $"{r.Request.Method} {r.Request.Path}{r.Request.QueryString} (running {Stopwatch.GetElapsedTime(r.StartTimestamp).TotalSeconds:0.0} s)")];
}
