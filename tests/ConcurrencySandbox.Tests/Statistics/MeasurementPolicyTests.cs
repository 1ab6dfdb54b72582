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
    public void ARatioOfTotalsHasTheRatioEstimatorsInterval()
    {
        // 48 / 21; the residuals 3 - r, 5 - 2r, ... have variance 1.4286 / 5, their standard error over the mean
        // denominator 3.5 is 0.06235, and Student's t for 5 degrees of freedom is 2.5706.
        var estimate = Estimates.RatioOfTotals([3, 5, 7, 9, 11, 13], [1, 2, 3, 4, 5, 6], 100);

        Assert.Equal(228.5714286, estimate.Median, 6);
        Assert.Equal(212.5443730, estimate.Low!.Value, 6);
        Assert.Equal(244.5984841, estimate.High!.Value, 6);
        Assert.Equal(6, estimate.Count);
        Assert.Equal(13.0 / 6 * 100, estimate.Min, 9);
        Assert.Null(Estimates.RatioOfTotals([3, 5, 7, 9, 11], [1, 2, 3, 4, 5], 100).Low);
        Assert.Equal(new Estimate(200, 200, 200, 6, 200), Estimates.RatioOfTotals([2, 4, 6, 8, 10, 12], [1, 2, 3, 4, 5, 6], 100));
    }

    /// <summary>
    /// Seed 004's 2-core row at 10^4 cycles: 5 us inline; Task.Run 3.3 us when a second pool worker is awake to take the
    /// second unit and 5.6 us when the caller runs both. Two runs whose pairs split 52:48 and 48:52 between the states
    /// have per-pair medians of 89 % and 152 % (the jump seen in three quiet matrix runs of 2026-11-27), and ratios of
    /// totals 2 points apart, their CIs overlapping.
    /// </summary>
    [Fact]
    public void ARatioOfTotalsStaysPutWhereTheMedianOfBimodalPairsJumps()
    {
        static (double[] Sync, double[] TaskRun) Run(int serialOutOf100) =>
            ([.. Enumerable.Repeat(5.0, 100)], [.. Enumerable.Range(0, 100).Select(i => i < serialOutOf100 ? 5.6 : 3.3)]);
        var (moreSerial, moreParallel) = (Run(52), Run(48));

        var medians = (Estimates.Of([.. moreSerial.Sync.Zip(moreSerial.TaskRun, (s, t) => s / t * 100)]).Median,
            Estimates.Of([.. moreParallel.Sync.Zip(moreParallel.TaskRun, (s, t) => s / t * 100)]).Median);
        var totals = (Estimates.RatioOfTotals(moreSerial.Sync, moreSerial.TaskRun, 100), Estimates.RatioOfTotals(moreParallel.Sync, moreParallel.TaskRun, 100));

        Assert.Equal(5 / 5.6 * 100, medians.Item1, 9);
        Assert.Equal(5 / 3.3 * 100, medians.Item2, 9);
        Assert.InRange(totals.Item2.Median - totals.Item1.Median, 1, 3);
        Assert.True(totals.Item1.High > totals.Item2.Low);
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
    public void AFigureThatConvergedEarlyKeepsGoingUntilTheMinimumSpanThenStops()
    {
        var spread = Policy with { MinimumSpanShare = 0.5 }; // 5 s of the 10 s budget

        Assert.Null(spread.ShouldStop([Narrow, Narrow], pairs: 6, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(0.1)));
        Assert.Equal(StopReason.Converged, spread.ShouldStop([Narrow, Narrow], pairs: 40, TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(0.1)));
        Assert.Equal(StopReason.MaximumRepeats, (spread with { MaximumRepeats = 12 }).ShouldStop([Narrow, Narrow], pairs: 12, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(0.1)));
        Assert.Contains("at least 6 pairs and 5 s", spread.Describe(), StringComparison.Ordinal);
        Assert.Equal(TimeSpan.FromSeconds(2), (spread with { Budget = TimeSpan.FromSeconds(4) }).MinimumSpan); // the sweep's narrowing pass keeps the share
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
