using ConcurrencySandbox.Api.Hosting;
using ConcurrencySandbox.Api.Metrics;
using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.Api.Control;

/// <summary>Registers the control actions, the Prometheus rendering, the control listener and the shutdown watchdog, and maps /healthz.</summary>
public static class ControlPlane
{
    public static WebApplicationBuilder AddControlPlane(this WebApplicationBuilder builder)
    {
        builder.Services.AddDeclaredSettings<ControlOptions, ControlOptionsValidator>(builder.Configuration, ControlOptions.SectionName);
        builder.Services.AddSingleton<PrometheusExposition>();
        builder.Services.AddSingleton<ControlListener>();
        builder.Services.AddHostedService(services => services.GetRequiredService<ControlListener>());
        builder.Services.AddSingleton<IDocumentServer, ControlPlaneDocumentServer>();
        builder.Services.AddSingleton<ShutdownWatchdog>();
        // Its signal handlers are registered when the host starts, for the app's whole life.
        builder.Services.AddHostedService<StartWithHost<ShutdownWatchdog>>();
        return builder;
    }

    /// <summary>The health answer both transports give.</summary>
    public static Ok<HealthStatus> Health() => TypedResults.Ok(HealthStatus.Ok);

    private static readonly ApiTag HealthTag = new(
        "Health", "Start here: is the sandbox up? Also served by the control plane, which answers while the ThreadPool starves.", Order: 0);

    public static IEndpointRouteBuilder MapHealth(this IEndpointRouteBuilder endpoints)
    {
        endpoints.MapGet(ControlRoutes.Health, Health)
            .WithName("Health")
            .WithApiTag(HealthTag)
            .WithSummary("Liveness and readiness probe.")
            .WithDescription("200 {\"status\":\"ok\"} once the app serves. The control plane answers it too, from threads of its own, so it stays up while the pool starves.");
        return endpoints;
    }
}

/// <summary>The control plane as a server of the Swagger document, so a user can send its requests there while the pool starves.</summary>
internal sealed class ControlPlaneDocumentServer(ControlListener listener) : IDocumentServer
{
    public string Url => listener.Address ?? $"http://127.0.0.1:{ControlOptions.DefaultPort}";

    public string Description => "The control plane (health, thread pool, telemetry only) on dedicated threads: answers while the pool starves.";
}
