using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>Starved means starved over time: the whole series is read, and an injection of any reason counts.</summary>
public sealed class StarvedSpellTests
{
    // 125 requests sent at once in the first tenth of a second, 10 more once the pool has caught up.
    private static readonly IReadOnlyList<SentSlice> Sent = [new(0, 120, 120 * 15_000, 5, 5 * 60_000, 0), new(35, 10, 10 * 500, 0, 0, 0)];

    [Fact]
    public void StarvedEarlyThenCaughtUpIsStarvedForThoseSecondsWithTheRequestsSentThen()
    {
        // 125 needed; the pool grows 4 a second by injection with the queue shrinking, catches up at 30 s and stays there.
        var samples = Enumerable.Range(1, 40).Select(s => s <= 30
            ? new PoolSample(s, 4 * s, 125 - (4 * s), 125, [.. Injected("CooperativeBlocking", 3), "Starvation"])
            : new PoolSample(s, 126, 0, 125, [])).ToList();

        var spell = StarvedSpell.Of(samples, Sent);

        Assert.True(spell.Happened);
        Assert.Equal(0, spell.FromSeconds);
        Assert.Equal(30, spell.ToSeconds);
        Assert.Equal(30, spell.StarvedSeconds, precision: 6);
        Assert.Equal(30 * 4, spell.Injections);
        Assert.Equal("120 thread injections (CooperativeBlocking 90, Starvation 30)", spell.DescribeInjections());
        Assert.Equal(125, spell.HeldUpRequests);
        Assert.Equal(5, spell.HeldUpTimedOut);
        Assert.Equal(15_000, spell.HeldUpMeanMs!.Value, precision: 6);
    }

    [Fact]
    public void RequestsStillInFlightWhenTheSpellBeganWaitedBehindItAsWellAsThoseSentDuringIt()
    {
        // Starved from 4 s to 10 s. Sent before it: 20 requests answered after 15 s (still waiting at 4 s) and 30 answered
        // after 1 s (done by then); sent during it: 10; sent after it: 40.
        IReadOnlyList<SentSlice> sent = [new(0, 20, 20 * 15_000, 0, 0, 0), new(0.1, 30, 30 * 1_000, 0, 0, 0), new(5, 10, 10 * 2_000, 0, 0, 0), new(12, 40, 40 * 100, 0, 0, 0)];
        var samples = Enumerable.Range(5, 6).Select(s => new PoolSample(s, 10, 30, 50, Injected("Starvation", 1))).Append(new PoolSample(11, 60, 0, 50, [])).ToList();

        var spell = StarvedSpell.Of(samples, sent);

        Assert.Equal(4, spell.FromSeconds);
        Assert.Equal(20 + 10, spell.HeldUpRequests);
        Assert.Equal(((20 * 15_000) + (10 * 2_000)) / 30.0, spell.HeldUpMeanMs!.Value, precision: 6);
    }

    [Fact]
    public void APoolNeverShortOfWhatTheLoadNeededIsNotStarvedWhateverItsQueueAndInjections()
    {
        var samples = Enumerable.Range(1, 20).Select(s => new PoolSample(s, 40, 30, 40, Injected("Starvation", 3))).ToList();

        Assert.Same(StarvedSpell.None, StarvedSpell.Of(samples, Sent));
    }

    [Theory]
    [InlineData(0, false, 1, false)]
    [InlineData(1, false, 1, true)]
    [InlineData(84, false, 0, false)]
    [InlineData(85, false, 0, true)]
    [InlineData(300, true, 5, false)]
    public void ShortOfThreadsIsStarvedOnlyWithWorkQueuedAndAnInjectionOrAsManyQueuedAsMissing(long queued, bool poolHasEnough, int injections, bool starved)
    {
        // 125 needed and 40 had (85 missing), or 40 needed.
        var sample = new PoolSample(1, 40, queued, poolHasEnough ? 40 : 125, Injected("Starvation", injections));

        Assert.Equal(starved, sample.Starved);
    }

    [Fact]
    public void OnlyHillClimbingMovesWhileWorkIsQueuedIsStarved()
    {
        // No Starvation or CooperativeBlocking adjustment at all: the pool climbs by hill climbing while 10 items wait.
        var marks = Enumerable.Range(0, 5).Select(i => new AdjustmentMark(i + 0.5, 4 + i, "ClimbingMove")).ToList();
        var result = Run(users: 40, threads: [4, 5, 6, 7, 8], queued: [10, 10, 10, 10, 10]);

        var samples = VariantObserver.PoolSamples(result, marks, threadsPerRequest: 1);
        var diagnosis = StarvationDiagnosis.From(Inputs with { Spell = StarvedSpell.Of(samples, result.Sent), StarvationAdjustments = 0, PeakQueueLength = 10, PoolThreadsAtPeak = 8 });

        Assert.All(samples, s => Assert.Equal(1, s.Injections));
        Assert.True(diagnosis.Starved);
        Assert.StartsWith("Starved for 4.5 s (0 s to 4.5 s of the run", diagnosis.Describe());
    }

