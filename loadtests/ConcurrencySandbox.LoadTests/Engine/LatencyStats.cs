namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>Latency statistics of a set of requests, in milliseconds.</summary>
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
            Percentile(sorted, 50),
            Percentile(sorted, 75),
            Percentile(sorted, 95),
            Percentile(sorted, 99),
            sorted[^1]);
    }

    /// <summary>Nearest-rank percentile of an ascending array: the smallest value with at least p % of values at or below it.</summary>
    public static double Percentile(double[] sortedAscending, double percent)
    {
        if (sortedAscending.Length == 0)
        {
            return 0;
        }
        var rank = (int)Math.Ceiling(percent / 100 * sortedAscending.Length);
        return sortedAscending[Math.Clamp(rank, 1, sortedAscending.Length) - 1];
    }
}
