using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

public sealed class StarvationDiagnosisTests
{
    private static readonly DiagnosisInputs Starving = new(
        RequestsInFlight: 125, InFlightBasis: "the peak's users", ThreadsPerRequest: 1, PoolThreadsAtPeak: 40,
        GrowthPerSecond: 2, PeakQueueLength: 300, StarvationAdjustments: 12, CallSite: "37 of 40 pool threads wait in FanOutStrategies.SyncOverAsync -> Task.Wait");

    /// <summary>
    /// The cold service Reports (2026-11-29): a BackgroundService renders each queued report on a pool thread, blocking on
    /// .Result for 150 ms, while the requests (an awaited 20 ms save and an enqueue) hold no thread; the diagnosis said
    /// "it holds a pool thread for its whole 17 ms wait", the fastest request's latency, which is no wait of that call.
    /// </summary>
    [Fact]
    public void ABackgroundServicesBlockingCallIsNotGivenTheRequestsLatencyAsItsWait()
    {
        var render = new BlockingCall("ReportRenderer.Render", BlockingPrimitive.Result, new SourceLine("/src/Reports/RenderWorker.cs", 19), null, null, "Task.InnerInvoke", null) { Background = "RenderWorker" };
        var sites = new BlockingSites(51, 59,
        [
            new BlockingSite("ReportRenderer.Render -> Task.InternalWait", 34, InUserCode: true, InRequest: false, render),
            new BlockingSite(BlockingSites.NoUserCode, 17, InUserCode: false),
        ]);

        var diagnosis = (RecordedBreak.SampleServiceAt32Users with { Sites = sites }).Diagnose();

        Assert.True(diagnosis.Starved);
        var described = diagnosis.Describe();
        Assert.Contains("Fix: make `ReportRenderer.Render` async: it runs in the background service RenderWorker, outside any request", described);
        Assert.DoesNotContain("its whole", described);
    }

    [Fact]
    public void RequestsThatHoldNoPoolThreadNeedNoneAndAreNotStarvedByLittlesLaw()
    {
        var diagnosis = StarvationDiagnosis.From(Starving with { RequestsHoldNoPoolThread = true });

        Assert.Equal(0, diagnosis.NeededThreads);
        Assert.False(diagnosis.Starved);
        Assert.Contains("12 starvation injections", diagnosis.Describe());
    }

    [Fact]
    public void NeededThreadsAreRequestsInFlightTimesThreadsPerRequest()
    {
        var diagnosis = StarvationDiagnosis.From(Starving with { RequestsInFlight = 10, ThreadsPerRequest = 11 });

        Assert.Equal(110, diagnosis.NeededThreads);
    }

    [Fact]
    public void FractionalNeedRoundsUpAndFewerThanOneThreadPerRequestCountsAsOne()
    {
        Assert.Equal(13, StarvationDiagnosis.From(Starving with { RequestsInFlight = 12.1, ThreadsPerRequest = 0.4 }).NeededThreads);
    }

    [Fact]
    public void ShortOfThreadsWithQueuedWorkIsStarvedAndTheTimeToGrowIsTheShortfallOverTheGrowth()
    {
        var diagnosis = StarvationDiagnosis.From(Starving);

        Assert.True(diagnosis.Starved);
        Assert.Equal(125, diagnosis.NeededThreads);
        Assert.Equal((125 - 40) / 2.0, diagnosis.SecondsToGrow);
    }

    [Fact]
    public void EnoughThreadsIsNotStarvedWhateverTheQueue()
    {
        var diagnosis = StarvationDiagnosis.From(Starving with { PoolThreadsAtPeak = 130 });

        Assert.False(diagnosis.Starved);
        Assert.Null(diagnosis.SecondsToGrow);
        Assert.StartsWith("Not starved", diagnosis.Describe());
    }

    [Theory]
    [InlineData(0, 0, false)]
    [InlineData(84, 0, false)]
    [InlineData(85, 0, true)]
    [InlineData(0, 1, true)]
    public void ShortOfThreadsIsStarvedOnlyWithAStarvationInjectionOrAsManyItemsQueuedAsThreadsMissing(long peakQueue, int starvationAdjustments, bool starved)
    {
        // 125 needed, 40 had: 85 missing.
        Assert.Equal(starved, StarvationDiagnosis.From(Starving with { PeakQueueLength = peakQueue, StarvationAdjustments = starvationAdjustments }).Starved);
    }

    [Fact]
    public void APoolThatDidNotGrowHasNoTimeToGrowAndTheParagraphSaysSo()
    {
        var diagnosis = StarvationDiagnosis.From(Starving with { GrowthPerSecond = 0 });

        Assert.True(diagnosis.Starved);
        Assert.Null(diagnosis.SecondsToGrow);
        Assert.Contains("did not grow", diagnosis.Describe());
    }

