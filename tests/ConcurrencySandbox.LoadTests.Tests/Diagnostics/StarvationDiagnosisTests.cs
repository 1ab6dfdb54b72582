using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

public sealed class StarvationDiagnosisTests
{
    private static readonly DiagnosisInputs Starving = new(
        RequestsInFlight: 125, InFlightBasis: "the peak's users", ThreadsPerRequest: 1, PoolThreadsAtPeak: 40,
        GrowthPerSecond: 2, PeakQueueLength: 300, StarvationAdjustments: 12, CallSite: "37 of 40 pool threads wait in FanOutStrategies.SyncOverAsync -> Task.Wait");

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

    [Fact]
    public void TheParagraphNamesTheNeedThePoolTheGrowthTheCallSiteAndTheMinimumToSet()
    {
        var text = StarvationDiagnosis.From(Starving).Describe();

        Assert.StartsWith("Starved: at the peak the load needed about 125 threads (125 requests in flight (the peak's users) x 1 pool threads each, Little's law)", text);
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
