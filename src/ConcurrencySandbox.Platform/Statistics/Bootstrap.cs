namespace ConcurrencySandbox.Platform.Statistics;

/// <summary>
/// The seeded percentile bootstrap: the 95 % confidence interval of a statistic of two independent samples, each
/// resampled with replacement (whole clusters when an item is one: requests sent together share what slowed them), the
/// statistic taken on every pair of resamples and the interval read between its 2.5th and 97.5th percentiles. The seed
/// is fixed, so the same data give the same interval on every run and machine.
/// </summary>
public static class Bootstrap
{
    public const double Confidence = 0.95;

    /// <summary>How many pairs of resamples are drawn: enough for the 2.5th percentile to rest on 50 of them.</summary>
    public const int Resamples = 2000;

    /// <summary>The fewest items in each sample with an interval: as for a median (<see cref="MedianInterval.MinimumCount"/>), fewer resample into too few distinct sets.</summary>
    public const int MinimumCount = MedianInterval.MinimumCount;

    private const int Seed = 3;

    /// <summary>
    /// The interval of <paramref name="statistic"/> over <paramref name="first"/> and <paramref name="second"/>, or null
    /// when either holds fewer than <see cref="MinimumCount"/> items or fewer than half the resamples give a number (the
    /// statistic returns NaN for a resample it cannot be taken on).
    /// </summary>
    public static (double Low, double High)? Interval<T>(IReadOnlyList<T> first, IReadOnlyList<T> second, Func<IReadOnlyList<T>, IReadOnlyList<T>, double> statistic)
    {
        if (first.Count < MinimumCount || second.Count < MinimumCount)
        {
            return null;
        }
        var random = new Random(Seed);
        var (a, b) = (new T[first.Count], new T[second.Count]);
        var values = new List<double>(Resamples);
        for (var i = 0; i < Resamples; i++)
        {
            Resample(first, a, random);
            Resample(second, b, random);
            var value = statistic(a, b);
            if (!double.IsNaN(value))
            {
                values.Add(value);
            }
        }
        if (values.Count < Resamples / 2)
        {
            return null;
        }
        values.Sort();
        var tailPercent = (1 - Confidence) / 2 * 100;
        return (Percentile.OfSorted(values, tailPercent), Percentile.OfSorted(values, 100 - tailPercent));
    }

    private static void Resample<T>(IReadOnlyList<T> from, T[] into, Random random)
    {
        for (var i = 0; i < into.Length; i++)
        {
            into[i] = from[random.Next(from.Count)];
        }
    }
}
