using HdrHistogram;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// Latency statistics of a set of requests, in milliseconds, over the requests that got an answer (ok or another
/// status) as HdrHistogram holds them (3 significant digits); <see cref="Outcomes"/> says how many did not complete.
/// A timeout is never a latency: it is counted, not averaged.
/// </summary>
public sealed record LatencyStats(OutcomeCounts Outcomes, double MeanMs, double MinMs, double P50Ms, double P75Ms, double P95Ms, double P99Ms, double P999Ms, double MaxMs)
{
    public static readonly LatencyStats Empty = new(default(OutcomeCounts), 0, 0, 0, 0, 0, 0, 0, 0);

    public long Requests => Outcomes.Requests;
    public long Ok => Outcomes.Ok;
    public long Failed => Outcomes.Failed;
    public long TimedOut => Outcomes.TimedOut;
    public long Completed => Outcomes.Completed;

    /// <summary>Statistics of a histogram of completed requests' latencies in microseconds, beside the outcome counts.</summary>
    public static LatencyStats From(HistogramBase completedMicros, OutcomeCounts outcomes)
    {
        if (completedMicros.TotalCount == 0)
        {
            return Empty with { Outcomes = outcomes };
        }
        return new LatencyStats(
            outcomes,
            completedMicros.GetMean() / 1000,
            completedMicros.RecordedValues().First().ValueIteratedTo / 1000.0,
            Ms(completedMicros, 50),
            Ms(completedMicros, 75),
            Ms(completedMicros, 95),
            Ms(completedMicros, 99),
            Ms(completedMicros, 99.9),
            completedMicros.GetMaxValue() / 1000.0);
    }

    private static double Ms(HistogramBase histogram, double percentile) => histogram.GetValueAtPercentile(percentile) / 1000.0;
}

/// <summary>One point of a latency distribution: the share of completed requests at or below a latency, as a percentile.</summary>
public sealed record PercentilePoint(double Percentile, double LatencyMs);
