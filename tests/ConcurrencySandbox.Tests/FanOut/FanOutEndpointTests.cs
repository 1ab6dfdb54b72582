using System.Net;
using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Experiments.FanOut;
using ConcurrencySandbox.Experiments.Telemetry;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.FanOut;

public sealed class FanOutEndpointTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>
{
    [Theory]
    [InlineData("threadpool", CallThread.Pool)]
    [InlineData("sync-over-async", CallThread.Pool)]
    [InlineData("dedicated", CallThread.Dedicated)]
    [InlineData("async", CallThread.Pool)]
    public async Task EveryStrategyAnswersWithItsContract(string strategy, CallThread thread)
    {
        var report = await shared.Client.GetOkAsync<FanOutReport>($"/api/fanout?calls=3&delayMs=20&strategy={strategy}");

        Assert.Equal(strategy, report.Strategy);
        Assert.Equal(3, report.Calls);
        Assert.Equal((3, 0, 0), (report.OkCount, report.FailedCount, report.TimedOutCount));
        Assert.Equal(MsSummary.Of([.. report.Results.Select(call => call.QueueWaitMs)]), report.QueueWaitMs);
        Assert.Equal(MsSummary.Of([.. report.Results.Select(call => call.DurationMs)]), report.DurationMs);
        Assert.True(report.ThreadPoolBefore.ThreadCount >= 1);
        Assert.Equal([0, 1, 2], report.Results.Select(call => call.Index));
        Assert.All(report.Results, call => Assert.Equal(CallOutcome.Ok, call.Outcome));
        Assert.All(report.Results, call => Assert.Equal(thread, call.Thread));
    }

    [Fact]
    public async Task OutcomesAndThreadsAreWrittenAsCamelCaseStrings()
    {
        var ok = await shared.Client.GetStringAsync("/api/fanout?calls=1&delayMs=1&strategy=dedicated");
        using var hung = await shared.Client.GetAsync("/api/fanout?calls=1&hangRate=1&timeoutMs=20&strategy=threadpool");
        var timedOut = await hung.Content.ReadAsStringAsync();

        Assert.Contains("\"outcome\":\"ok\"", ok, StringComparison.Ordinal);
        Assert.Contains("\"thread\":\"dedicated\"", ok, StringComparison.Ordinal);
        Assert.Contains("\"outcome\":\"timedOut\"", timedOut, StringComparison.Ordinal);
        Assert.Contains("\"thread\":\"pool\"", timedOut, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AsyncFanOutStartsEveryCallOnTheRequestThread()
    {
        var report = await shared.Client.GetOkAsync<FanOutReport>("/api/fanout?calls=50&delayMs=100&strategy=async");

        Assert.Equal(1, report.DistinctThreads);
    }

    [Fact]
    public async Task DedicatedThreadsSettingSizesThePoolTheCallsRunOn()
    {
        await using var server = await SandboxServer.StartAsync("FanOut:DedicatedThreads=1");

        var report = await server.Client.GetOkAsync<FanOutReport>("/api/fanout?calls=4&delayMs=20&strategy=dedicated");

        // How long each call then waits for the one thread is checked on a fake clock in FanOutRunnerTests.
        Assert.All(report.Results, call => Assert.Equal(CallThread.Dedicated, call.Thread));
        Assert.Equal(1, report.DistinctThreads);
    }

    [Theory]
    [InlineData("threadpool")]
    [InlineData("async")]
    public async Task WhenEveryCallFailsTheAnswerIs502SayingSo(string strategy)
    {
        using var response = await shared.Client.GetAsync($"/api/fanout?calls=4&delayMs=5&failRate=1&strategy={strategy}");

        var problem = await response.ReadProblemAsync<FanOutProblem>(HttpStatusCode.BadGateway);
        Assert.Contains("4 failed", problem.Detail, StringComparison.Ordinal);
        Assert.Equal(4, problem.Report.FailedCount);
        Assert.All(problem.Report.Results, call => Assert.Equal(CallOutcome.Failed, call.Outcome));
    }

    [Fact]
    public async Task HangingCallsAreReportedAsTimedOut()
    {
        using var response = await shared.Client.GetAsync("/api/fanout?calls=2&delayMs=5&hangRate=1&timeoutMs=100&strategy=dedicated");

        var problem = await response.ReadProblemAsync<FanOutProblem>(HttpStatusCode.BadGateway);
        Assert.Equal(2, problem.Report.TimedOutCount);
        Assert.All(problem.Report.Results, call => Assert.Equal(CallOutcome.TimedOut, call.Outcome));
    }

    [Theory]
    [InlineData("calls=0", "calls")]
    [InlineData("calls=1001", "calls")]
    [InlineData("calls=ten", "calls")]
    [InlineData("delayMs=-1", "delayMs")]
    [InlineData("delayMs=60001", "delayMs")]
    [InlineData("strategy=fast", "strategy")]
    [InlineData("jitterMs=-1", "jitterMs")]
    [InlineData("jitterMs=60001", "jitterMs")]
    [InlineData("failRate=1.5", "failRate")]
    [InlineData("failRate=-0.1", "failRate")]
    [InlineData("hangRate=2", "hangRate")]
    [InlineData("hangRate=NaN", "hangRate")]
    [InlineData("timeoutMs=0", "timeoutMs")]
    [InlineData("timeoutMs=120001", "timeoutMs")]
    [InlineData("calls=1000&delayMs=60000", "calls")]
    public async Task BadInputGetsProblemDetailsNamingTheParameter(string query, string parameter)
    {
        using var response = await shared.Client.GetAsync($"/api/fanout?{query}");

        var detail = await ProblemAssert.IsBadRequestNamingAsync(response, parameter);
        Assert.Matches("from|limit|one of", detail);
    }

    [Theory]
    [InlineData("threadpool")]
    [InlineData("async")]
    public async Task AnAbandonedFanOutStopsWaiting(string strategy)
    {
        using var client = new CancellationTokenSource(TimeSpan.FromMilliseconds(300));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(
            () => shared.Client.GetAsync($"/api/fanout?calls=2&delayMs=60000&strategy={strategy}", client.Token));

        // The server's handler ends long before the 60 s calls would: only the telemetry request is left in flight.
        await Eventually.TrueAsync(async () => await InFlightAsync() == 1, "the abandoned fan-out's handler to end", TimeSpan.FromSeconds(10));
    }

    [Theory]
    [InlineData("FanOut:DedicatedThreads=0", "FanOut__DedicatedThreads")]
    [InlineData("FanOut:MaxCalls=-1", "FanOut__MaxCalls")]
    [InlineData("ThirdParty:BaseUrl=not-a-url", "ThirdParty__BaseUrl")]
    [InlineData("ThirdParty:TimeoutMs=0", "ThirdParty__TimeoutMs")]
    public async Task AnInvalidSettingStopsStartUpNamingIt(string setting, string environmentVariable)
    {
        var failure = await SandboxServer.StartUpFailureAsync(setting);

        Assert.Contains(environmentVariable, failure, StringComparison.Ordinal);
    }

    private async Task<long> InFlightAsync() => (await shared.Client.GetOkAsync<RuntimeSnapshot>("/api/telemetry")).InFlightRequests;
}
