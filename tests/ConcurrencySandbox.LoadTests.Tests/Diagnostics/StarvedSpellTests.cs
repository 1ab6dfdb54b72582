using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

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
        Assert.Contains("1532 thread injections meanwhile", text);
        Assert.Contains("125 requests waited behind it (sent during it, or in flight when it began), answered after 12000 ms on average", text);
        // The injections are said once: no starvation count at the peak beside the spell's.
        Assert.DoesNotContain("starvation injections", text);
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

    private static readonly DiagnosisInputs Inputs = new(
        RequestsInFlight: 125, InFlightBasis: "the peak's users", ThreadsPerRequest: 1, PoolThreadsAtPeak: 126,
        GrowthPerSecond: 4, PeakQueueLength: 115, StarvationAdjustments: 0, CallSite: "43 of 43 pool threads wait in CatalogClient.LookupSync -> Task.get_Result")
    {
        BlockingMethod = "CatalogClient.LookupSync",
        HoldMs = 300,
        CpuMsPerRequest = 1.5,
        ProcessorCount = 2,
    };

    /// <summary>A closed run of <paramref name="users"/> with one telemetry sample a second (the pool's threads and queue) and one interval a second.</summary>
    private static VariantResult Run(int users, IReadOnlyList<int> threads, IReadOnlyList<long> queued)
    {
        var key = new VariantKey("target");
        var telemetry = threads.Select((t, i) => new TelemetryRow(key, i + 0.5, default(RuntimeSnapshot) with { ThreadPool = new ThreadPoolTelemetry(t, queued[i], 0, 0, 0) })).ToList();
        var intervals = threads.Select((_, i) => new IntervalRow(key, i + 1, "users", users, 10, TestStats.Uniform(10, 300))).ToList();
        return new VariantResult(key, "/x", "users", threads.Count, intervals, telemetry, TestStats.Uniform(10 * threads.Count, 300)) { Sent = [new SentSlice(0, 40, 40 * 300, 0, 0, 0)] };
    }

    private static IReadOnlyList<string> Injected(string reason, int count) => [.. Enumerable.Repeat(reason, count)];
}
