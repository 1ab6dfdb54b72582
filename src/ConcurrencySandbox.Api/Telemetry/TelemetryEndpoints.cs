using ConcurrencySandbox.Api.Validation;
using ConcurrencySandbox.Experiments.Telemetry;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.Api.Telemetry;

/// <summary>
/// One snapshot of the runtime's own counters, cheap enough to poll every second under load, and the
/// per-second history recorded on a thread of its own, complete even while the ThreadPool starves.
/// </summary>
public static class TelemetryEndpoints
{
    private const int HistoryCapacity = 3600;

    private static readonly NumberParameter Since = new(
        "since",
        0,
        1_000_000_000,
        0,
        "Only samples taken after this uptime, in seconds (an earlier answer's last uptimeSeconds).");

    public static WebApplicationBuilder AddTelemetry(this WebApplicationBuilder builder)
    {
        builder.Services.AddSingleton<InFlightRequests>();
        builder.Services.AddSingleton(services =>
        {
            var inFlight = services.GetRequiredService<InFlightRequests>();
            return new RuntimeSampler(TimeProvider.System, () => inFlight.Count);
        });

        // The recorder has its own sampler, so its CPU share is measured over its own steady interval.
        builder.Services.AddSingleton(services =>
        {
            var inFlight = services.GetRequiredService<InFlightRequests>();
            return new TelemetryRecorder(new RuntimeSampler(TimeProvider.System, () => inFlight.Count), TimeSpan.FromSeconds(1), HistoryCapacity);
        });
        return builder;
    }

    /// <summary>Counts requests in progress; put it first so it sees every request.</summary>
    public static WebApplication UseInFlightRequests(this WebApplication app)
    {
        var inFlight = app.Services.GetRequiredService<InFlightRequests>();
        app.Use(async (context, next) =>
        {
            inFlight.Enter();
            try
            {
                await next(context);
            }
            finally
            {
                inFlight.Leave();
            }
        });
        return app;
    }

    public static IEndpointRouteBuilder MapTelemetry(this IEndpointRouteBuilder endpoints)
    {
        // Resolving the recorder here starts it with the app, so the history covers the whole run.
        var recorder = endpoints.ServiceProvider.GetRequiredService<TelemetryRecorder>();
        var group = endpoints.MapGroup("/api/telemetry").WithTags("Telemetry");
        group.MapGet("/history", (HttpRequest request) => History(recorder, request))
            .WithName("TelemetryHistory")
            .WithSummary("The samples recorded every second (the last hour), taken on a dedicated thread: no gaps while the pool starves.")
            .WithDescription("Poll with since = the last uptimeSeconds you saw to get only new samples. " +
                "Use it after a load run: the live snapshot is served by the same ThreadPool it measures and answers late when that pool starves.")
            .WithQueryParameters(Since);
        group.MapGet("", (RuntimeSampler sampler) => TypedResults.Ok(sampler.Sample()))
            .WithName("Telemetry")
            .WithSummary("The thread pool, GC, process and lock-contention counters now, and the requests in flight.")
            .WithDescription("Read from the runtime (ThreadPool, GC, Environment.CpuUsage, Process, Monitor), not estimated. " +
                "process.cpuPercent is the CPU time since the previous snapshot over (wall time x processorCount) x 100, so poll at a steady interval. " +
                "This request itself counts in inFlightRequests.");
        return endpoints;
    }

    private static Results<Ok<TelemetryHistory>, ValidationProblem> History(TelemetryRecorder recorder, HttpRequest request)
    {
        var query = new QueryReader(request);
        var since = query.Read(Since);
        return query.IsValid
            ? TypedResults.Ok(new TelemetryHistory(recorder.Interval.TotalSeconds, recorder.Since(since)))
            : query.Problem();
    }
}

/// <summary>Samples recorded at a fixed interval, oldest first.</summary>
public sealed record TelemetryHistory(double IntervalSeconds, IReadOnlyList<RuntimeSnapshot> Samples);

/// <summary>The number of HTTP requests the server is handling right now.</summary>
public sealed class InFlightRequests
{
    private long _count;

    public long Count => Interlocked.Read(ref _count);

    public void Enter() => Interlocked.Increment(ref _count);

    public void Leave() => Interlocked.Decrement(ref _count);
}
