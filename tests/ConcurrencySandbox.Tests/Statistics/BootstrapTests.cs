using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.Tests.Statistics;

/// <summary>The seeded bootstrap on fixed samples: no clock, no timing.</summary>
public sealed class BootstrapTests
{
    private static double MeanRatio(IReadOnlyList<double> a, IReadOnlyList<double> b) => a.Average() / b.Average();

    private static readonly double[] Slow = [.. Enumerable.Range(0, 30).Select(i => 2000.0 + 50 * (i % 7))];

    private static readonly double[] Fast = [.. Enumerable.Range(0, 30).Select(i => 1000.0 + 5 * (i % 3))];

    [Fact]
    public void TheSameSamplesGiveTheSameIntervalEveryTime()
    {
        Assert.Equal(Bootstrap.Interval(Slow, Fast, MeanRatio), Bootstrap.Interval(Slow, Fast, MeanRatio));
    }

    [Fact]
    public void TheIntervalHoldsThePointEstimateAndWidensWithTheSpread()
    {
        var narrow = Bootstrap.Interval(Slow, Fast, MeanRatio)!.Value;
        var wide = Bootstrap.Interval([.. Slow.Select((ms, i) => i % 2 == 0 ? ms - 900 : ms + 900)], Fast, MeanRatio)!.Value;

        Assert.InRange(MeanRatio(Slow, Fast), narrow.Low, narrow.High);
        Assert.True(wide.High - wide.Low > narrow.High - narrow.Low);
    }

    [Fact]
    public void SamplesWithoutSpreadGiveAnIntervalOfNoWidth()
    {
        var (low, high) = Bootstrap.Interval([3.0, 3, 3, 3, 3, 3], [1.0, 1, 1, 1, 1, 1], MeanRatio)!.Value;

        Assert.Equal(3, low, 9);
        Assert.Equal(3, high, 9);
    }

    [Fact]
    public void TooFewItemsOrTooFewResamplesWithANumberGiveNoInterval()
    {
        Assert.Null(Bootstrap.Interval([1.0, 2, 3, 4, 5], Fast, MeanRatio));
        Assert.Null(Bootstrap.Interval(Slow, Fast, (_, _) => double.NaN));
    }
}
