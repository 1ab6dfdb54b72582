using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class WorkloadTests
{
    [Fact]
    public async Task ClosedModelRunsAsManyConcurrentUsersAsTheShapeSays()
    {
        // Step 2 is long so a busy machine still gives the controller (50 ms period) several chances to add users.
        var shape = new LoadShape([new KeepConstant(2, TimeSpan.FromSeconds(0.3)), new KeepConstant(5, TimeSpan.FromSeconds(2))], TimeSpan.FromSeconds(1));
        var concurrent = 0;
        var peak = 0;
        var recorder = new LatencyRecorder();

        // Off xunit's two-thread synchronization context, like the runner's console process.
        await Task.Run(() => new ClosedModel(shape).RunAsync(async _ =>
        {
            var now = Interlocked.Increment(ref concurrent);
            InterlockedMax(ref peak, now);
            await Task.Delay(20);
            Interlocked.Decrement(ref concurrent);
            return RequestOutcome.Success;
        }, recorder, CancellationToken.None));

        Assert.Equal(5, peak);
        Assert.Equal(0, concurrent);
        Assert.True(recorder.TakeInterval().Ok > 0);
    }

    [Fact]
    public async Task OpenModelMeasuresLatencyFromTheIntendedStart()
    {
        // Arrivals due at 100, 200, ... 500 ms; each request moves the fake clock on by 150 ms and one runs at a time,
        // so each starts 50 ms later than the one before: from its intended start, request k took 150 + 50 k ms.
        var clock = new JumpingClock();
        var shape = new LoadShape([new Inject(10, TimeSpan.FromSeconds(0.5))], TimeSpan.FromSeconds(1));
        var recorder = new LatencyRecorder(System.Diagnostics.Stopwatch.GetTimestamp(), keepEveryRequest: true);

        await new OpenModel(shape, maxInFlight: 1, clock).RunAsync(_ =>
        {
            clock.Advance(TimeSpan.FromMilliseconds(150));
            return ValueTask.FromResult(RequestOutcome.Success);
        }, recorder, CancellationToken.None);

        var latenciesMs = recorder.Requests().Select(r => r.LatencyMs).ToList();
        Assert.Equal(5, latenciesMs.Count);
        Assert.All(latenciesMs.Zip(new[] { 150.0, 200, 250, 300, 350 }), pair => Assert.Equal(pair.Second, pair.First, 3));
    }

    [Fact]
    public async Task OpenModelTimesARequestSentBeforeItWasDueFromWhenItWasSent()
    {
        // The clock's timers fire 2 ms before they are due (as the runtime's millisecond timers can), so every request is
        // sent 2 ms early and takes 10 ms: timed from its intended start it would read 8 ms, shorter than the request.
        var clock = new JumpingClock(early: TimeSpan.FromMilliseconds(2));
        var shape = new LoadShape([new Inject(10, TimeSpan.FromSeconds(0.5))], TimeSpan.FromSeconds(1));
        var recorder = new LatencyRecorder(System.Diagnostics.Stopwatch.GetTimestamp(), keepEveryRequest: true);

        await new OpenModel(shape, maxInFlight: 1, clock).RunAsync(_ =>
        {
            clock.Advance(TimeSpan.FromMilliseconds(10));
            return ValueTask.FromResult(RequestOutcome.Success);
        }, recorder, CancellationToken.None);

        var latenciesMs = recorder.Requests().Select(r => r.LatencyMs).ToList();
        Assert.Equal(5, latenciesMs.Count);
        Assert.All(latenciesMs, latency => Assert.Equal(10, latency, 3));
    }

    [Fact]
    public async Task OpenModelRecordsArrivalsThatFoundNoFreeSlotAsNotSentFailures()
    {
        // Arrivals due at 100, 200, ... 500 ms and one slot. The first request moves the fake clock past the shape's end
        // (to 550 ms) and stays in flight until the runner has given up on the other four: none of them found a free slot.
        var clock = new JumpingClock();
        var shape = new LoadShape([new Inject(10, TimeSpan.FromSeconds(0.5))], TimeSpan.FromSeconds(1));
        var model = new OpenModel(shape, maxInFlight: 1, clock);
        var recorder = new LatencyRecorder();
        var firstAnswer = new TaskCompletionSource<RequestOutcome>(TaskCreationOptions.RunContinuationsAsynchronously);
        var sent = 0;

        var run = Task.Run(() => model.RunAsync(_ =>
        {
            Interlocked.Increment(ref sent);
            clock.Advance(TimeSpan.FromMilliseconds(450));
            return new ValueTask<RequestOutcome>(firstAnswer.Task);
        }, recorder, CancellationToken.None));
        await Eventually.TrueAsync(() => model.NotSent == 4, "the four later arrivals recorded as not sent");
        firstAnswer.SetResult(RequestOutcome.Success);
        await run;

        var total = recorder.TakeInterval();
        Assert.Equal(1, sent);
        Assert.Equal((5L, 1L, 4L), (total.Requests, total.Ok, total.Failed));
        Assert.Equal(4, model.NotSent);
    }

    [Fact]
    public async Task BurstStartsEveryRequestBeforeAnyFinishes()
    {
        const int copies = 8;
        var arrived = 0;
        var all = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var recorder = new LatencyRecorder();

        await Task.Run(() => new Burst(copies).RunAsync(async _ =>
        {
            if (Interlocked.Increment(ref arrived) == copies)
            {
                all.SetResult();
            }
            await all.Task.WaitAsync(TimeSpan.FromSeconds(30));
            return RequestOutcome.Success;
        }, recorder, CancellationToken.None));

        Assert.Equal(copies, recorder.TakeInterval().Ok);
    }

    [Fact]
    public async Task ABurstIsOneStepOfItsSizeWhileItDrainsSoItDrawsNoResponseCurve()
    {
        // Six requests sent at once, answered one by one: request k once the runner has taken its k-th 100 ms interval
        // (the runner's own ticks, not a wall-clock delay a busy machine can squeeze into one interval). The requests still
        // in flight fall, but they are no load, and a curve of latency against them would fall as "load" rose.
        const int copies = 6;
        var answers = Enumerable.Range(0, copies).Select(_ => new TaskCompletionSource()).ToArray();
        var (sent, taken) = (0, 0);

        var result = await Task.Run(() => VariantRunner.RunAsync(new VariantKey("default-pool"), "/x", new Burst(copies), async token =>
        {
            await answers[Interlocked.Increment(ref sent) - 1].Task.WaitAsync(token);
            return RequestOutcome.Success;
        }, TimeSpan.FromMilliseconds(100), null, IVariantProgress.OfIntervals(_ =>
        {
            if (Interlocked.Increment(ref taken) is var k && k <= copies)
            {
                answers[k - 1].TrySetResult();
            }
        }), CancellationToken.None, keepEveryRequest: true));

        Assert.True(result.Intervals.Count(i => i.Stats.Ok > 0) > 1, "the answers spread over several intervals");
        Assert.All(result.Intervals, i => Assert.Equal(copies, i.Load));
        var step = Assert.Single(result.Steps);
        Assert.Equal((copies, (long)copies), (step.Load, step.Stats.Ok));
        Assert.Null(ConcurrencySandbox.LoadTests.Reports.ResponseCurve.Of(result, "requests"));
    }

    /// <summary>A fake clock: a timer jumps the clock to its due time and fires at once; the test moves it on too.</summary>
    private sealed class JumpingClock(TimeSpan early = default) : TimeProvider
    {
        private long _ticks;

        public override long TimestampFrequency => TimeSpan.TicksPerSecond;

        public override long GetTimestamp() => Interlocked.Read(ref _ticks);

        public void Advance(TimeSpan by) => Interlocked.Add(ref _ticks, by.Ticks);

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            Advance(dueTime - early);
            ThreadPool.QueueUserWorkItem(_ => callback(state));
            return new FiredTimer();
        }

        private sealed class FiredTimer : ITimer
        {
            public bool Change(TimeSpan dueTime, TimeSpan period) => false;

            public void Dispose()
            {
            }

            public ValueTask DisposeAsync() => ValueTask.CompletedTask;
        }
    }

    private static void InterlockedMax(ref int target, int value)
    {
        for (var seen = Volatile.Read(ref target); value > seen; seen = Volatile.Read(ref target))
        {
            if (Interlocked.CompareExchange(ref target, value, seen) == seen)
            {
                return;
            }
        }
    }
}
