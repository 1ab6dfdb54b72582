using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Api.Telemetry;

/// <summary>One snapshot of the runtime's own counters, cheap enough to poll every second under load.</summary>
public static class TelemetryEndpoints
{
    public static WebApplicationBuilder AddTelemetry(this WebApplicationBuilder builder)
    {
        builder.Services.AddSingleton<InFlightRequests>();
        builder.Services.AddSingleton(services =>
        {
            var inFlight = services.GetRequiredService<InFlightRequests>();
            return new RuntimeSampler(TimeProvider.System, () => inFlight.Count);
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
        endpoints.MapGroup("/api/telemetry").WithTags("Telemetry")
            .MapGet("", (RuntimeSampler sampler) => TypedResults.Ok(sampler.Sample()))
            .WithName("Telemetry")
            .WithSummary("The thread pool, GC, process and lock-contention counters now, and the requests in flight.")
            .WithDescription("Read from the runtime (ThreadPool, GC, Environment.CpuUsage, Process, Monitor), not estimated. " +
                "process.cpuPercent is the CPU time since the previous snapshot over (wall time x processorCount) x 100, so poll at a steady interval. " +
                "This request itself counts in inFlightRequests.");
        return endpoints;
    }
}

/// <summary>The number of HTTP requests the server is handling right now.</summary>
public sealed class InFlightRequests
{
    private long count;

    public long Count => Interlocked.Read(ref count);

    public void Enter() => Interlocked.Increment(ref count);

    public void Leave() => Interlocked.Decrement(ref count);
}
