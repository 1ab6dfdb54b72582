using ConcurrencySandbox.Api;
using ConcurrencySandbox.Api.Control;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>The real API on real Kestrel, on a free loopback port, owned by one test.</summary>
public sealed class SandboxServer : IAsyncDisposable
{
    private readonly WebApplication _app;

    private SandboxServer(WebApplication app, Uri baseAddress)
    {
        _app = app;
        BaseAddress = baseAddress;
        Client = new HttpClient { BaseAddress = baseAddress, Timeout = TimeSpan.FromMinutes(2) };
    }

    public Uri BaseAddress { get; }

    public HttpClient Client { get; }

    public IServiceProvider Services => _app.Services;

    /// <summary>The control plane's own listener (dedicated threads, its own free port).</summary>
    public Uri ControlAddress => new(_app.Services.GetRequiredService<ControlListener>().Address!);

    /// <summary>Starts the API; settings are configuration keys such as "Limits:MaxCycles=1000".</summary>
    public static Task<SandboxServer> StartAsync(params string[] settings) => StartAsync(_ => { }, settings);

    /// <summary>
    /// The messages of every settings section that stopped the API's start-up: ValidateOnStart reports each failing
    /// options class, two or more together as an <see cref="AggregateException"/> (a cap that another section's check
    /// reads fails both).
    /// </summary>
    public static async Task<string> StartUpFailureAsync(params string[] settings)
    {
        var failure = await Assert.ThrowsAnyAsync<Exception>(() => StartAsync(settings));
        var failures = failure is AggregateException all ? all.InnerExceptions : [failure];
        Assert.All(failures, f => Assert.IsType<OptionsValidationException>(f));
        return string.Join('\n', failures.Select(f => f.Message));
    }

    /// <summary>Starts the API with some services replaced; settings as above.</summary>
    public static async Task<SandboxServer> StartAsync(Action<IServiceCollection> configureServices, params string[] settings)
    {
        var app = SandboxApp.Build(TestHostArguments.For(settings), configureServices);
        await app.StartAsync();
        var address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        return new SandboxServer(app, new Uri(address));
    }

    public async ValueTask DisposeAsync()
    {
        Client.Dispose();
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}
