using System.Runtime.CompilerServices;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Progress;
using Microsoft.Extensions.Time.Testing;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// The progress output's threads: events published from many threads while the status line redraws, a terminal that
/// stops reading, and the runner's watch on itself. Each bound here turns a deadlock into a failure; none is a timing.
/// </summary>
public sealed class ProgressConcurrencyTests
{
    private static readonly TimeSpan DeadlockBound = TimeSpan.FromSeconds(60);
    private static readonly RunPlanned Plan = new("fanout, quick", [new("fanout/threadpool", 60, 10), new("fanout/async", 60, 10)]);

    private readonly FakeTimeProvider _clock = new(new DateTimeOffset(2026, 11, 28, 11, 0, 0, TimeSpan.Zero));

    [Fact]
    public async Task PublishingFromManyThreadsWhileTheStatusRedrawsAtAHighRateNeverDeadlocks()
    {
        // The shape of the hang in a terminal: the redraw reads the progress's state while a publisher writes a line to
        // the console. Here eight publishers and a redraw driven as fast as the fake clock can tick.
        using var terminal = new LockedWriter();
        RunProgress? progress = null;
        var console = new StatusConsole(terminal, () => progress is null ? "" : StatusLine.Format(progress.State, _clock.GetUtcNow()), () => 120, _clock);
        progress = new RunProgress(Plan, _clock, [new ConsoleLines(console, intervals: true)]);
        progress.Publish(new VariantStarted(0, 2, "fanout/threadpool", "/api/fanout", "#d62728"));
        using var stop = new CancellationTokenSource();

        var redraws = Task.Factory.StartNew(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                _clock.Advance(TimeSpan.FromSeconds(1));
            }
        }, TaskCreationOptions.LongRunning);
        var publishers = Enumerable.Range(0, 8).Select(p => Task.Factory.StartNew(() =>
        {
            for (var i = 0; i < 2_000; i++)
            {
                progress.Publish(Interval(load: p + 1, elapsedSeconds: i));
                _ = progress.State;
            }
        }, TaskCreationOptions.LongRunning)).ToArray();

        var all = Task.WhenAll(publishers);
        var finished = await Task.WhenAny(all, Task.Delay(DeadlockBound));
        await stop.CancelAsync();
        Assert.True(finished == all, "the publishers did not finish: progress and the status line wait for each other");
        await redraws;
        console.Dispose();

        // Every line reached the terminal, in one piece each.
        var lines = terminal.ToString().Split('\n').Count(l => l.Contains("fanout/threadpool t=", StringComparison.Ordinal));
        Assert.Equal(8 * 2_000, lines);
    }

    [Fact]
    public void AListenerRunsWithNoLockOfTheProgressHeld()
    {
        // A listener that needs another thread to read the state and publish (the status line's redraw, the live page's
        // reader) gets both at once: the old progress held its lock while it called the listeners.
        RunProgress? progress = null;
        var otherThreadDone = new List<bool>();
        var listener = new Listener(e =>
        {
            if (e is VariantStarted)
            {
                // A thread of its own, not the pool's: other tests in this process starve the pool on purpose.
                var other = new Thread(() =>
                {
                    _ = progress!.State;
                    progress.Publish(Interval(load: 1, elapsedSeconds: 1));
                });
                other.Start();
                otherThreadDone.Add(other.Join(DeadlockBound));
            }
        });
        progress = new RunProgress(Plan, _clock, [listener]);

        progress.Publish(new VariantStarted(0, 2, "fanout/threadpool", "/api/fanout", "#d62728"));
        Assert.True(progress.Flush());

        Assert.Equal([true], otherThreadDone);
        // The other thread's event was delivered after the one whose listener it ran in: order kept, one at a time.
        Assert.Equal(["plan", "variant", "interval"], listener.Kinds);
        Assert.Equal(0, listener.Overlaps);
    }

    [Fact]
    public async Task EventsReachTheListenersInTheOrderOfTheStateOneAtATime()
    {
        var listener = new Listener(_ => Thread.SpinWait(200));
        var progress = new RunProgress(Plan, _clock, [listener]);
        progress.Publish(new VariantStarted(0, 2, "fanout/threadpool", "/api/fanout", "#d62728"));

        await Task.WhenAll(Enumerable.Range(0, 4).Select(p => Task.Run(() =>
        {
            for (var i = 0; i < 500; i++)
            {
                progress.Publish(Interval(load: p + 1, elapsedSeconds: i));
            }
        })));
        Assert.True(progress.Flush());

        Assert.Equal(0, listener.Overlaps);
        Assert.Equal(2 + (4 * 500), listener.Kinds.Count);
        // Each publisher's own events arrive in the order it published them.
        foreach (var load in Enumerable.Range(1, 4))
        {
            var elapsed = listener.Intervals.Where(i => i.Load == load).Select(i => i.ElapsedSeconds).ToList();
            Assert.Equal(elapsed.Order(), elapsed);
        }
        Assert.Equal(4 * 500, progress.State.Failed);
    }

    [Fact]
    public async Task ATerminalThatStopsReadingHoldsUpNeitherThePublishersNorTheEnd()
    {
        using var blocked = new ManualResetEventSlim();
        using var terminal = new LockedWriter(blocked);
        var console = new StatusConsole(terminal, () => "status", () => 80, _clock);
        var progress = new RunProgress(Plan, _clock, [new ConsoleLines(console, intervals: true)]);
        await Eventually.TrueAsync(() => terminal.Waiting, "the writer thread to block on the terminal");

        var publish = Task.Run(() =>
        {
            for (var i = 0; i < 1_000; i++)
            {
                progress.Publish(Interval(load: 1, elapsedSeconds: i));
            }
        });
        Assert.True(await Task.WhenAny(publish, Task.Delay(DeadlockBound)) == publish, "publishing waited for a terminal that does not read");

        // The redraw timer keeps ticking: one redraw stays queued, the others skip their turn.
        for (var i = 0; i < 100; i++)
        {
            _clock.Advance(TimeSpan.FromSeconds(1));
        }
        Assert.True(console.SkippedRedraws >= 99, $"{console.SkippedRedraws} redraws skipped");

        var dispose = Task.Run(console.Dispose);
        Assert.True(await Task.WhenAny(dispose, Task.Delay(DeadlockBound)) == dispose, "disposing waited for a terminal that does not read");

        // The terminal reads again: what was queued follows, in order.
        blocked.Set();
        await Eventually.TrueAsync(() => terminal.ToString().Contains("t= 999.0s", StringComparison.Ordinal), "the queued lines to reach the terminal");
    }

    [Fact]
    public async Task TheStatusLineFollowsATerminalResizedMidRun()
    {
        using var terminal = new LockedWriter();
        var width = 100;
        using (var console = new StatusConsole(terminal, () => new string('x', 90), () => Volatile.Read(ref width), _clock))
        {
            await Eventually.TrueAsync(() => terminal.ToString().Contains(new string('x', 90), StringComparison.Ordinal), "the first status at 100 columns");
            Volatile.Write(ref width, 30);
            _clock.Advance(TimeSpan.FromSeconds(1));
            await Eventually.TrueAsync(() => terminal.ToString().EndsWith(new string('x', 28) + "…", StringComparison.Ordinal), "the status cut to 30 columns");
        }
    }

    [Fact]
    public void SerialDeliveryRunsPostedActionsInOrderAndAnActionPostedFromInsideOneAfterIt()
    {
        var delivery = new SerialDelivery();
        var ran = new List<string>();
        delivery.Post(() =>
        {
            ran.Add("first");
            delivery.Post(() => ran.Add("posted inside first"));
            delivery.Run();
            ran.Add("first, after its nested run returned");
        });
        delivery.Post(() => ran.Add("second"));

        delivery.Run();

        Assert.Equal(["first", "first, after its nested run returned", "second", "posted inside first"], ran);
        Assert.True(delivery.Idle);
    }

    [Fact]
    public void AnActionThatThrowsLeavesTheRestQueuedForTheNextRun()
    {
        var delivery = new SerialDelivery();
        var ran = new List<int>();
        delivery.Post(() => throw new InvalidOperationException("listener failed"));
        delivery.Post(() => ran.Add(2));

        Assert.Throws<InvalidOperationException>(delivery.Run);
        Assert.Empty(ran);
        Assert.False(delivery.Idle);

        delivery.Run();
        Assert.Equal([2], ran);
        Assert.True(delivery.Idle);
    }

    [Fact]
    public async Task AStalledLoadIsNamedOnceWithTheRunnersOwnFramesAndItsEndSaid()
    {
        using var output = new LockedWriter();
        var progress = new RunProgress(Plan, _clock, []);
        using var watch = new StallWatch(() => progress.State, output, _clock, () => ["272 thread(s) in StatusConsole.DrawStatus, a contended lock (Monitor.Enter)"]);
        progress.Publish(new VariantStarted(0, 2, "fanout/threadpool", "/api/fanout", "#d62728"));
        // Before its first interval a variant is starting (a fresh API, its warm-up request): silence is no stall.
        for (var i = 0; i < 20; i++)
        {
            _clock.Advance(TimeSpan.FromSeconds(1));
        }
        Assert.Equal(0, watch.Stalls);
        progress.Publish(Interval(load: 4, elapsedSeconds: 1));
        progress.Publish(Interval(load: 4, elapsedSeconds: 2));

        // Four silent intervals: not yet a stall (five of its 1 s intervals, at least 5 s).
        for (var i = 0; i < 4; i++)
        {
            _clock.Advance(TimeSpan.FromSeconds(1));
        }
        Assert.Equal(0, watch.Stalls);

        for (var i = 0; i < 10; i++)
        {
            _clock.Advance(TimeSpan.FromSeconds(1));
        }
        Assert.Equal(1, watch.Stalls);
        await Eventually.TrueAsync(() => output.ToString().Contains("272 thread(s) in StatusConsole.DrawStatus", StringComparison.Ordinal), "the runner's own frames");
        Assert.Contains("stall: fanout/threadpool has recorded no interval for 5 s while its load runs (one is due every 1 s)", output.ToString());

        progress.Publish(Interval(load: 4, elapsedSeconds: 15));
        _clock.Advance(TimeSpan.FromSeconds(1));
        Assert.Contains("stall: over, fanout/threadpool recorded an interval again", output.ToString());

        // The variant's last (partial) interval ends its load: silence after it (the report being written) is no stall.
        progress.Publish(Interval(load: 4, elapsedSeconds: 15.5) with { Partial = true });
        for (var i = 0; i < 30; i++)
        {
            _clock.Advance(TimeSpan.FromSeconds(1));
        }
        Assert.Equal(1, watch.Stalls);
    }

    [Fact]
    public void TheStallLimitFollowsTheReportingIntervalTheFirstIntervalShows()
    {
        using var output = new LockedWriter();
        var progress = FirstVariantStarted();
        using var watch = new StallWatch(() => progress.State, output, _clock, ownFrames: null);
        // A 6 s reporting interval: its first interval ends 6 s into the load.
        progress.Publish(Interval(load: 4, elapsedSeconds: 6));
        Assert.Equal(6, progress.State.IntervalSeconds);

        TickSeconds(29);
        Assert.Equal(0, watch.Stalls);
        _clock.Advance(TimeSpan.FromSeconds(1));
        Assert.Equal(1, watch.Stalls);
        Assert.Contains("(one is due every 6 s)", output.ToString());
    }

    [Fact]
    public void AnIntervalEndingJustAfterACatchUpTickDoesNotShrinkTheStallLimit()
    {
        // Stopped from 6.5 s to 13.7 s (the wrk benchmark's turns): the 2 s timer fires at once on SIGCONT and again on
        // its schedule at 14.0, 0.3 s later. A limit of 5 x 0.3 s (the 5 s minimum) named a stall 5 s into the next stop.
        using var output = new LockedWriter();
        var progress = FirstVariantStarted();
        using var watch = new StallWatch(() => progress.State, output, _clock, ownFrames: null);
        foreach (var elapsedSeconds in new[] { 2, 4, 6, 13.7, 14.0 })
        {
            progress.Publish(Interval(load: 4, elapsedSeconds: elapsedSeconds));
        }

        TickSeconds(9);
        Assert.Equal(0, watch.Stalls);
        Assert.True(progress.State.IntervalSeconds >= 2, $"the reporting interval read as {progress.State.IntervalSeconds} s");
    }

    [Theory]
    [InlineData(11)]
    [InlineData(37)]
    [InlineData(59)]
    public void TheIntervalTheStallWatchReadsIsNeverShorterThanTheTimersPeriodWhateverStopsTheRunner(int seed)
    {
        // A periodic timer in a process stopped at random: a tick that fell in a stop fires once at the continue, the next
        // on the schedule, so ticks end at most one a period and two can end any time apart.
        var random = new Random(seed);
        var periodSeconds = random.Next(1, 7);
        var progress = FirstVariantStarted();
        var now = 0.0;
        for (var tick = 0; tick < 40; tick++)
        {
            var scheduled = (Math.Floor(now / periodSeconds) + 1) * periodSeconds;
            var stopped = random.Next(3) == 0 ? (from: scheduled - random.NextDouble() * periodSeconds, seconds: random.NextDouble() * 4 * periodSeconds) : default;
            now = stopped.seconds > 0 && stopped.from + stopped.seconds > scheduled ? stopped.from + stopped.seconds : scheduled;
            progress.Publish(Interval(load: 4, elapsedSeconds: now));

            Assert.True(progress.State.IntervalSeconds >= periodSeconds - 1e-9, $"tick {tick} at {now:0.00} s: the interval read as {progress.State.IntervalSeconds} s, the period is {periodSeconds} s");
        }
    }

    [FactOnLinux]
    [Trait("Category", "Slow")]
    public void TheRunnersOwnBlockedThreadsAreNamedFromASampleOfItsOwnStacks()
    {
        // What the stall line shows: this process samples its own stacks over its diagnostics channel, with blocking calls
        // only, so it also works when its own pool is starved. Two threads park on a lock this test holds.
        var gate = new object();
        var parked = new List<Thread>();
        lock (gate)
        {
            for (var i = 0; i < 2; i++)
            {
                var thread = new Thread(() => ParkOn(gate)) { IsBackground = true };
                thread.Start();
                parked.Add(thread);
            }
            SpinWait.SpinUntil(() => parked.All(t => t.ThreadState.HasFlag(System.Threading.ThreadState.WaitSleepJoin)), DeadlockBound);

            var frames = StackSampler.OwnBlockedFrames();

            Assert.NotNull(frames);
            Assert.Contains(frames, line => line.StartsWith($"{CountText.Of(2, "thread")} in ProgressConcurrencyTests.ParkOn, a contended lock", StringComparison.Ordinal));
        }
        parked.ForEach(t => t.Join());
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ParkOn(object gate)
    {
        lock (gate)
        {
        }
    }

    /// <summary>A run's progress on the test's clock, its first variant (fanout/threadpool) started.</summary>
    private RunProgress FirstVariantStarted()
    {
        var progress = new RunProgress(Plan, _clock, []);
        progress.Publish(new VariantStarted(0, 2, "fanout/threadpool", "/api/fanout", "#d62728"));
        return progress;
    }

    /// <summary>The test's clock moved on a second at a time, so the stall watch's 1-second timer checks at each.</summary>
    private void TickSeconds(int seconds)
    {
        for (var i = 0; i < seconds; i++)
        {
            _clock.Advance(TimeSpan.FromSeconds(1));
        }
    }

    private static IntervalEnded Interval(double load, double elapsedSeconds) =>
        new("fanout/threadpool", elapsedSeconds, "users", load, 10, 10, 1, 0, 5, 5, 9, 9, 4, 0, Partial: false);

    /// <summary>Records what it is told, counting calls that overlapped another (there must be none).</summary>
    private sealed class Listener(Action<ProgressEvent> also) : IProgressListener
    {
        private int _inside;

        public List<string> Kinds { get; } = [];

        public List<IntervalEnded> Intervals { get; } = [];

        public int Overlaps { get; private set; }

        public void On(ProgressEvent e)
        {
            if (Interlocked.Increment(ref _inside) > 1)
            {
                Overlaps++;
            }
            Kinds.Add(e switch { RunPlanned => "plan", VariantStarted => "variant", IntervalEnded => "interval", _ => e.GetType().Name });
            if (e is IntervalEnded interval)
            {
                Intervals.Add(interval);
            }
            also(e);
            Interlocked.Decrement(ref _inside);
        }
    }
}
