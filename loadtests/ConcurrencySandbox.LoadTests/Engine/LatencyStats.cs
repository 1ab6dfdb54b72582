using ConcurrencySandbox.Contracts.Statistics;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>Latency statistics of a set of requests, in milliseconds; percentiles as the experiments library defines them (<see cref="Percentile"/>).</summary>
public sealed record LatencyStats(long Ok, long Failed, double MeanMs, double MinMs, double P50Ms, double P75Ms, double P95Ms, double P99Ms, double MaxMs)
{
    public static readonly LatencyStats Empty = new(0, 0, 0, 0, 0, 0, 0, 0, 0);

    public long Requests => Ok + Failed;

    /// <summary>Statistics over every latency (ok and failed requests alike: a slow failure is still slow).</summary>
    public static LatencyStats From(double[] latenciesMs, long failed)
    {
        if (latenciesMs.Length == 0)
        {
            return Empty with { Failed = failed };
        }
        var sorted = (double[])latenciesMs.Clone();
        Array.Sort(sorted);
        return new LatencyStats(
            latenciesMs.Length - failed,
            failed,
            sorted.Average(),
            sorted[0],
            Percentile.OfSorted(sorted, 50),
            Percentile.OfSorted(sorted, 75),
            Percentile.OfSorted(sorted, 95),
            Percentile.OfSorted(sorted, 99),
            sorted[^1]);
    }
}
