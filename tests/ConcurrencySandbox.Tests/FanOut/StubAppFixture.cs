using ConcurrencySandbox.Api.FanOut;
using ConcurrencySandbox.ThirdPartyStub;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;

namespace ConcurrencySandbox.Tests.FanOut;

/// <summary>The third-party stub app started in-process on a free loopback port.</summary>
public sealed class StubAppFixture : IAsyncLifetime
{
    private readonly WebApplication _app = StubApp.Build(["--urls", "http://127.0.0.1:0", "--Logging:LogLevel:Default", "Warning"]);
    private readonly HttpClient _client = new();

    public Uri BaseUrl => _client.BaseAddress!;

    public HttpThirdPartyAdapter ThirdParty() => new(_client);

    public async Task InitializeAsync()
    {
        await _app.StartAsync();
        var address = _app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single();
        _client.BaseAddress = new Uri(address + "/");
    }

    public async Task DisposeAsync()
    {
        _client.Dispose();
        await _app.DisposeAsync();
    }
}