    /// <summary>
    /// Each noun of the sizing takes its number (issue 37's walk read "needed about 1 threads (1 requests in flight ...) x
    /// 1 pool threads each" at one user), over seeded loads and holds, fractional ones included.
    /// </summary>
    [Fact]
    public void TheSizingsNounsTakeTheirNumbers()
    {
        var random = new Random(3701);
        for (var i = 0; i < 200; i++)
        {
            var inFlight = random.Next(3) == 0 ? 1 : Math.Round(random.NextDouble() * 40, 1);
            var each = random.Next(3) == 0 ? 1 : Math.Round(1 + random.NextDouble() * 4, 1);
            var text = StarvationDiagnosis.From(Starving with { RequestsInFlight = inFlight, ThreadsPerRequest = each, PoolThreadsAtPeak = 1 }).Describe();

            Assert.DoesNotMatch(@"(?<![\d.,])1 (threads|requests|pool threads)\b", text);
            Assert.Contains(inFlight == 1 ? "(1 request in flight (" : " requests in flight (", text);
            Assert.Contains(each == 1 ? " x 1 pool thread each" : " pool threads each", text);
        }
    }

    [Fact]
    public void TheParagraphNamesTheNeedThePoolTheGrowthTheCallSiteAndTheMinimumToSet()
    {
        var text = StarvationDiagnosis.From(Starving).Describe();

        Assert.StartsWith("Starved: at the peak the load needed about 125 threads (125 requests in flight (the peak's users) x 1 pool thread each, Little's law)", text);
        Assert.Contains("the pool had 40, growing 2/s, it would take about 43 s", text);
        Assert.Contains("FanOutStrategies.SyncOverAsync -> Task.Wait", text);
        Assert.Contains("ThreadPool__MinWorkerThreads=125", text);
    }

    [Fact]
    public void ARequestThatQueuesBlockingWorkHoldsAThreadPerWorkItemOtherwiseOne()
    {
        Assert.Equal(12.5, StarvationDiagnosis.ThreadsPerRequest(blocksQueuedWork: true, workItemsPerRequest: 12.5));
        Assert.Equal(1, StarvationDiagnosis.ThreadsPerRequest(blocksQueuedWork: true, workItemsPerRequest: 0.3));
        Assert.Equal(1, StarvationDiagnosis.ThreadsPerRequest(blocksQueuedWork: false, workItemsPerRequest: 3));
    }

    [Fact]
    public void ThreadsPerRequestAreMeasuredOnlyWhereThePoolStarvedBlockedWithTheThreadsLittlesLawAskedFor()
    {
        // 60 users at 1 thread each. Starved blocked with 77 threads and 59 queued: 136 threads would have left nothing waiting.
        PoolSample Sample(int threads, long queued, bool poolBlocked) => new(1, threads, queued, 60, ["CooperativeBlocking"], PoolBlocked: poolBlocked);

        Assert.Equal((77 + 59) / 60.0, StarvationDiagnosis.MeasuredThreadsPerRequest([Sample(77, 59, true), Sample(77, 0, true)], 1), precision: 6);
        // Short of Little's need (40 < 60): Little's law already explains it, the estimate stays.
        Assert.Equal(1, StarvationDiagnosis.MeasuredThreadsPerRequest([Sample(40, 59, true)], 1));
        // Not blocked, or nothing queued: nothing measured.
        Assert.Equal(1, StarvationDiagnosis.MeasuredThreadsPerRequest([Sample(77, 59, false), Sample(77, 0, true)], 1));
        // Sized against the estimate the samples were sized with: a fan-out's 3 threads per request, 180 for 60 requests.
        Assert.Equal((181 + 10) / 60.0, StarvationDiagnosis.MeasuredThreadsPerRequest([new PoolSample(1, 181, 10, 180, ["CooperativeBlocking"], PoolBlocked: true)], 3), precision: 6);
    }

    [Fact]
    public void GrowthIsThreadsAddedFromTheFirstSampleToThePeakPerSecond()
    {
        IReadOnlyList<(double, int)> series = [(0, 4), (1, 5), (2, 8), (5, 16), (6, 12)];

        Assert.Equal((16 - 4) / 5.0, StarvationDiagnosis.Growth(series));
        Assert.Equal(0, StarvationDiagnosis.Growth([(0, 4)]));
    }

    [Fact]
    public void MostStarvedPicksTheStarvedVariantShortOfTheMostThreads()
    {
        VariantObservation Observed(DiagnosisInputs inputs) => new("pid 1", 10, 1, [], null, null, StarvationDiagnosis.From(inputs), null);
        var observations = new Dictionary<string, VariantObservation>
        {
            ["async"] = Observed(Starving with { PoolThreadsAtPeak = 200 }),
            ["threadpool"] = Observed(Starving with { RequestsInFlight = 400 }),
            ["sync-over-async"] = Observed(Starving),
        };

        var picked = FixCheck.MostStarved(observations);

        Assert.Equal("threadpool", picked?.Label);
        Assert.Null(FixCheck.MostStarved(new Dictionary<string, VariantObservation> { ["async"] = observations["async"] }));
    }
}
