using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class PeakLoadTests
{
    [Fact]
    public void MeanAtPeakLoadCountsTheRequestsSentDuringThePeakStepEvenWhenTheyCompleteAfterIt()
    {
        // 10 s at 4 users then 10 s at 8; the requests sent in the peak step come back 30 s later.
        RequestSample[] requests =
        [
            new(1.1, 100, true), new(5.1, 100, true), new(9.5, 100, true),
            new(41.0, 30_000, true), new(45.0, 30_000, true),
        ];
        var result = Result([Row(10, 4, 2, 100), Row(20, 8, 1, 100), Row(30, 0, 0, 0), Row(45, 0, 2, 30_000)], requests);

        Assert.Equal((10, 20), result.PeakStep());
        Assert.Equal(30_000, result.PeakLoadMeanMs);
        Assert.NotEqual(result.Total.MeanMs, result.PeakLoadMeanMs);
    }

    [Fact]
    public void MeanAtPeakLoadIsNotANumberWhenNothingWasSentAtPeak()
    {
        var result = Result([Row(10, 4, 1, 100), Row(20, 8, 0, 0)], [new(1, 100, true)]);

        Assert.True(double.IsNaN(result.PeakLoadMeanMs));
    }

    [Fact]
    public void WithoutPerRequestSamplesMeanAtPeakLoadUsesOnlyTheIntervalsOfThePeakStep()
    {
        var result = Result([Row(10, 4, 10, 100), Row(20, 8, 10, 300), Row(30, 0, 10, 900)], []);

        Assert.Equal(300, result.PeakLoadMeanMs);
    }

    [Fact]
    public void RecorderKeepsEachRequestWithItsCompletionTimeSinceTheRecorderStarted()
    {
        // A recorder whose run started an hour ago: completion times count from that start, not from the recording.
        var recorder = new LatencyRecorder(Stopwatch.GetTimestamp() - 3600 * Stopwatch.Frequency);
        recorder.Record(10, ok: true);
        recorder.Record(20, ok: false);

        var requests = recorder.Requests();

        Assert.Equal([(10.0, true), (20.0, false)], requests.Select(r => (r.LatencyMs, r.Ok)));
        Assert.All(requests, r => Assert.InRange(r.CompletedSeconds, 3600, double.MaxValue));
    }

    private static IntervalRow Row(double end, double users, long requests, double meanMs) =>
        new(new VariantKey("v"), end, "users", users, requests, new LatencyStats(requests, 0, meanMs, meanMs, meanMs, meanMs, meanMs, meanMs, meanMs));

    private static VariantResult Result(IntervalRow[] rows, RequestSample[] requests)
    {
        var latencies = requests.Select(r => r.LatencyMs).ToArray();
        return new VariantResult(new VariantKey("v"), "/x", "users", rows[^1].ElapsedSeconds, rows, [], LatencyStats.From(latencies, 0)) { Requests = requests };
    }
}
