using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.Experiments.FanOut;
using Microsoft.Extensions.Time.Testing;

namespace ConcurrencySandbox.Tests.FanOut;

public sealed class FanOutRunnerTests : IDisposable
{
    private static readonly TimeSpan LongTimeout = TimeSpan.FromSeconds(30);

    private readonly DedicatedThreadPool _dedicatedPool = new(2, "test-dedicated");

    public static TheoryData<FanOutStrategy> AllStrategies => new(Enum.GetValues<FanOutStrategy>());

    public void Dispose() => _dedicatedPool.Dispose();

    [Theory]
    [InlineData(FanOutStrategy.ThreadPool)]
    [InlineData(FanOutStrategy.SyncOverAsync)]
    public async Task BlockingStrategiesRunEveryCallOnAPoolThread(FanOutStrategy strategy)
    {
        var report = await Run(strategy, calls: 4, new StubBehaviour(delayMs: 50));

        Assert.Equal(4, report.OkCount);
        Assert.All(report.Results, call => Assert.Equal(CallThread.Pool, call.Thread));
    }

    [Theory]
    [InlineData(FanOutStrategy.ThreadPool)]
    [InlineData(FanOutStrategy.SyncOverAsync)]
    public void BlockingStrategiesHoldTheRequestThreadUntilEveryCallEnded(FanOutStrategy strategy)
    {
        var running = Runner().RunAsync(Plan(strategy, 2, new StubBehaviour(50)), CancellationToken.None);

        Assert.True(running.IsCompletedSuccessfully);
    }

    [Theory]
    [InlineData(FanOutStrategy.Dedicated)]
    [InlineData(FanOutStrategy.Async)]
    public async Task NonBlockingStrategiesReleaseTheRequestThreadWhileCallsWait(FanOutStrategy strategy)
    {
        var running = Runner().RunAsync(Plan(strategy, 2, new StubBehaviour(200)), CancellationToken.None);

        Assert.False(running.IsCompleted);
        Assert.Equal(2, (await running).OkCount);
    }

    [Fact]
    public async Task DedicatedStrategyRunsEveryCallOnADedicatedThread()
    {
        var report = await Run(FanOutStrategy.Dedicated, calls: 6, new StubBehaviour(20));

        Assert.All(report.Results, call => Assert.Equal(CallThread.Dedicated, call.Thread));
        Assert.InRange(report.DistinctThreads, 1, _dedicatedPool.ThreadCount);
    }

    [Fact]
    public async Task AsyncFanOutStartsEveryCallOnOneThreadBeforeAnyEnds()
    {
        const int calls = 20;
        var runner = new FanOutRunner(new RendezvousThirdParty(calls), _dedicatedPool, TimeProvider.System);

        var report = await runner.RunAsync(Plan(FanOutStrategy.Async, calls, new StubBehaviour(0)), CancellationToken.None);

        // No call answers before all twenty have started: had one call held up the next, it would have timed out.
        Assert.Equal(calls, report.OkCount);
        Assert.Equal(1, report.DistinctThreads);
    }

    [Fact]
    public async Task WithOneDedicatedThreadEachCallWaitsExactlyAsLongAsTheCallsBeforeIt()
    {
        var clock = new FakeTimeProvider();
        using var onePool = new DedicatedThreadPool(1, "one");
        using var gate = new ManualResetEventSlim();
        onePool.Enqueue(gate.Wait); // holds the only thread until every call is queued
        var runner = new FanOutRunner(new ClockAdvancingThirdParty(clock, TimeSpan.FromMilliseconds(100)), onePool, clock);

        var running = runner.RunAsync(Plan(FanOutStrategy.Dedicated, 3, new StubBehaviour(0)), CancellationToken.None);
        gate.Set();
        var report = await running;

        // Each call takes 100 ms of the fake clock, and waits for every call queued before it.
        var fakeClockTotalMs = report.ElapsedMs;
        Assert.Equal([0.0, 100, 200], report.Results.Select(call => call.QueueWaitMs));
        Assert.All(report.Results, call => Assert.Equal(100, call.DurationMs));
        Assert.Equal(new MsSummary(200, 100), report.QueueWaitMs);
        Assert.Equal(300, fakeClockTotalMs);
    }

