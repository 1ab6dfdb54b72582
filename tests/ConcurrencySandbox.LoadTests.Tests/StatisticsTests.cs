using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class StatisticsTests
{
    private static readonly double[] OneToHundred = [.. Enumerable.Range(1, 100).Select(i => (double)i)];

    [Fact]
    public void LatencyPercentilesInterpolateBetweenClosestRanksLikeTheApisMedians()
    {
        var stats = LatencyStats.From(OneToHundred, failed: 0);

        Assert.Equal(Percentile.OfSorted(OneToHundred, 50), stats.P50Ms);
        Assert.Equal(50.5, stats.P50Ms, 9);
        Assert.Equal(99.01, stats.P99Ms, 9);
    }

    [Fact]
    public void StatsSortTheirInputAndCountFailures()
    {
        var stats = LatencyStats.From([30, 10, 20, 40], failed: 1);

        Assert.Equal(3, stats.Ok);
        Assert.Equal(1, stats.Failed);
        Assert.Equal(25, stats.MeanMs);
        Assert.Equal(10, stats.MinMs);
        Assert.Equal(25, stats.P50Ms);
        Assert.Equal(40, stats.MaxMs);
    }

    [Fact]
    public void RecorderCutsIntervalsAndKeepsTheTotal()
    {
        var recorder = new LatencyRecorder();
        recorder.Record(10, ok: true);
        recorder.Record(20, ok: false);
        var first = recorder.TakeInterval();
        recorder.Record(30, ok: true);
        var second = recorder.TakeInterval();
        var empty = recorder.TakeInterval();

        Assert.Equal((1, 1), (first.Ok, first.Failed));
        Assert.Equal((1, 0), (second.Ok, second.Failed));
        Assert.Equal(0, empty.Requests);
        var total = recorder.Total();
        Assert.Equal(3, total.Requests);
        Assert.Equal(20, total.MeanMs);
    }

    [Fact]
    public void ExtendingThePreviousIntervalCoversBothWithoutCountingTwice()
    {
        var recorder = new LatencyRecorder();
        recorder.Record(10, ok: true);
        recorder.TakeInterval();
        recorder.Record(30, ok: false);

        var extended = recorder.TakeInterval(extendPrevious: true);

        Assert.Equal((1, 1), (extended.Ok, extended.Failed));
        Assert.Equal(20, extended.MeanMs);
        Assert.Equal(2, recorder.Total().Requests);
    }
}