    [Theory]
    // Work queued while the pool added threads, (nearly) all of them blocked: starved although the pool had what Little's law asked.
    [InlineData(true, 59, 2, true)]
    // The same pool with nothing queued, or not adding threads, or not blocked (an async service's queue of short items).
    [InlineData(true, 0, 2, false)]
    [InlineData(true, 59, 0, false)]
    [InlineData(false, 59, 2, false)]
    public void APoolWithEnoughThreadsStarvesWhenItAddsThreadsWhileAllAreBlockedAndWorkWaits(bool poolBlocked, long queued, int injections, bool starved)
    {
        // The ControllerLinq break: 60 users and 77 threads, so Little's law saw the pool 17 threads over the need.
        var sample = new PoolSample(1, 77, queued, 60, Injected("CooperativeBlocking", injections), ThreadsBlock: poolBlocked, PoolBlocked: poolBlocked);

        Assert.False(sample.ShortOfThreads);
        Assert.Equal(starved, sample.Starved);
    }

    [Theory]
    // The runtime's own starvation injection while the stacks show threads blocking off a lock: starved, even with the queue drained by the sample.
    [InlineData(true, "Starvation", true)]
    // A hill-climbing move is not the runtime saying work made no progress.
    [InlineData(true, "ClimbingMove", false)]
    // No thread blocks in user code (an async service on a machine too busy to run it): not the pool's starvation.
    [InlineData(false, "Starvation", false)]
    public void TheRuntimesStarvationInjectionIsStarvationWhenThePoolsThreadsBlock(bool threadsBlock, string reason, bool starved)
    {
        var sample = new PoolSample(1.698, 3, 0, 2, [reason], threadsBlock);

        Assert.False(sample.ShortOfThreads);
        Assert.Equal(starved, sample.Starved);
    }

    [Fact]
    public void TwoUsersOfASelfCallingServiceStarveWhenHillClimbingLowersThePoolToTheirBlockedThreads()
    {
        // ControllerLinq's 2-users step (scripts/diagnose-targets.sh, 2026-11-27): hill climbing set the pool to 2 threads
        // at 0.69 s, both blocked in Send while the catalog's items waited; the runtime injected for starvation at 1.30 s.
        // The stack sample (after it) found 2 of 5 pool threads in Send. Little's law asked for 2 threads, the pool had 3-5.
        var key = new VariantKey("2-users");
        (double Seconds, int Threads, long Queued)[] series = [(0.688, 3, 3), (1.698, 3, 0), (2.702, 5, 0), (3.784, 5, 0), (4.788, 5, 0)];
        var result = new VariantResult(key, "/orders/1", "users", 3,
            [.. Enumerable.Range(1, 3).Select(i => new IntervalRow(key, i, "users", 2, 5, TestStats.Uniform(5, 310)))],
            [.. series.Select(s => new TelemetryRow(key, s.Seconds, default(RuntimeSnapshot) with { ThreadPool = new ThreadPoolTelemetry(s.Threads, s.Queued, 0, 0, 0) }))],
            TestStats.Uniform(14, 310)) { Sent = [new SentSlice(0, 14, 14 * 400, 0, 0, 0)] };
        AdjustmentMark[] marks = [new(0.085, 3, "ClimbingMove"), new(0.688, 2, "ClimbingMove"), new(1.297, 3, "Starvation"), new(1.898, 5, "ClimbingMove"), new(2.702, 3, "ClimbingMove"), new(3.405, 5, "ClimbingMove")];
        var sites = new BlockingSites(5, 20, [new BlockingSite(BlockingSites.NoUserCode, 3, InUserCode: false), new BlockingSite("CatalogClient.Lookup -> HttpClient.Send", 2, InUserCode: true, InRequest: true, Send)]);

        var diagnosis = VariantObserver.Diagnose(result, sites, marks)!;

        Assert.False(sites.PoolBlocked);
        Assert.True(diagnosis.Starved);
        Assert.Equal("1 thread injection (Starvation 1)", diagnosis.Inputs.Spell.DescribeInjections());
        Assert.StartsWith("pool starvation", CapacityFinding.CauseOf(result, new VariantObservation("pid 1", 5, 1, marks, sites, null, diagnosis, null), 335, null));
    }

