using ConcurrencySandbox.LoadTests.Engine;
using HdrHistogram;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>Latency statistics for tests, built the way the recorder builds them (an HdrHistogram of microseconds).</summary>
public static class TestStats
{
    /// <summary>Statistics of these completed latencies, with <paramref name="failed"/> more requests that timed out after <paramref name="timedOutAtMs"/>.</summary>
    public static LatencyStats Of(IEnumerable<double> completedMs, long failed = 0, double? timedOutAtMs = null)
    {
        var histogram = Histogram(completedMs);
        return LatencyStats.From(histogram, new OutcomeCounts(histogram.TotalCount, 0, failed, 0), timedOutAtMs);
    }

    public static LongHistogram Histogram(IEnumerable<double> completedMs)
    {
        var histogram = new LongHistogram(3_600_000_000, 3);
        foreach (var ms in completedMs)
        {
            histogram.RecordValue((long)Math.Round(ms * 1000));
        }
        return histogram;
    }

    /// <summary>Takes an interval of a run of one step (every request sent in step 0), for tests of intervals and totals.</summary>
    public static LatencyStats TakeInterval(this LatencyRecorder recorder) => recorder.TakeInterval(endSeconds: 0, sentStep: 0);

    /// <summary>
    /// <paramref name="requests"/> requests, every latency figure <paramref name="ms"/>, <paramref name="failed"/> of them timed
    /// out. Figures made by hand, not ranked from latencies: the p99 is taken as sure (its low end is the p99 itself), so
    /// a test of another rule is not judged "within noise" (<see cref="TestStats.Of"/> ranks real latencies for that).
    /// </summary>
    public static LatencyStats Uniform(long requests, double ms, long failed = 0, double? maxMs = null, double? p99Ms = null) =>
        new(new OutcomeCounts(requests - failed, 0, failed, 0), ms, ms, ms, ms, ms, p99Ms ?? ms, p99Ms ?? ms, maxMs ?? p99Ms ?? ms) { P99LowMs = p99Ms ?? ms };
}
