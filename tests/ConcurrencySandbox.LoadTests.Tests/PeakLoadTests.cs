using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class PeakLoadTests
{
    // 10 s at 4 users then 10 s at 8: the peak step runs from 10 s to 20 s.
    private static readonly IntervalRow[] Rows = [Row(10, 4), Row(20, 8), Row(30, 0), Row(45, 0)];

    [Fact]
    public void MeanAtPeakLoadCountsTheRequestsSentDuringThePeakStepWhereverTheyEnded()
    {
        var result = Result(new SentSlice(1.0, 3, 300, 0, 0, 0), new SentSlice(12.0, 2, 60_000, 0, 0, 0), new SentSlice(25.0, 1, 100, 0, 0, 0));

        Assert.Equal((10, 20), result.PeakStep());
        Assert.Equal(30_000, result.PeakLoadMeanMs);
        Assert.False(result.SentAtPeak().Censored);
    }

    [Fact]
    public void TimedOutRequestsSentAtPeakMakeTheMeanALowerBoundInsteadOfALatency()
    {
        var result = Result(new SentSlice(12.0, 1, 30_000, 0, 0, 0), new SentSlice(15.0, 0, 0, 3, 180_000, 1));

        var atPeak = result.SentAtPeak();

        Assert.Equal(30_000, result.PeakLoadMeanMs);
        Assert.True(atPeak.Censored);
        Assert.Equal(60_000, atPeak.TimedOutAtMs);
        Assert.Equal((30_000 + 180_000) / 4.0, atPeak.AtLeastMeanMs);
        Assert.Equal(5, atPeak.Requests);
    }

    [Fact]
    public void MeanAtPeakLoadIsNotANumberWhenNothingWasSentAtPeak()
    {
        var result = Result(new SentSlice(1, 1, 100, 0, 0, 0));

        Assert.True(double.IsNaN(result.PeakLoadMeanMs));
    }

    [Fact]
    public void RecorderGroupsRequestsByWhenTheyWereSent()
    {
        // The variant began 5 s ago; a request that took 2 s was sent about 3 s in.
        var recorder = new LatencyRecorder(Stopwatch.GetTimestamp() - 5 * Stopwatch.Frequency);
        recorder.Record(2_000, RequestOutcome.Success);
        recorder.Record(4_000, RequestOutcome.TimedOut);

        var slices = recorder.SentSlices();

        Assert.Equal(2, slices.Count);
        Assert.InRange(slices[0].FromSeconds, 0.9, 1.5);
        Assert.Equal((0, 1), (slices[0].Completed, slices[0].TimedOut));
        Assert.InRange(slices[1].FromSeconds, 2.9, 3.5);
        Assert.Equal((1, 0), (slices[1].Completed, slices[1].TimedOut));
    }

    [Fact]
    public void RecorderKeepsEachRequestWithItsCompletionTimeSinceTheRecorderStartedWhenAskedTo()
    {
        // A recorder whose run started an hour ago: completion times count from that start, not from the recording.
        var recorder = new LatencyRecorder(Stopwatch.GetTimestamp() - 3600 * Stopwatch.Frequency, keepEveryRequest: true);
        recorder.Record(10, RequestOutcome.Success);
        recorder.Record(20, RequestOutcome.TimedOut);

        var requests = recorder.Requests();

        Assert.Equal([(10.0, RequestEnd.Ok), (20.0, RequestEnd.Timeout)], requests.Select(r => (r.LatencyMs, r.End)));
        Assert.All(requests, r => Assert.InRange(r.CompletedSeconds, 3600, double.MaxValue));
    }

    private static IntervalRow Row(double end, double users) => new(new VariantKey("v"), end, "users", users, 0, LatencyStats.Empty);

    private static VariantResult Result(params SentSlice[] sent) =>
        new(new VariantKey("v"), "/x", "users", Rows[^1].ElapsedSeconds, Rows, [], LatencyStats.Empty) { Sent = sent };
}
