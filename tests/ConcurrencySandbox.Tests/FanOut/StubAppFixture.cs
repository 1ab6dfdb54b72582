using ConcurrencySandbox.Experiments.FanOut;
using ConcurrencySandbox.ThirdPartyStub;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;

namespace ConcurrencySandbox.Tests.FanOut;

/// <summary>The third-party stub app started in-process on a free loopback port.</summary>
public sealed class StubAppFixture : IAsyncLifetime
{
    private readonly WebApplication app = StubApp.Build(["--urls", "http://127.0.0.1:0", "--Logging:LogLevel:Default", "Warning"]);
    private readonly HttpClient client = new();

    public Uri BaseUrl => client.BaseAddress!;

    public HttpThirdParty ThirdParty() => new(client);

    public async Task InitializeAsync()
    {
        await app.StartAsync();
        var address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single();
        client.BaseAddress = new Uri(address + "/");
    }

    public async Task DisposeAsync()
    {
        client.Dispose();
        await app.DisposeAsync();
    }
}
