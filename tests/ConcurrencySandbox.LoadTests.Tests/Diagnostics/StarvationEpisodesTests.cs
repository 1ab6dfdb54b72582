using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>watch's episodes from synthetic counter readings and adjustments: what starts one, what ends it, what it counts.</summary>
public sealed class StarvationEpisodesTests
{
    private const string Starvation = PoolSample.StarvationReason;
    private const string Blocking = PoolSample.CooperativeBlockingReason;

    [Fact]
    public void ABurstIsOneEpisodeFromTheQueueBuildingUpToItsFirstEmptyReading()
    {
        // Queue builds at 5 s, the runtime injects at 6.2, 7.1 and 8.3 s, the queue is empty again at 13 s.
        var readings = Readings(20, s => s is >= 5 and < 13 ? (4 + s, 10 * (s - 4)) : (4, 0));
        AdjustmentMark[] marks = [new(6.2, 10, Starvation), new(7.1, 11, Starvation), new(8.3, 19, Starvation)];

        var episode = Assert.Single(StarvationEpisodes.Find(readings, marks, 20));

        Assert.Equal(5, episode.StartSeconds);
        Assert.Equal(13, episode.EndSeconds);
        Assert.True(episode.Drained);
        Assert.Equal((9, 10L), (episode.ThreadsAtStart, episode.QueuedAtStart));
        Assert.Equal((19, 80L), (episode.PeakThreads, episode.PeakQueued));
        Assert.Equal(3, episode.StarvationInjections);
        Assert.Equal(0, episode.BlockingInjections);
    }

    [Fact]
    public void HillClimbingAloneIsNoEpisodeEvenWithALongQueue()
    {
        var readings = Readings(30, s => (8 + (s / 5), 200));
        var marks = Enumerable.Range(0, 30).Select(s => new AdjustmentMark(s + 0.5, 8 + (s / 5), s % 3 == 0 ? "ClimbingMove" : s % 3 == 1 ? "Stabilizing" : "Warmup")).ToList();

        Assert.Empty(StarvationEpisodes.Find(readings, marks, 30));
    }

    [Fact]
    public void CooperativeBlockingStarvesOnlyWhileWorkIsQueued()
    {
        // A thread blocks in a Task wait at 3.5 s with nothing queued (no episode); more block from 10.2 s with the queue at 40.
        var readings = Readings(20, s => s is >= 10 and < 14 ? (30, 40) : (4, 0));
        AdjustmentMark[] marks = [new(3.5, 5, Blocking), new(10.2, 20, Blocking), new(10.3, 21, Blocking), new(11.7, 30, Blocking), new(12.0, 31, "ClimbingMove")];

        var episode = Assert.Single(StarvationEpisodes.Find(readings, marks, 20));

        Assert.Equal(10, episode.StartSeconds);
        Assert.Equal(14, episode.EndSeconds);
        Assert.Equal(0, episode.StarvationInjections);
        Assert.Equal(3, episode.BlockingInjections);
        Assert.Equal(new[] { ("ClimbingMove", 1) }, episode.OtherInjections);
    }

    [Fact]
    public void InjectionsWithAnEmptyQueueReadBetweenThemAreTwoEpisodesAndOverlappingOnesAreOne()
    {
        // Two bursts; in each, injections of both reasons arrive in the same second.
        var readings = Readings(30, s => s is >= 4 and < 8 or >= 20 and < 25 ? (20, 50) : (4, 0));
        AdjustmentMark[] marks =
        [
            new(4.1, 12, Blocking), new(4.1, 13, Starvation), new(4.15, 14, Blocking), new(6.9, 20, Starvation),
            new(20.5, 15, Starvation), new(20.5, 16, Starvation), new(20.6, 17, Blocking),
        ];

        var episodes = StarvationEpisodes.Find(readings, marks, 30);

        Assert.Equal(new[] { (4.0, 8.0), (20.0, 25.0) }, episodes.Select(e => (e.StartSeconds, e.EndSeconds)));
        Assert.Equal(new[] { (2, 2), (2, 1) }, episodes.Select(e => (e.StarvationInjections, e.BlockingInjections)));
    }