    [Fact]
    public void ALockThatStarvesThePoolIsStillTheCauseAtTheBreak()
    {
        // LockSleep's shape: the runtime injects for starvation while the requests queue for the lock; more threads would not help.
        var marks = Enumerable.Range(0, 5).Select(i => new AdjustmentMark(i + 0.5, 4 + i, "Starvation")).ToList();
        var result = Run(users: 8, threads: [4, 5, 6, 7, 8], queued: [4, 3, 2, 1, 1]);
        var onLock = new BlockingCall("Inventory.Reserve", BlockingPrimitive.Lock, null, "GET /inventory/{id:int}", null, null, null);
        var sites = new BlockingSites(8, 20, [new BlockingSite("Inventory.Reserve -> Monitor.Enter", 7, InUserCode: true, InRequest: true, onLock), new BlockingSite(BlockingSites.NoUserCode, 1, InUserCode: false)]);

        var diagnosis = VariantObserver.Diagnose(result, sites, marks)!;

        Assert.StartsWith("a contended lock", CapacityFinding.CauseOf(result, new VariantObservation("pid 1", 5, 1, marks, sites, null, diagnosis, null), 57, null));
    }

    [Fact]
    public void AtTwoRequestsTheLockWaiterTiesWithTheHolderSleepingInsideItAndTheLockIsStillTheCause()
    {
        // LockSleep at 2 users (quiet run, 2026-11-27): one thread sleeps inside the lock, the other waits for it.
        var result = Run(users: 2, threads: [3, 3, 3, 3, 3], queued: [0, 0, 0, 0, 0]);
        var sleeping = new BlockingCall("Inventory.Reserve", BlockingPrimitive.Sleep, null, "GET /inventory/{id:int}", null, null, null);
        var waiting = new BlockingCall("Inventory.Reserve", BlockingPrimitive.Lock, null, "GET /inventory/{id:int}", null, null, null);
        var sites = new BlockingSites(3, 20,
        [
            new BlockingSite("Inventory.Reserve -> Thread.Sleep", 1, InUserCode: true, InRequest: true, sleeping),
            new BlockingSite("Inventory.Reserve -> Monitor.Enter", 1, InUserCode: true, InRequest: true, waiting),
            new BlockingSite(BlockingSites.NoUserCode, 1, InUserCode: false),
        ]);

        var diagnosis = VariantObserver.Diagnose(result, sites, [])!;

        Assert.Same(sites.Sites[1], sites.LockSite);
        Assert.StartsWith("a contended lock (1 of 3 pool threads wait in Inventory.Reserve", CapacityFinding.CauseOf(result, new VariantObservation("pid 1", 5, 1, [], sites, null, diagnosis, null), 54, null));
        // A lock waiter outnumbered by another group is not the cause.
        Assert.Null(new BlockingSites(3, 20, [sites.Sites[0] with { Threads = 2 }, sites.Sites[1]]).LockSite);
    }

    [Theory]
    // InlinedHelper at 32 users (quiet run, 2026-11-27): 9 cooperative-blocking injections took the pool to the 32 threads
    // the load needed by the first counter sample, queue empty there, but that second's p99 was 507 ms against a fastest
    // request of 195 ms: the requests waited for the threads the runtime added. Starved.
    [InlineData(true, 507.4, PoolSample.CooperativeBlockingReason, true)]
    // The sample service's held steps: the runtime injects for every .Result that blocks, while p99 stays at the unloaded level.
    [InlineData(true, 204.3, PoolSample.CooperativeBlockingReason, false)]
    // The same wait behind a lock (the stacks' biggest group waits for it, so ThreadsBlock is off): not this rule's starvation.
    [InlineData(false, 507.4, PoolSample.CooperativeBlockingReason, false)]
    // Hill climbing's own move while the requests waited is not the runtime adding threads because threads blocked.
    [InlineData(true, 507.4, "ClimbingMove", false)]
    public void ABlockingInjectionIsStarvationOnlyWhenTheRequestsOfItsIntervalWaited(bool threadsBlock, double intervalP99Ms, string reason, bool starved)
    {
        var sample = new PoolSample(0.807, 32, 0, 32, Injected(reason, 9), threadsBlock, IntervalP99Ms: intervalP99Ms, FastestMs: 195.2);

        Assert.False(sample.ShortOfThreads);
        Assert.Equal(intervalP99Ms > PoolSample.WaitedFactor * 195.2, sample.RequestsWaited);
        Assert.Equal(starved, sample.Starved);
    }

    // The sample service's break (Thread.Sleep 500 ms, 6 users climbed to on a fresh process, 2026-11-29): 6 threads for
    // 6 users, so Little's law finds none missing, but 2 items queued and the interval's p99 was 1397 ms against the fastest
    // request's 501 ms, with no injection for it. Starved: the threads that block hold the server's own work up too.
    [Theory]
    [InlineData(true, 2L, 1397.0, true)]
    // The same interval with no thread sampled blocked (an async or CPU-bound service): the queue is not starvation.
    [InlineData(false, 2L, 1397.0, false)]
    // Nothing queued at the sample: the latency alone says nothing of the pool.
    [InlineData(true, 0L, 1397.0, false)]
    // Work queued but the requests did not wait (p99 under 2 x the fastest): a pool that kept up.
    [InlineData(true, 2L, 896.0, false)]
    public void WorkQueuedWhileThePoolsThreadsBlockAndTheRequestsWaitedIsStarvedWhateverLittlesLawSaid(bool threadsBlock, long queued, double intervalP99Ms, bool starved)
    {
        var sample = new PoolSample(10, 6, queued, 6, [], threadsBlock, IntervalP99Ms: intervalP99Ms, FastestMs: 501);

        Assert.False(sample.ShortOfThreads);
        Assert.Equal(starved, sample.Starved);
    }

