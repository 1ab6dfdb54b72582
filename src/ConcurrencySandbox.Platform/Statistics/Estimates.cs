using System.Globalization;
using ConcurrencySandbox.Contracts.Statistics;

namespace ConcurrencySandbox.Platform.Statistics;

/// <summary>Computes <see cref="Estimate"/>s and writes them as reports quote them.</summary>
public static class Estimates
{
    public static Estimate Of(IReadOnlyCollection<double> values)
    {
        if (values.Count == 0)
        {
            throw new ArgumentException("At least one value is needed.", nameof(values));
        }

        var sorted = values.Order().ToArray();
        var interval = MedianInterval.Ranks(sorted.Length);
        return new Estimate(
            Percentile.OfSorted(sorted, 50),
            interval is { } r ? sorted[r.Lower] : null,
            interval is { } s ? sorted[s.Upper] : null,
            sorted.Length,
            sorted[0]);
    }

    /// <summary>"1.23 s [1.20, 1.27] n=8 min 1.19" in the unit <paramref name="unit"/> after <paramref name="scale"/>.</summary>
    public static string Describe(this Estimate estimate, string format, string unit, double scale = 1) =>
        string.Create(CultureInfo.InvariantCulture,
            $"{(estimate.Median * scale).ToString(format, CultureInfo.InvariantCulture)}{unit} {estimate.Interval(format, scale)} n={estimate.Count}, min {(estimate.Min * scale).ToString(format, CultureInfo.InvariantCulture)}");

    /// <summary>"[1.20, 1.27]" or "[no 95 % CI below 6 repeats]".</summary>
    public static string Interval(this Estimate estimate, string format, double scale = 1) =>
        estimate.Low is { } low && estimate.High is { } high
            ? $"[{(low * scale).ToString(format, CultureInfo.InvariantCulture)}, {(high * scale).ToString(format, CultureInfo.InvariantCulture)}]"
            : string.Create(CultureInfo.InvariantCulture, $"[no 95 % CI below {MedianInterval.MinimumCount} repeats]");
}

/// <summary>
/// The distribution-free 95 % confidence interval of a median: between the k-th smallest and the k-th largest of n
/// measurements, k the largest rank for which the chance that fewer than k measurements fall below the true median
/// (Binomial(n, 1/2)) stays within 2.5 % on each side.
/// </summary>
public static class MedianInterval
{
    public const double Confidence = 0.95;

    /// <summary>The fewest measurements with a 95 % interval: for 6, [min, max] covers the median with 1 - 2/64 = 96.9 %.</summary>
    public const int MinimumCount = 6;

    /// <summary>The zero-based ranks in the sorted measurements of the interval's ends, or null when n is too small.</summary>
    public static (int Lower, int Upper)? Ranks(int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        var tail = (1 - Confidence) / 2;

        // cumulative = P(Binomial(count, 1/2) <= k - 1): the chance that the interval's lower end lies above the median.
        var probability = Math.Pow(0.5, count);
        var cumulative = probability;
        var k = 0;
        while (cumulative <= tail && k < count / 2)
        {
            k++;
            probability *= (double)(count - k + 1) / k;
            cumulative += probability;
        }

        return k == 0 ? null : (k - 1, count - k);
    }
}
