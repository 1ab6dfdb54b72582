using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class StatisticsTests
{
    private static readonly double[] OneToHundred = [.. Enumerable.Range(1, 100).Select(i => (double)i)];

    [Fact]
    public void LatencyPercentilesComeFromTheHistogramWithinItsThreeDigitPrecision()
    {
        var stats = TestStats.Of(OneToHundred);

        Assert.Equal(50, stats.P50Ms, 50 * 0.001);
        Assert.Equal(95, stats.P95Ms, 95 * 0.001);
        Assert.Equal(99, stats.P99Ms, 99 * 0.001);
        Assert.Equal(100, stats.P999Ms, 100 * 0.001);
        Assert.Equal(1, stats.MinMs, 0.001);
        Assert.Equal(100, stats.MaxMs, 100 * 0.001);
        Assert.Equal(50.5, stats.MeanMs, 50.5 * 0.001);
    }

    [Fact]
    public void RecorderCutsIntervalsAndKeepsTheTotalWithHttpErrorsAsCompletedFailures()
    {
        var recorder = new LatencyRecorder();
        recorder.Record(10, RequestOutcome.Success);
        recorder.Record(20, RequestOutcome.Answered(503));
        var first = recorder.TakeInterval();
        recorder.Record(30, RequestOutcome.Success);
        var second = recorder.TakeInterval();
        var empty = recorder.TakeInterval();

        Assert.Equal((1, 1, 2), (first.Ok, first.Failed, first.Completed));
        Assert.Equal((1, 0), (second.Ok, second.Failed));
        Assert.Equal(0, empty.Requests);
        var total = recorder.Total();
        Assert.Equal(3, total.Requests);
        Assert.Equal(20, total.MeanMs, 0.1);
        Assert.Equal([new OutcomeCount("HTTP 503", 1)], recorder.Failures());
    }

    [Fact]
    public void TimeoutsCountAtTheirTimeoutAsLowerBoundsAndConnectionErrorsAreNeverRanked()
    {
        var recorder = new LatencyRecorder();
        recorder.Record(5, RequestOutcome.Success);
        recorder.Record(60_000, RequestOutcome.TimedOut);
        recorder.Record(1, RequestOutcome.Failed("Connection refused"));
        recorder.Record(2, RequestOutcome.Failed("Connection refused"));
        recorder.TakeInterval();

        var total = recorder.Total();

        Assert.Equal(new OutcomeCounts(1, 0, 1, 2), total.Outcomes);
        Assert.Equal(1, total.Completed);
        // Ranked: the answer (5 ms) and the timeout at 60 s; the connection errors have no latency and no bound.
        Assert.Equal(new LatencyFigure(5, false), Rounded(total.P50));
        Assert.Equal(new LatencyFigure(60_000, true), Rounded(total.P99));
        Assert.Equal(new LatencyFigure(60_000, true), Rounded(total.Max));
        Assert.Equal(new LatencyFigure(30_002.5, true), Rounded(total.Mean));
        Assert.Equal([new OutcomeCount("Connection refused", 2), new OutcomeCount("timed out (the client's timeout)", 1)], recorder.Failures());
    }

    [Fact]
    public void IntervalsMergeExactlyIntoTheRunTotals()
    {
        var recorder = new LatencyRecorder();
        double[] first = [3, 7, 120, 4_000];
        double[] second = [1, 2, 50_000];
        foreach (var ms in first)
        {
            recorder.Record(ms, RequestOutcome.Success);
        }
        var firstInterval = recorder.TakeInterval();
        foreach (var ms in second)
        {
            recorder.Record(ms, RequestOutcome.Success);
        }
        recorder.Record(60_000, RequestOutcome.TimedOut);
        var secondInterval = recorder.TakeInterval();

        Assert.Equal(TestStats.Of(first), firstInterval);
        Assert.Equal(TestStats.Of(second, failed: 1, timedOutAtMs: 60_000), secondInterval);
        Assert.Equal(TestStats.Of([.. first, .. second], failed: 1, timedOutAtMs: 60_000), recorder.Total());
    }

    private static LatencyFigure Rounded(LatencyFigure figure) => figure with { Ms = Math.Round(figure.Ms, 1) };

    [Fact]
    public void RecorderKeepsNoPerRequestDataUnlessMadeToKeepEveryRequest()
    {
        var summarising = new LatencyRecorder();
        var keeping = new LatencyRecorder(Stopwatch.GetTimestamp(), keepEveryRequest: true);
        for (var i = 1; i <= 1_000; i++)
        {
            summarising.Record(i, RequestOutcome.Success);
            keeping.Record(i, i % 100 == 0 ? RequestOutcome.TimedOut : RequestOutcome.Success);
        }

        Assert.Empty(summarising.Requests());
        Assert.Equal(1_000, keeping.Requests().Length);
        Assert.Equal(10, keeping.Requests().Count(r => r.End == RequestEnd.Timeout));
    }

    [Fact]
    public void DistributionRisesThroughTheNinesToTheSlowestRequest()
    {
        var recorder = new LatencyRecorder();
        foreach (var ms in OneToHundred)
        {
            recorder.Record(ms, RequestOutcome.Success);
        }
        recorder.TakeInterval();

        var distribution = recorder.Distribution();

        Assert.True(distribution.Count > 10);
        Assert.All(distribution.Zip(distribution.Skip(1)), pair => Assert.True(pair.Second.Percentile > pair.First.Percentile && pair.Second.LatencyMs >= pair.First.LatencyMs));
        Assert.All(distribution, p => Assert.True(p.Percentile < 100));
        Assert.Equal(100, distribution[^1].LatencyMs, 0.1);
    }
}