    [Fact]
    public void RequestsHoldingEveryPoolThreadInAWaitWithNoOutgoingCallStarveThePoolThoughNoCounterSampleCaughtTheQueue()
    {
        // The sample service's Thread.Sleep climbed to on a fresh process (issue 37 item 6, 2026-11-29): the pool just behind
        // the climb, 5 then 6 threads for 6 users, the queue empty at every counter sample, while the intervals' p99 was
        // 1403-1496 ms against a fastest request of 501 ms; the stack sample found every pool thread asleep inside a request
        // and the step's trace no outgoing HTTP call. It was "the upstream", which nothing was called on.
        var result = Run(users: 6, threads: [5, 5, 6, 6], queued: [0, 0, 0, 0], intervalP99Ms: [1496, 1403, 1450, 1420], fastestMs: 501);
        var sleep = new BlockingCall("Orders.Report", BlockingPrimitive.Sleep, null, "GET /reports/{id:int}", null, null, null);
        var asleep = new BlockingSites(6, 14, [new BlockingSite("Orders.Report -> Thread.Sleep", 6, InUserCode: true, InRequest: true, sleep)]);
        var noCall = new CauseTrace(1, null, []);

        var diagnosis = VariantObserver.Diagnose(result, asleep, [], noCall)!;
        var observation = new VariantObservation("pid 1", 4, 1, [], asleep, null, diagnosis, null) { Causes = noCall };

        // The pool's: a thread per user held in the wait, and the minimum --verify-fix tries is one per user.
        Assert.True(diagnosis.Starved);
        Assert.Equal(6, diagnosis.NeededThreads);
        Assert.Equal(6, FixCheck.MostStarved(new Dictionary<string, VariantObservation> { [result.Key.Label] = observation })?.Diagnosis.NeededThreads);
        var first = CapacityFinding.FindingsAt(result, observation, 501)[0];
        Assert.Equal(("pool starvation", "Orders.Report"), (first.Cause, first.Place));
        Assert.StartsWith("pool starvation (the queue was empty at every counter sample", first.Describe());
        Assert.Contains("Or set the pool's minimum to 6", diagnosis.Describe());

        // An outgoing call seen: what the requests wait on may be the dependency, which the upstream's rule reads.
        var called = new CauseTrace(1, null, [new UpstreamCall("pricing:5001/quotes/{id}", 40, 700, 600, 1400, 0, 0, new Dictionary<int, int> { [200] = 40 })]);
        var upstream = VariantObserver.Diagnose(result, asleep, [], called)!;
        Assert.False(upstream.Starved);
        Assert.Equal("the upstream", CapacityFinding.FindingsAt(result, observation with { Diagnosis = upstream, Causes = called }, 501)[0].Cause);
        // The same threads running, not parked: the cores' (issue 38), never the pool's.
        var running = new BlockingSites(6, 14, [new BlockingSite("Orders.Report", 6, InUserCode: true, InRequest: true) { Busy = true }]);
        var cpu = VariantObserver.Diagnose(result, running, [], noCall)!;
        Assert.False(cpu.Starved);
        Assert.Equal("CPU", CapacityFinding.FindingsAt(result, observation with { Stacks = running, Diagnosis = cpu }, 501)[0].Cause);
        // Half the pool's threads idle, or no trace to say whether a call was made, or requests that did not wait: not this rule's.
        var halfIdle = new BlockingSites(6, 14, [asleep.Sites[0] with { Threads = 3 }, new BlockingSite(BlockingSites.NoUserCode, 3, InUserCode: false)]);
        Assert.False(VariantObserver.Diagnose(result, halfIdle, [], noCall)!.Starved);
        Assert.False(VariantObserver.Diagnose(result, asleep, [], causes: null)!.Starved);
        Assert.False(VariantObserver.Diagnose(result with { Intervals = [.. result.Intervals.Select(i => i with { Stats = TestStats.Uniform(10, 501, p99Ms: 560) })] }, asleep, [], noCall)!.Starved);
    }

    [Fact]
    public void ACooperativeBlockingInjectionWithoutALatencyToCompareIsNotStarvation()
    {
        // An interval that answered none (p99 0), or a run with no answered request (no fastest): nothing says the requests waited.
        Assert.False(new PoolSample(1, 32, 0, 32, [PoolSample.CooperativeBlockingReason], ThreadsBlock: true, IntervalP99Ms: 0, FastestMs: 195).Starved);
        Assert.False(new PoolSample(1, 32, 0, 32, [PoolSample.CooperativeBlockingReason], ThreadsBlock: true, IntervalP99Ms: 507, FastestMs: 0).Starved);
    }