    [Theory]
    [MemberData(nameof(AllStrategies))]
    public async Task FailRateOneFailsEveryCallAndSaysWhy(FanOutStrategy strategy)
    {
        var report = await Run(strategy, calls: 3, new StubBehaviour(10, failRate: 1));

        Assert.Equal(3, report.FailedCount);
        Assert.All(report.Results, call => Assert.False(string.IsNullOrEmpty(call.Error)));
    }

    [Theory]
    [InlineData(FanOutStrategy.ThreadPool)]
    [InlineData(FanOutStrategy.Async)]
    public async Task HangRateOneTimesOutEveryCallAtThePlansTimeout(FanOutStrategy strategy)
    {
        var plan = new FanOutPlan(strategy, 3, new StubBehaviour(10, hangRate: 1), TimeSpan.FromMilliseconds(100));

        var report = await Runner().RunAsync(plan, CancellationToken.None);

        Assert.Equal(3, report.TimedOutCount);
        Assert.All(report.Results, call => Assert.Equal("no answer within 100 ms", call.Error));
    }

    [Fact]
    public async Task ACallSlowerThanItsTimeoutTimesOut()
    {
        var plan = new FanOutPlan(FanOutStrategy.Async, 1, new StubBehaviour(60_000), TimeSpan.FromMilliseconds(50));

        var report = await Runner().RunAsync(plan, CancellationToken.None);

        Assert.Equal(CallOutcome.TimedOut, Assert.Single(report.Results).Outcome);
    }

    [Theory]
    [MemberData(nameof(AllStrategies))]
    public async Task CancellingTheRequestStopsItsCalls(FanOutStrategy strategy)
    {
        using var cancellation = new CancellationTokenSource(TimeSpan.FromMilliseconds(100));
        var plan = new FanOutPlan(strategy, 2, new StubBehaviour(60_000), LongTimeout);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => Runner().RunAsync(plan, cancellation.Token));
    }

    [Fact]
    public async Task ReportSummarisesTheCalls()
    {
        var report = await Run(FanOutStrategy.Async, calls: 5, new StubBehaviour(10, failRate: 0));

        Assert.Equal("async", report.Strategy);
        Assert.Equal(5, report.Calls);
        Assert.Equal(report.Results.Max(call => call.DurationMs), report.DurationMs.Max);
        Assert.Equal(report.Results.Average(call => call.DurationMs), report.DurationMs.Mean, 6);
        Assert.Equal(Enumerable.Range(0, 5), report.Results.Select(call => call.Index));
    }

    private FanOutRunner Runner() => new(new InProcessThirdParty(new StubDice(42)), _dedicatedPool, TimeProvider.System);

    private static FanOutPlan Plan(FanOutStrategy strategy, int calls, StubBehaviour stub) => new(strategy, calls, stub, LongTimeout);

    private Task<FanOutReport> Run(FanOutStrategy strategy, int calls, StubBehaviour stub) =>
        Runner().RunAsync(Plan(strategy, calls, stub), CancellationToken.None);

    /// <summary>A third party whose calls all wait until every one of them has started (or the call's timeout).</summary>
    private sealed class RendezvousThirdParty(int calls) : IThirdParty
    {
        private readonly TaskCompletionSource _allStarted = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _started;

        public CallAnswer Call(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken) =>
            throw new NotSupportedException("only the async strategy runs against this third party");

        public async Task<CallAnswer> CallAsync(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken)
        {
            if (Interlocked.Increment(ref _started) == calls)
            {
                _allStarted.SetResult();
            }

            await _allStarted.Task.WaitAsync(timeout, cancellationToken);
            return CallAnswer.Ok;
        }
    }

    /// <summary>A third party that answers at once but moves the fake clock on by each call's time.</summary>
    private sealed class ClockAdvancingThirdParty(FakeTimeProvider clock, TimeSpan callTime) : IThirdParty
    {
        public CallAnswer Call(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken)
        {
            clock.Advance(callTime);
            return CallAnswer.Ok;
        }

        public Task<CallAnswer> CallAsync(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken) =>
            Task.FromResult(Call(behaviour, timeout, cancellationToken));
    }
}
