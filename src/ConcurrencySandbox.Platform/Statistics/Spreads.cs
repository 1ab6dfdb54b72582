using ConcurrencySandbox.Contracts.Statistics;

namespace ConcurrencySandbox.Platform.Statistics;

/// <summary>Computes <see cref="Spread"/>s.</summary>
public static class Spreads
{
    public static Spread Of(IReadOnlyCollection<double> values)
    {
        if (values.Count == 0)
        {
            throw new ArgumentException("At least one value is needed.", nameof(values));
        }

        var sorted = values.Order().ToArray();
        return new Spread(Percentile.OfSorted(sorted, 50), sorted[0], sorted[^1]);
    }
}

/// <summary>Percentiles by linear interpolation between closest ranks.</summary>
public static class Percentile
{
    public static double OfSorted(IReadOnlyList<double> sorted, double percent)
    {
        if (sorted.Count == 0)
        {
            throw new ArgumentException("At least one value is needed.", nameof(sorted));
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(percent, 0);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(percent, 100);
        var rank = percent / 100 * (sorted.Count - 1);
        var lower = (int)Math.Floor(rank);
        var upper = (int)Math.Ceiling(rank);
        return sorted[lower] + ((sorted[upper] - sorted[lower]) * (rank - lower));
    }
}