    [Fact]
    public void APoolThatCaughtUpBetweenTwoCounterSamplesStarvedAndItsMinimumIsTheThreadsItGrewToMeanwhile()
    {
        // The sample service's break: 32 threads (2 items queued), then 51, for a need of 32, while the first two seconds'
        // p99 was 512 and 255 ms against a fastest request of 96 ms. Starved for those two seconds; the 51 threads it grew
        // to meanwhile are the minimum to try, not Little's 32 the pool had already passed while the requests waited.
        var broke = RecordedBreak.SampleServiceAt32Users;

        var diagnosis = broke.Diagnose();

        Assert.True(diagnosis.Starved);
        Assert.Equal((0.0, 1.918), (diagnosis.Inputs.Spell.FromSeconds, diagnosis.Inputs.Spell.ToSeconds));
        Assert.Equal("30 thread injections (CooperativeBlocking 28, ClimbingMove 2)", diagnosis.Inputs.Spell.DescribeInjections());
        Assert.Equal(51, diagnosis.NeededThreads);
        Assert.Equal(32, diagnosis.MinimumCapacity, precision: 6);
        Assert.Equal("pool starvation (queue peaked at 2, 30 thread injections (CooperativeBlocking 28, ClimbingMove 2) while starved for 1.9 s, 52 adjustments in all; the pool had 51 threads, the load needed 51)",
            CapacityFinding.CauseOf(broke.Result, broke.Observed(diagnosis), 105.2, null));
        // Without the runtime's injections for the blocked threads the first seconds still starved: 2 items queued while the
        // pool's threads blocked and the requests waited (p99 5 x the fastest). Threads not blocked in user code: latency
        // without a thread blocked is not starvation.
        Assert.True((broke with { Marks = [.. broke.Marks.Where(m => m.Reason != PoolSample.CooperativeBlockingReason)] }).Diagnose().Starved);
        Assert.False((broke with { Sites = new BlockingSites(51, 59, [new BlockingSite(BlockingSites.NoUserCode, 51, InUserCode: false)]) }).Diagnose().Starved);
    }

    [Theory]
    // The queue at one sample only, its requests answered in the next interval: the CI's failure (9dd7a08).
    [InlineData(new long[] { 0, 0, 1, 0, 0 }, true)]
    // The queue at the sample whose own interval was already slow: starved, as before.
    [InlineData(new long[] { 0, 0, 0, 1, 0 }, true)]
    // Nothing queued: threads blocked in requests and latency grown, but no work waited for a thread at any sample.
    [InlineData(new long[] { 0, 0, 0, 0, 0 }, false)]
    public void WorkQueuedWhileThePoolsThreadsBlockIsStarvedWhenTheRequestsInFlightThenWaitedThoughTheyEndedInTheNextInterval(long[] queued, bool starved)
    {
        // /quotes/1?delayMs=500 at 2 users on a fresh pool of 3 threads (a launched find-capacity step, 2026-11-29): each
        // request holds two threads (its own supplier call and the one it queued), so 2 users need 4. The figures of the
        // step (intervals' p99 501, 509, 550, 1,459, 1,476 ms; 2 of 3 threads asleep in Orders.SupplierPrice), without the
        // Starvation injection that run had: in CI's run the pool added none (a work item still started every 500 ms), the
        // one sample with a queue fell in the 550-ms interval, and the break was called the upstream's, to which no call was made.
        var result = Run(users: 2, threads: [3, 3, 3, 3, 3], queued: queued, intervalP99Ms: [501.5, 509.4, 550.4, 1459.2, 1475.6], fastestMs: 501.5);
        var sleep = new BlockingCall("Orders.SupplierPrice", BlockingPrimitive.Sleep, null, "GET /quotes/{id:int}", null, null, null);
        var sites = new BlockingSites(3, 11, [new BlockingSite("Orders.SupplierPrice -> Thread.Sleep", 2, InUserCode: true, InRequest: true, sleep), new BlockingSite(BlockingSites.NoUserCode, 1, InUserCode: false)]);
        AdjustmentMark[] marks = [new(0.1, 2, "Warmup")];

        var diagnosis = VariantObserver.Diagnose(result, sites, marks)!;

        Assert.False(sites.PoolBlocked);
        Assert.Equal(starved, diagnosis.Starved);
    }

