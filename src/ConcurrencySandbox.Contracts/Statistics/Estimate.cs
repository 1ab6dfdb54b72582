namespace ConcurrencySandbox.Contracts.Statistics;

/// <summary>
/// A figure as it should be quoted: the median of <paramref name="Count"/> measurements, its 95 % confidence interval
/// and the fastest measurement (for a ratio of totals, such as seed 004's efficiency, <paramref name="Median"/> is that
/// ratio, its interval a ratio estimator's and <paramref name="Min"/> the smallest per-pair ratio). A median's interval
/// is distribution-free (order statistics, the platform library's <c>MedianInterval</c>), so it holds for the skewed,
/// outlier-prone timings of a shared machine; it is null below 6 measurements, where no such interval reaches 95 %.
/// </summary>
public sealed record Estimate(double Median, double? Low, double? High, int Count, double Min)
{
    /// <summary>Half the interval's width as a share of the median (the "+-x %"), or null when there is no interval.</summary>
    public double? HalfWidthPercent => Low is { } low && High is { } high && Median > 0 ? (high - low) / 2 / Median * 100 : null;
}