    [Fact]
    public void AQueueThatNeverDrainsIsOneEpisodeStillStarvingWhenTheWatchEnds()
    {
        var readings = Readings(15, s => s >= 3 ? (4 + s, 100 + s) : (4, 0));
        var marks = Enumerable.Range(4, 11).Select(s => new AdjustmentMark(s + 0.5, 5 + s, Starvation)).ToList();

        var episode = Assert.Single(StarvationEpisodes.Find(readings, marks, 15.4));

        Assert.False(episode.Drained);
        Assert.Equal(3, episode.StartSeconds);
        Assert.Equal(15.4, episode.EndSeconds);
        Assert.Equal(11, episode.StarvationInjections);
        Assert.Equal(19, episode.PeakThreads);
    }

    [Fact]
    public void AnInjectionBeforeTheFirstReadingTakesThePoolAsFirstRead()
    {
        var readings = Readings(5, s => s < 2 ? (6, 30) : (6, 0)).Select(r => r with { ElapsedSeconds = r.ElapsedSeconds + 0.8 }).ToList();

        var episode = Assert.Single(StarvationEpisodes.Find(readings, [new AdjustmentMark(0.3, 6, Starvation)], 5));

        Assert.Equal(0.3, episode.StartSeconds);
        Assert.Equal((6, 30L), (episode.ThreadsAtStart, episode.QueuedAtStart));
        Assert.Equal(2.8, episode.EndSeconds, precision: 9);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(42)]
    [InlineData(2026)]
    [InlineData(31337)]
    public void SeededBurstsAreFoundOneEpisodeEachWithTheirOwnInjections(int seed)
    {
        // Bursts of random length and gap, each with random injections of both reasons (several in one second at times),
        // hill climbing throughout, the queue empty between bursts; the last burst may run past the watch's end.
        var random = new Random(seed);
        var bursts = new List<(int From, int To, int Starvation, int Blocking)>();
        for (var second = random.Next(1, 5); second < 200;)
        {
            var length = random.Next(1, 12);
            bursts.Add((second, second + length, random.Next(0, 6), random.Next(0, 6)));
            if (bursts[^1] is { Starvation: 0, Blocking: 0 })
            {
                bursts[^1] = bursts[^1] with { Starvation = 1 };
            }
            second += length + random.Next(1, 10);
        }
        var watched = random.Next(0, 2) == 0 ? 200 : bursts[^1].From + 1;
        var readings = Readings(watched, s => bursts.Any(b => s >= b.From && s < b.To) ? (4 + random.Next(0, 60), random.Next(1, 500)) : (4, 0));
        var marks = new List<AdjustmentMark>();
        foreach (var (from, to, starvation, blocking) in bursts)
        {
            var span = to - from - 0.05;
            marks.AddRange(Enumerable.Range(0, starvation).Select(_ => new AdjustmentMark(from + (random.NextDouble() * span), 50, Starvation)));
            marks.AddRange(Enumerable.Range(0, blocking).Select(_ => new AdjustmentMark(from + (random.NextDouble() * span), 50, Blocking)));
        }
        marks.AddRange(Enumerable.Range(0, watched).Select(s => new AdjustmentMark(s + 0.9, 4, "ClimbingMove")));
        var seen = bursts.Where(b => b.From < watched && marks.Any(m => m.Reason != "ClimbingMove" && m.ElapsedSeconds >= b.From && m.ElapsedSeconds < Math.Min(b.To, watched))).ToList();

        var episodes = StarvationEpisodes.Find(readings, marks.Where(m => m.ElapsedSeconds <= watched).ToList(), watched);

        Assert.Equal(seen.Select(b => (double)b.From), episodes.Select(e => e.StartSeconds));
        Assert.Equal(seen.Select(b => b.To <= watched - 1 ? b.To : (double)watched), episodes.Select(e => e.EndSeconds));
        Assert.Equal(seen.Select(b => b.To <= watched - 1), episodes.Select(e => e.Drained));
        Assert.Equal(
            seen.Select(b => marks.Count(m => m.Reason != "ClimbingMove" && m.ElapsedSeconds >= b.From && m.ElapsedSeconds < b.To && m.ElapsedSeconds <= watched)),
            episodes.Select(e => e.StarvationInjections + e.BlockingInjections));
        Assert.All(episodes, e => Assert.Equal(e.EndSeconds - e.StartSeconds, e.OtherInjections.Sum(o => o.Count)));
    }