    [Fact]
    public void ABlockingServiceWhoseRequestsDidNotWaitIsNotStarvedByTheRuntimesInjectionsForIt()
    {
        // The sample service's held 56-users step (quiet run, 2026-11-27): 85 cooperative-blocking injections in its first
        // second, the pool at 70-74 threads for 56 users, p99 at most 1.2 x the fastest request throughout.
        var result = Run(users: 56, threads: [70, 70, 74], queued: [0, 0, 0], intervalP99Ms: [112, 107, 116], fastestMs: 96.7);
        var onResult = new BlockingCall("Orders.Get", BlockingPrimitive.Result, null, "GET /orders/{id:int}", null, null, null);
        var sites = new BlockingSites(70, 80, [new BlockingSite("Orders.Get -> Task.get_Result", 56, InUserCode: true, InRequest: true, onResult), new BlockingSite(BlockingSites.NoUserCode, 14, InUserCode: false)]);
        var marks = Enumerable.Range(0, 85).Select(i => new AdjustmentMark(0.1 + (i * 0.004), 1 + i, PoolSample.CooperativeBlockingReason)).ToList();

        var diagnosis = VariantObserver.Diagnose(result, sites, marks)!;

        Assert.Equal(85, VariantObserver.PoolSamples(result, marks, 1, sites)[0].Injections);
        Assert.False(diagnosis.Starved);
        Assert.StartsWith("Not starved: ", diagnosis.Describe());
    }

    [Fact]
    public void ARequestWhoseBlockedThreadWaitsForPoolWorkIsDiagnosedStarvedAndSizedFromTheThreadsAndQueueMeasured()
    {
        // 60 users; the pool adds threads from 70 to 77 while 59 items wait and the stacks find 75 of 77 blocked in a synchronous Send.
        var marks = Enumerable.Range(0, 5).Select(i => new AdjustmentMark(i + 0.5, 70 + i, "Starvation")).ToList();
        var result = Run(users: 60, threads: [70, 71, 72, 73, 77], queued: [59, 50, 40, 30, 59]);
        var sites = new BlockingSites(77, 90, [new BlockingSite("CatalogClient.Lookup -> HttpClient.Send", 75, InUserCode: true, InRequest: true, Send), new BlockingSite(BlockingSites.NoUserCode, 2, InUserCode: false)]);

        var diagnosis = VariantObserver.Diagnose(result, sites, marks)!;

        Assert.True(diagnosis.Starved);
        Assert.True(diagnosis.Inputs.Spell.Happened);
        // The pool with which no item would have waited: the 77 threads and 59 queued items of the last sample, for 60 requests.
        Assert.Equal((77 + 59) / 60.0, diagnosis.Inputs.ThreadsPerRequest, precision: 6);
        Assert.Equal(77 + 59, diagnosis.NeededThreads);
        Assert.Equal(60, diagnosis.MinimumCapacity, precision: 6);
        Assert.StartsWith("pool starvation", CapacityFinding.CauseOf(result, new VariantObservation("pid 1", 5, 1, marks, sites, null, diagnosis, null), 300, null));
    }

    [Fact]
    public void AnAsyncServiceWithEnoughThreadsAndAQueueOfShortItemsIsNotStarved()
    {
        // The same series, but the stacks find no pool thread in user code: an async handler leaves its threads free.
        var marks = Enumerable.Range(0, 5).Select(i => new AdjustmentMark(i + 0.5, 70 + i, "ClimbingMove")).ToList();
        var result = Run(users: 60, threads: [70, 71, 72, 73, 77], queued: [59, 50, 40, 30, 59]);
        var sites = new BlockingSites(77, 90, [new BlockingSite(BlockingSites.NoUserCode, 77, InUserCode: false)]);

        var diagnosis = VariantObserver.Diagnose(result, sites, marks)!;

        Assert.False(diagnosis.Starved);
        Assert.True(diagnosis.Inputs.RequestsHoldNoPoolThread);
        Assert.Equal(0, diagnosis.NeededThreads);
        Assert.StartsWith("Not starved: ", diagnosis.Describe());
        Assert.Contains("held no pool thread while it waited", diagnosis.Describe());
    }

    [Fact]
    public void RequestsHandedToADedicatedPoolNeedNoPoolThreadsHoweverFewThePoolHas()
    {
        // fanout's dedicated strategy on a busy machine: 40 users, a pool of 4 threads adding threads by hill climbing
        // while 9 short items wait; the stacks find none of the pool's threads in user code (the calls block on the
        // dedicated pool's own threads). Little's law with a thread per request read "need 40, pool 4": starved.
        var marks = Enumerable.Range(0, 5).Select(i => new AdjustmentMark(i + 0.5, 2 + i, "ClimbingMove")).ToList();
        var result = Run(users: 40, threads: [2, 3, 4, 4, 4], queued: [9, 9, 9, 9, 9]);
        var noUserCode = new BlockingSites(4, 520, [new BlockingSite(BlockingSites.NoUserCode, 4, InUserCode: false)]);

        // Without a stack sample, hill climbing alone is no starvation either (issue 38 item 1): nothing said a thread blocked.
        Assert.False(VariantObserver.Diagnose(result, null, marks)!.Starved);
        Assert.False(VariantObserver.Diagnose(result, noUserCode, marks)!.Starved);
        // A Starvation injection says something held the pool's threads that the sample missed: Little's law again for
        // the paragraph's words, but with no pool thread sampled blocked it makes no starvation (issue 38 item 1).
        AdjustmentMark[] starvation = [.. marks, new(4.9, 7, "Starvation")];
        Assert.False(VariantObserver.Diagnose(result, noUserCode, starvation)!.Inputs.RequestsHoldNoPoolThread);
        Assert.False(VariantObserver.Diagnose(result, noUserCode, starvation)!.Starved);
    }

