using System.Net;
using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.Experiments.FanOut;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.FanOut;

/// <summary>Two servers on loopback, shared by the class: the API calling the stub app over HTTP.</summary>
public sealed class HttpFanOutEndpointTests(HttpFanOutEndpointTests.ApiOverStub servers) : IClassFixture<HttpFanOutEndpointTests.ApiOverStub>
{
    [Theory]
    [InlineData("threadpool")]
    [InlineData("async")]
    public async Task TheApiFansOutToTheStubAppWhenABaseUrlIsSet(string strategy)
    {
        var report = await servers.Api.Client.GetOkAsync<FanOutReport>($"/api/fanout?calls=3&delayMs=20&strategy={strategy}");

        Assert.Equal(3, report.OkCount);
    }

    [Fact]
    public async Task TheStubAppsFailuresAndHangsComeBackAsOutcomes()
    {
        using var failed = await servers.Api.Client.GetAsync("/api/fanout?calls=2&delayMs=5&failRate=1");
        using var hung = await servers.Api.Client.GetAsync("/api/fanout?calls=2&hangRate=1&timeoutMs=200&strategy=sync-over-async");

        var failure = await failed.ReadProblemAsync<FanOutProblem>(HttpStatusCode.BadGateway);
        var hang = await hung.ReadProblemAsync<FanOutProblem>(HttpStatusCode.BadGateway);
        Assert.All(failure.Report.Results, call => Assert.Contains("answered 500", call.Error, StringComparison.Ordinal));
        Assert.Equal(2, hang.Report.TimedOutCount);
    }

    /// <summary>The stub app, and the API started with ThirdParty:BaseUrl pointing at it.</summary>
    public sealed class ApiOverStub : IAsyncLifetime
    {
        private readonly StubAppFixture _stub = new();
        private SandboxServer? _api;

        public SandboxServer Api => _api ?? throw new InvalidOperationException("The API has not started.");

        public async Task InitializeAsync()
        {
            await _stub.InitializeAsync();
            _api = await SandboxServer.StartAsync($"ThirdParty:BaseUrl={_stub.BaseUrl}");
        }

        public async Task DisposeAsync()
        {
            if (_api is not null)
            {
                await _api.DisposeAsync();
            }

            await _stub.DisposeAsync();
        }
    }
}
