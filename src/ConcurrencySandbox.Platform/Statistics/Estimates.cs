using System.Globalization;
using ConcurrencySandbox.Contracts.Statistics;
using MathNet.Numerics.Distributions;

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

    /// <summary>How many contiguous batches the pairs of a ratio of totals are grouped in for its interval.</summary>
    public const int RatioBatches = 10;

    /// <summary>
    /// The ratio of two paired samples' totals, sum(numerators) / sum(denominators) x <paramref name="scale"/>, with the
    /// 95 % CI of a ratio estimator over batch totals: the pairs, in the order they were measured, in
    /// <see cref="RatioBatches"/> contiguous batches (one pair each below that many), the residuals batch numerator - ratio
    /// x batch denominator, their standard error over the mean batch denominator, Student's t with batches - 1 degrees of
    /// freedom. Batches, not pairs: a state that lasts seconds (how many workers the pool lets run) makes neighbouring
    /// pairs alike, and an interval over pairs would take them for independent. Null below
    /// <see cref="MedianInterval.MinimumCount"/> pairs; <see cref="Estimate.Min"/> is the smallest per-pair ratio.
    /// A throughput ratio is a ratio of totals: where each pair falls in one of two states (seed 004's Task.Run half
    /// running both units on one thread or on two, as a second pool worker happens to be awake or parked), the median of
    /// the per-pair ratios sits in whichever state holds just over half the pairs and jumps between the two across runs,
    /// while the ratio of totals weighs each state by its share.
    /// </summary>
    public static Estimate RatioOfTotals(IReadOnlyList<double> numerators, IReadOnlyList<double> denominators, double scale)
    {
        if (numerators.Count == 0 || numerators.Count != denominators.Count)
        {
            throw new ArgumentException("One denominator is needed per numerator, and at least one pair.", nameof(denominators));
        }

        var count = numerators.Count;
        var ratio = numerators.Sum() / denominators.Sum();
        var min = numerators.Zip(denominators, (n, d) => n / d).Min() * scale;
        if (count < MedianInterval.MinimumCount)
        {
            return new Estimate(ratio * scale, null, null, count, min);
        }

        var batches = Math.Min(count, RatioBatches);
        var totals = Enumerable.Range(0, batches)
            .Select(b => (From: b * count / batches, To: (b + 1) * count / batches))
            .Select(b => (N: numerators.Skip(b.From).Take(b.To - b.From).Sum(), D: denominators.Skip(b.From).Take(b.To - b.From).Sum()))
            .ToList();
        var residualVariance = totals.Sum(t => Math.Pow(t.N - ratio * t.D, 2)) / (batches - 1);
        var standardError = Math.Sqrt(residualVariance / batches) / totals.Average(t => t.D);
        var halfWidth = StudentT.InvCDF(0, 1, batches - 1, 1 - (1 - MedianInterval.Confidence) / 2) * standardError;
        return new Estimate(ratio * scale, Math.Max(0, ratio - halfWidth) * scale, (ratio + halfWidth) * scale, count, min);
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