    [Fact]
    public void KestrelsOwnQueuedItemsDoNotMakeEachRequestHoldAThreadPerWorkItem()
    {
        // The --verify-fix re-run whose need read 443: 60 users, 65 items queued at the peak (more than the requests in
        // flight), 443 work items for 60 requests; the stacks found the request threads blocking, no queued work blocking.
        // Little's law and the blocked threads support 60, as without the queue.
        var result = Run(users: 60, threads: [70, 70, 70, 70, 70], queued: [0, 0, 0, 0, 65], completedItems: 443 - 65, answered: 60);
        var sites = new BlockingSites(70, 80, [new BlockingSite("CatalogClient.Lookup -> HttpClient.Send", 40, InUserCode: true, InRequest: true, Send), new BlockingSite(BlockingSites.NoUserCode, 30, InUserCode: false)]);

        var diagnosis = VariantObserver.Diagnose(result, sites, [])!;

        Assert.Equal(1, diagnosis.Inputs.ThreadsPerRequest);
        Assert.Equal(60, diagnosis.NeededThreads);
        // Without a stack sample the queue still stands for blocking work, as it did: the same figures size 443.
        Assert.Equal(443, VariantObserver.Diagnose(result, null, [])!.NeededThreads);
    }

    [Fact]
    public void TheNeedAtEachSampleIsTheLoadThenTimesTheThreadsEachRequestHolds()
    {
        var result = Run(users: 10, threads: [4, 4], queued: [0, 0]);

        var samples = VariantObserver.PoolSamples(result, [], threadsPerRequest: 3);

        Assert.All(samples, s => Assert.Equal(30, s.NeededThreads));
    }

    [Fact]
    public void StarvedOverTimeIsStarvedEvenWhenThePoolCaughtUpByThePeakAndTheParagraphSaysForHowLongAndWhatItHeldUp()
    {
        var spell = new StarvedSpell(19.2, 0.8, 20, 1532, 125, 0, 12_000);
        var diagnosis = StarvationDiagnosis.From(Inputs with { Spell = spell });

        Assert.True(diagnosis.Starved);
        var text = diagnosis.Describe();
        Assert.StartsWith("Starved for 19.2 s (0.8 s to 20 s of the run", text);
        Assert.Contains("1,532 thread injections meanwhile", text);
        Assert.Contains("125 requests waited behind it (sent during it, or in flight when it began), answered after 12000 ms on average", text);
        // The injections are said once: no starvation count at the peak beside the spell's.
        Assert.DoesNotContain("starvation injections", text);
    }

    [Theory]
    [InlineData(1, 5427, 0)]
    [InlineData(210, 1, 1)]
    [InlineData(1532, 125, 3000)]
    public void TheSpellsCountsAreGroupedWithTheirNounsInTheirNumberAsEveryCountOnAPage(int injections, long heldUp, long timedOut)
    {
        // A run --url report read "5427 requests waited behind it" and a test held "1 thread injections" (issue 39: counts in one format).
        var random = new Random(injections);
        foreach (var (i, h, t) in new[] { (injections, heldUp, timedOut) }.Concat(Enumerable.Range(0, 8).Select(_ => (random.Next(1, 200_000), (long)random.Next(1, 2_000_000), (long)random.Next(0, 3) * random.Next(1, 50_000)))))
        {
            var text = StarvationDiagnosis.From(Inputs with { Spell = new StarvedSpell(19.2, 0.8, 20, i, h, t, 12_000) }).Describe();

            Assert.Contains($"{CountText.Of(i, "thread injection")} meanwhile", text, StringComparison.Ordinal);
            Assert.Contains($"; {CountText.Of(h, "request")} waited behind it (", text, StringComparison.Ordinal);
            Assert.Equal(t > 0, text.Contains($"on average, {CountText.Of(t)} timed out", StringComparison.Ordinal));
        }
    }

    [Fact]
    public void TheFixNamesTheMethodToMakeAsyncAndPredictsTheCapacityOfEachFix()
    {
        // 300 ms held, 2 cores, 1.5 CPU ms a request: async carries 2 x 1000 / 1.5 = 1333 requests/s, 400 users at 300 ms.
        var diagnosis = StarvationDiagnosis.From(Inputs with { Spell = new StarvedSpell(5, 0, 5, 10, 10, 0, 300), ThreadsPerRequest = 2 });

        Assert.Equal(400, diagnosis.AsyncCapacity!.Value, precision: 6);
        Assert.Equal(250 / 2.0, diagnosis.MinimumCapacity, precision: 6);
        var text = diagnosis.Describe();
        Assert.Contains("Fix: make `CatalogClient.LookupSync` async: it holds a pool thread for its whole 300 ms wait", text);
        Assert.Contains("about 400 users", text);
        Assert.Contains("ThreadPool__MinWorkerThreads=250", text);
        Assert.Contains("about 125 users with no wait", text);
        Assert.Contains("one per 500 ms while starved", text);
    }

