using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.Tests.Statistics;

/// <summary>The measurement policy's arithmetic on fixed inputs: no clock, no timing.</summary>
public sealed class MeasurementPolicyTests
{
    private static readonly MeasurementPolicy Policy = new(TargetHalfWidthPercent: 5, Budget: TimeSpan.FromSeconds(10), MinimumRepeats: 6, MaximumRepeats: 40);

    [Theory]
    [InlineData(5, null, null)]
    [InlineData(6, 0, 5)]
    [InlineData(8, 0, 7)]
    [InlineData(10, 1, 8)]
    [InlineData(20, 5, 14)]
    [InlineData(50, 17, 32)]
    public void TheMediansIntervalIsBetweenTheBinomialOrderStatistics(int count, int? lower, int? upper)
    {
        var ranks = MedianInterval.Ranks(count);

        Assert.Equal(lower, ranks?.Lower);
        Assert.Equal(upper, ranks?.Upper);
    }

    [Fact]
    public void AnEstimateCarriesMedianIntervalCountAndMin()
    {
        var estimate = Estimates.Of([10, 3, 9, 4, 8, 5, 7, 6, 2, 11]);

        Assert.Equal(new Estimate(6.5, 3, 10, 10, 2), estimate);
        Assert.Equal((10 - 3) / 2.0 / 6.5 * 100, estimate.HalfWidthPercent!.Value, 9);
        Assert.Equal("6.5 s [3.0, 10.0] n=10, min 2.0", estimate.Describe("0.0", " s"));
    }

    [Fact]
    public void FewerThanSixMeasurementsHaveNoIntervalAndNoWidth()
    {
        var estimate = Estimates.Of([1, 2, 3, 4, 5]);

        Assert.Null(estimate.Low);
        Assert.Null(estimate.HalfWidthPercent);
        Assert.False(Policy.IsConclusive(estimate));
        Assert.Contains("no 95 % CI below 6 repeats", estimate.Interval("0"), StringComparison.Ordinal);
    }

    [Fact]
    public void PairsAlternateWhichFormGoesFirst()
    {
        Assert.Equal([false, true, false, true, false], Enumerable.Range(0, 5).Select(MeasurementPolicy.BFirst));
    }

    [Fact]
    public void NothingStopsBeforeTheMinimumRepeatsEvenPastTheBudget()
    {
        Assert.Null(Policy.ShouldStop([Narrow], pairs: 5, elapsed: TimeSpan.FromSeconds(60), lastPair: TimeSpan.FromSeconds(1)));
    }

    [Fact]
    public void ItStopsAsConvergedOnceEveryFigureIsWithinTheTarget()
    {
        Assert.Equal(StopReason.Converged, Policy.ShouldStop([Narrow, Narrow], pairs: 6, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(0.1)));
        Assert.Null(Policy.ShouldStop([Narrow, Wide], pairs: 6, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(0.1)));
    }

    [Fact]
    public void ItStopsWhenTheNextPairWouldRunPastTheBudget()
    {
        Assert.Null(Policy.ShouldStop([Wide], pairs: 7, elapsed: TimeSpan.FromSeconds(8), lastPair: TimeSpan.FromSeconds(2)));
        Assert.Equal(StopReason.BudgetSpent, Policy.ShouldStop([Wide], pairs: 7, elapsed: TimeSpan.FromSeconds(8.5), lastPair: TimeSpan.FromSeconds(2)));
    }

    [Fact]
    public void ItStopsAtTheRepeatCapWhateverTheWidth()
    {
        Assert.Equal(StopReason.MaximumRepeats, Policy.ShouldStop([Wide], pairs: 40, TimeSpan.Zero, TimeSpan.Zero));
    }

    [Fact]
    public void WarmUpEndsOnlyWhenTheRunTimeStopsImprovingAfterEnoughCallsAndTime()
    {
        double[] improving = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
        double[] settled = [10, 6, 3, 2, 2.02, 1.99, 2.01, 2.0, 2.03, 2.0];
        var enough = TimeSpan.FromSeconds(1);

        Assert.False(MeasurementPolicy.WarmedUp(improving, invocationsPerRun: 4, enough));
        Assert.True(MeasurementPolicy.WarmedUp(settled, invocationsPerRun: 4, enough));
        Assert.False(MeasurementPolicy.WarmedUp(settled, invocationsPerRun: 2, enough)); // 20 calls: not yet tier 1
        Assert.False(MeasurementPolicy.WarmedUp(settled, invocationsPerRun: 4, TimeSpan.FromMilliseconds(100)));
    }

    [Fact]
    public void ThePolicyInWordsNamesTheTargetAndTheBudget()
    {
        Assert.Contains("within +-5 % (at least 6 pairs, at most 10 s)", Policy.Describe(), StringComparison.Ordinal);
    }

    /// <summary>+-1 %: within any target.</summary>
    private static Estimate Narrow => new(100, 99, 101, 10, 98);

    /// <summary>+-20 %: wider than the 5 % target.</summary>
    private static Estimate Wide => new(100, 80, 120, 10, 70);
}
