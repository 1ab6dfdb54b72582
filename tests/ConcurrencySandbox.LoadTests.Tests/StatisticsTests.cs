using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class StatisticsTests
{
    private static readonly double[] OneToHundred = [.. Enumerable.Range(1, 100).Select(i => (double)i)];

    [Theory]
    [InlineData(50, 50)]
    [InlineData(75, 75)]
    [InlineData(95, 95)]
    [InlineData(99, 99)]
    [InlineData(100, 100)]
    [InlineData(0, 1)]
    [InlineData(99.5, 100)]
    public void PercentileIsTheNearestRank(double percent, double expected)
    {
        Assert.Equal(expected, LatencyStats.Percentile(OneToHundred, percent));
    }

    [Fact]
    public void PercentileOfFewSamplesRoundsTheRankUp()
    {
        Assert.Equal(10, LatencyStats.Percentile([10, 20, 30], 33));
        Assert.Equal(20, LatencyStats.Percentile([10, 20, 30], 34));
        Assert.Equal(30, LatencyStats.Percentile([10, 20, 30], 67));
    }

    [Fact]
    public void StatsSortTheirInputAndCountFailures()
    {
        var stats = LatencyStats.From([30, 10, 20, 40], failed: 1);

        Assert.Equal(3, stats.Ok);
        Assert.Equal(1, stats.Failed);
        Assert.Equal(25, stats.MeanMs);
        Assert.Equal(10, stats.MinMs);
        Assert.Equal(20, stats.P50Ms);
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