    [Fact]
    public void AnOpenModelsCapacitiesAreArrivalRates()
    {
        var diagnosis = StarvationDiagnosis.From(Inputs with { LoadUnit = "rate" });

        Assert.Equal(2 * 1000 / 1.5, diagnosis.AsyncCapacity!.Value, precision: 6);
        Assert.Equal(125 / 0.3, diagnosis.MinimumCapacity, precision: 6);
    }

    [Fact]
    public void CpuPerRequestIsReadOverTheLoadsSamplesAndALostSecondLeavesItAndTheAsyncCapacityOut()
    {
        // The observer's rows: a sample half a second into each second, 100 CPU ms more at each, each CPU reading covering
        // its second; 10 requests end in each second's interval.
        var run = Run(users: 10, threads: [4, 4, 4, 4, 4], queued: [0, 0, 0, 0, 0]);
        run = run with { Telemetry = [.. run.Telemetry.Select((t, i) => t with { Snapshot = t.Snapshot with { ProcessorCount = 2, Process = new ProcessTelemetry(100 * i, 0, 0, 0) }, CpuCoveredSeconds = i })] };
        var idleAfter = new TelemetryRow(run.Key, 5.5, run.Telemetry[^1].Snapshot with { Process = new ProcessTelemetry(900, 0, 0, 0) });

        // 0.5 s to 4.5 s: 400 CPU ms over the 40 requests that ended then; the sample past the run's end adds nothing.
        Assert.Equal(10, VariantObserver.Diagnose(run with { Telemetry = [.. run.Telemetry, idleAfter] }, null, [])!.Inputs.CpuMsPerRequest!.Value, precision: 9);
        // The 2.5 s sample lost: its second's reading is in no row after it, so the readings cover 3 of the 4 s.
        var lost = VariantObserver.Diagnose(run with { Telemetry = [.. run.Telemetry.Where(t => t.ElapsedSeconds != 2.5).Select(t => t.ElapsedSeconds > 2.5 ? t with { CpuCoveredSeconds = t.CpuCoveredSeconds - 1 } : t)] }, null, [])!;
        Assert.Null(lost.Inputs.CpuMsPerRequest);
        Assert.Null(lost.AsyncCapacity);
    }

    private static readonly DiagnosisInputs Inputs = new(
        RequestsInFlight: 125, InFlightBasis: "the peak's users", ThreadsPerRequest: 1, PoolThreadsAtPeak: 126,
        GrowthPerSecond: 4, PeakQueueLength: 115, StarvationAdjustments: 0, CallSite: "43 of 43 pool threads wait in CatalogClient.LookupSync -> Task.get_Result")
    {
        BlockingMethod = "CatalogClient.LookupSync",
        HoldMs = 300,
        CpuMsPerRequest = 1.5,
        ProcessorCount = 2,
    };

    private static readonly BlockingCall Send = new("CatalogClient.Lookup", BlockingPrimitive.HttpSend, null, "GET /orders/{id:int}", null, null, null);

    /// <summary>
    /// A closed run of <paramref name="users"/> with one telemetry sample a second (the pool's threads and queue, and by the
    /// last one <paramref name="completedItems"/> work items done) and one interval a second (each with its p99 from
    /// <paramref name="intervalP99Ms"/>, else the fastest), <paramref name="answered"/> requests answered in all, the fastest in <paramref name="fastestMs"/>.
    /// </summary>
    private static VariantResult Run(int users, IReadOnlyList<int> threads, IReadOnlyList<long> queued, long completedItems = 0, long? answered = null, IReadOnlyList<double>? intervalP99Ms = null, double fastestMs = 300)
    {
        var key = new VariantKey("target");
        var telemetry = threads.Select((t, i) => new TelemetryRow(key, i + 0.5, default(RuntimeSnapshot) with { ThreadPool = new ThreadPoolTelemetry(t, queued[i], completedItems, 0, 0) })).ToList();
        var intervals = threads.Select((_, i) => new IntervalRow(key, i + 1, "users", users, 10, TestStats.Uniform(10, fastestMs, p99Ms: intervalP99Ms?[i]))).ToList();
        return new VariantResult(key, "/x", "users", threads.Count, intervals, telemetry, TestStats.Uniform(answered ?? 10 * threads.Count, fastestMs)) { Sent = [new SentSlice(0, 40, 40 * 300, 0, 0, 0)] };
    }

    private static IReadOnlyList<string> Injected(string reason, int count) => [.. Enumerable.Repeat(reason, count)];
}
