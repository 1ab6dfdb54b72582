using ConcurrencySandbox.Api.Admin;
using ConcurrencySandbox.Api.Contention;
using ConcurrencySandbox.Api.Control;
using ConcurrencySandbox.Api.FanOut;
using ConcurrencySandbox.Api.Hosting;
using ConcurrencySandbox.Api.Receive;
using ConcurrencySandbox.Api.Streaming;
using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Api.Telemetry;
using ConcurrencySandbox.Api.ThreadPools;
using ConcurrencySandbox.Api.Work;
using ConcurrencySandbox.Contracts.Hosting;
using ConcurrencySandbox.WebHosting;

namespace ConcurrencySandbox.Api;

/// <summary>Builds the sandbox's web application; the API, the tests and the load runner all start it here.</summary>
public static class SandboxApp
{
    /// <summary>Where the API listens when nothing else is configured (no --urls, ASPNETCORE_URLS or ASPNETCORE_HTTP_PORTS).</summary>
    public const string DefaultUrl = "http://127.0.0.1:5080";

    /// <param name="args">Command-line arguments, including configuration such as --urls.</param>
    /// <param name="configureServices">Runs after the app's own registrations, so tests can replace a service.</param>
    public static WebApplication Build(string[] args, Action<IServiceCollection>? configureServices = null)
    {
        var builder = WebStartup.CreateBuilder(args, DefaultUrl);
        builder.AddSandboxJson();
        builder.AddSwagger();
        builder.AddAdminKey();
        builder.AddWorkExperiments();
        builder.AddFanOut();
        builder.AddReceive();
        builder.AddThreadPools();
        builder.AddTelemetry();
        builder.AddStreaming();
        builder.AddContention();
        builder.AddControlPlane();
        builder.Services.AddHostedService<ParentProcessWatch>();
        configureServices?.Invoke(builder.Services);

        var app = builder.Build();
        app.UseInFlightRequests();
        app.UseOriginPolicy();
        app.UseExceptionHandler();
        app.UseStatusCodePages();
        app.UseSwaggerDocs();
        app.MapSwaggerHome();
        app.MapHealth();
        app.MapWorkExperiments();
        app.MapFanOut();
        app.MapReceive();
        app.MapThreadPools();
        app.MapTelemetry();
        app.MapStreaming();
        app.MapContention();
        app.WhenListening(addresses =>
        {
            Console.WriteLine($"{ApiStartup.ReadyLinePrefix}{addresses.FirstOrDefault()}");
            Console.WriteLine($"{ApiStartup.ControlReadyLinePrefix}{app.Services.GetRequiredService<ControlListener>().Address}");
        });
        return app;
    }
}
