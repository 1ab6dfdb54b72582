using System.Net;
using System.Text.Json;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.FanOut;

/// <summary>Two processes' worth of servers on loopback: the API calling the stub app over HTTP.</summary>
public sealed class HttpFanOutEndpointTests(StubAppFixture stubApp) : IClassFixture<StubAppFixture>
{
    [Theory]
    [InlineData("threadpool")]
    [InlineData("async")]
    public async Task TheApiFansOutToTheStubAppWhenABaseUrlIsSet(string strategy)
    {
        await using var server = await SandboxServer.StartAsync($"ThirdParty:BaseUrl={stubApp.BaseUrl}");

        using var response = await server.Client.GetAsync($"/api/fanout?calls=3&delayMs=20&strategy={strategy}");

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        using var json = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(3, json.RootElement.GetProperty("okCount").GetInt32());
    }

    [Fact]
    public async Task TheStubAppsFailuresAndHangsComeBackAsOutcomes()
    {
        await using var server = await SandboxServer.StartAsync($"ThirdParty:BaseUrl={stubApp.BaseUrl}");

        using var failed = await server.Client.GetAsync("/api/fanout?calls=2&delayMs=5&failRate=1");
        using var hung = await server.Client.GetAsync("/api/fanout?calls=2&hangRate=1&timeoutMs=200&strategy=sync-over-async");

        Assert.Contains("answered 500", await failed.Content.ReadAsStringAsync(), StringComparison.Ordinal);
        using var hungProblem = JsonDocument.Parse(await hung.Content.ReadAsStringAsync());
        Assert.Equal(2, hungProblem.RootElement.GetProperty("report").GetProperty("timedOutCount").GetInt32());
    }
}