    [Fact]
    public void AThreadParkedInAKnownBlockingCallIsToBeMadeAsyncWithThePeakAsTheStopgapMinimum()
    {
        var call = new BlockingCall("Orders.Get", BlockingPrimitive.Result, new SourceLine("/src/Orders.cs", 22), "GET /orders/{id:int}", null, null, null);
        var sites = new BlockingSites(24, 30, [new BlockingSite("Orders.Get -> Task.get_Result", 22, InUserCode: true, InRequest: true, call)]);

        var diagnosis = EpisodeDiagnosis.Of(Episode(peakThreads: 67), sites);

        Assert.False(diagnosis.CpuBound);
        Assert.Equal("22 of 24 pool threads wait in Orders.Get (Orders.cs:22) blocks on .Result (a blocking wait on a Task), serving GET /orders/{id:int}", diagnosis.WhatWaited);
        Assert.StartsWith("make Orders.Get asynchronous", diagnosis.Fix);
        Assert.Contains($"{FixCheck.RuntimeMinimumSetting}=0x43", diagnosis.Fix);
        Assert.Contains($"{FixCheck.MinimumSetting}=67", diagnosis.Fix);
    }

    [Fact]
    public void ThreadsRunningOnACoreAreCpuBoundWithNoAsyncOrPoolMinimumAdvice()
    {
        // Seven threads running the user's method on a core, one parked in a .Result.
        var parked = new BlockingCall("Orders.Get", BlockingPrimitive.Result, null, null, null, null, null);
        var sites = new BlockingSites(8, 12, [
            new BlockingSite("Hashing.Compute", 7, InUserCode: true, InRequest: true) { Busy = true },
            new BlockingSite("Orders.Get -> Task.get_Result", 1, InUserCode: true, InRequest: true, parked)]);

        var diagnosis = EpisodeDiagnosis.Of(Episode(peakThreads: 8), sites);

        Assert.True(diagnosis.CpuBound);
        Assert.StartsWith("7 of 8 pool threads run (busy on a core, not blocked) Hashing.Compute", diagnosis.WhatWaited);
        Assert.StartsWith("CPU-bound", diagnosis.Fix);
        Assert.DoesNotContain("make Hashing.Compute asynchronous", diagnosis.Fix);
        Assert.DoesNotContain("make Orders.Get asynchronous", diagnosis.Fix);
        Assert.DoesNotContain(FixCheck.RuntimeMinimumSetting, diagnosis.Fix);
        Assert.DoesNotContain(FixCheck.MinimumSetting, diagnosis.Fix);
    }

    [Fact]
    public void AWaitThatIsNoKnownBlockingCallOrNoSampleNamesNoFix()
    {
        var native = new BlockingCall("Legacy.Read", BlockingSites.NativeCode, null, null, null, null, null);
        var inNative = new BlockingSites(5, 9, [new BlockingSite("Legacy.Read -> native code", 5, InUserCode: true, Source: native)]);
        var idle = new BlockingSites(5, 9, [new BlockingSite(BlockingSites.NoUserCode, 5, InUserCode: false)]);

        Assert.Null(EpisodeDiagnosis.Of(Episode(peakThreads: 5), inNative).Fix);
        Assert.Null(EpisodeDiagnosis.Of(Episode(peakThreads: 5), idle).Fix);
        var unsampled = EpisodeDiagnosis.Of(Episode(peakThreads: 5), null, "the episode was over before a stack sample could be taken");
        Assert.Null(unsampled.Fix);
        Assert.Contains("not sampled (the episode was over", unsampled.WhatWaited);
    }

    /// <summary>Readings at 0, 1, ... <paramref name="seconds"/> - 1 s, each second's (threads, queued) from <paramref name="pool"/>.</summary>
    private static List<PoolReading> Readings(int seconds, Func<int, (int Threads, long Queued)> pool) =>
        [.. Enumerable.Range(0, seconds).Select(s =>
        {
            var (threads, queued) = pool(s);
            return new PoolReading(s, threads, queued);
        })];

    private static StarvationEpisode Episode(int peakThreads) => new(2, 9, true, 4, 10, peakThreads, 60, 3, 5, []);
}
