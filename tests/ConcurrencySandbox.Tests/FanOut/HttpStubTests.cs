using ConcurrencySandbox.Api.FanOut;
using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.Experiments.FanOut;

namespace ConcurrencySandbox.Tests.FanOut;

/// <summary>The HTTP path: the real stub app on a loopback port, called through <see cref="HttpThirdPartyAdapter"/>.</summary>
public sealed class HttpStubTests(StubAppFixture stubApp) : IClassFixture<StubAppFixture>
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task BlockingAndAsyncCallsGetTheStubsAnswer()
    {
        var thirdParty = stubApp.ThirdParty();

        Assert.Equal(CallAnswer.Ok, thirdParty.Call(new StubBehaviour(20), Timeout, CancellationToken.None));
        Assert.Equal(CallAnswer.Ok, await thirdParty.CallAsync(new StubBehaviour(20), Timeout, CancellationToken.None));
    }

    [Fact]
    public async Task AnInjectedFailureComesBackAsAFailedCallWithTheStatus()
    {
        var answer = await stubApp.ThirdParty().CallAsync(new StubBehaviour(5, failRate: 1), Timeout, CancellationToken.None);

        Assert.Equal(CallOutcome.Failed, answer.Outcome);
        Assert.Contains("500", answer.Error);
    }

    [Fact]
    public void AHangingStubTimesOutAtTheCallersTimeout()
    {
        var answer = stubApp.ThirdParty().Call(new StubBehaviour(5, hangRate: 1), TimeSpan.FromMilliseconds(200), CancellationToken.None);

        Assert.Equal(CallOutcome.TimedOut, answer.Outcome);
    }

    [Fact]
    public async Task AnUnreachableThirdPartyIsAFailedCall()
    {
        using var client = new HttpClient { BaseAddress = new Uri("http://127.0.0.1:9/") };

        var answer = await new HttpThirdPartyAdapter(client).CallAsync(new StubBehaviour(5), Timeout, CancellationToken.None);

        Assert.Equal(CallOutcome.Failed, answer.Outcome);
    }

    [Theory]
    [MemberData(nameof(FanOutRunnerTests.AllStrategies), MemberType = typeof(FanOutRunnerTests))]
    public async Task EveryStrategyFansOutOverHttp(FanOutStrategy strategy)
    {
        using var dedicatedPool = new DedicatedThreadPool(2);
        var runner = new FanOutRunner(stubApp.ThirdParty(), dedicatedPool, TimeProvider.System);

        var report = await runner.RunAsync(new FanOutPlan(strategy, 4, new StubBehaviour(20), Timeout), CancellationToken.None);

        Assert.Equal(4, report.OkCount);
    }
}
