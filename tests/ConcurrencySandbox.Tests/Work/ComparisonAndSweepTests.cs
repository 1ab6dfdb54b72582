using System.Diagnostics;
using ConcurrencySandbox.Api.Work;
using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.Tests.Work;

public sealed class ComparisonAndSweepTests
{
    /// <summary>A policy that cannot converge (a 1 % target on microsecond timings is out of reach in 1 s only by luck) still stops.</summary>
    private static readonly MeasurementPolicy Short = new(TargetHalfWidthPercent: 1, Budget: TimeSpan.FromSeconds(1), MinimumRepeats: 6, MaximumRepeats: 12);

    [Fact]
    public async Task CompareMeasuresInterleavedPairsUntilThePolicyStopsAndGivesEveryFigureItsInterval()
    {
        var row = await Comparison.CompareAsync(WorkUnit.Compute, 100_000, Short, CancellationToken.None);

        Assert.InRange(row.Repeat, 6, 12);
        Assert.Equal(row.Repeat, row.Sync.Count);
        Assert.Equal(row.Repeat, row.TaskRun.Count);
        Assert.All(new[] { row.Sync, row.TaskRun, row.Efficiency }, e => Assert.InRange(e.Median, e.Low!.Value, e.High!.Value));
        Assert.All(new[] { row.Sync, row.TaskRun }, e => Assert.True(e.Min <= e.Low));
        Assert.True(row.Efficiency.Min <= row.Efficiency.Median, "a ratio of totals is a weighted mean of the per-pair ratios");
        Assert.Equal(row.Sync.Median, row.SyncSeconds);
        Assert.Equal(row.TaskRunSeconds - row.SyncSeconds, row.TaskRunAddedSeconds, 12);
        Assert.Equal(1, row.TargetHalfWidthPercent);
        Assert.True(row.Speed.BeforeSeconds > 0 && row.Speed.AfterSeconds > 0);
        Assert.Equal(OperatingSystem.IsLinux(), row.Load is not null);
        Assert.Equal(69.7553358, row.Seed?.FourCoresPercent);
    }

    [Fact]
    public void ASweepAtTheLargestBudgetMayRunHalfAsLongAgainForItsWarmUpsAndNarrowing()
    {
        Assert.Equal(TimeSpan.FromSeconds(2700), MeasurementPolicy.LongestSweep(TimeSpan.FromSeconds(MeasurementPolicy.MaxBudgetSeconds)));
    }

    [Fact]
    public void ARunShorterThanOneStopwatchTickCountsAsOneTickSoEveryRatioIsFinite()
    {
        Assert.Equal(1.0 / Stopwatch.Frequency, WorkRunner.ElapsedSeconds(0));
        Assert.Equal(30.0 / Stopwatch.Frequency, WorkRunner.ElapsedSeconds(30));
    }

    [Fact]
    public void SpeedDriftIsTheCalibrationTimesRangeOverTheirMinimum()
    {
        Assert.Equal(50, Calibration.DriftPercent([new SpeedCheck(0.010, 0.012), new SpeedCheck(0.015, 0.011)]), 9);
        Assert.Equal(20, new SpeedCheck(0.010, 0.012).DriftPercent, 9);
    }

    [Theory]
    [InlineData(1, 1_000_000_000, 10, 10)]
    [InlineData(1, 1_000, 10, 4)]
    [InlineData(1, 50, 10, 2)]
    [InlineData(3, 3, 2, 1)]
    [InlineData(1, long.MaxValue, 1000, 7)]
    public void AmountsGrowGeometricallyUpToTo(long from, long to, long factor, int expectedCount)
    {
        var amounts = Sweep.Amounts(from, to, factor);

        Assert.Equal(expectedCount, amounts.Count);
        Assert.Equal(from, amounts[0]);
        Assert.All(amounts.Skip(1).Zip(amounts), pair => Assert.Equal(pair.Second * factor, pair.First));
        Assert.True(amounts[^1] <= to);
    }

    [Fact]
    public async Task SweepMeasuresItsRowsInRoundsUnderTheWholeBudgetAndReportsThePolicyAndTheDrift()
    {
        var report = await Sweep.RunAsync(WorkUnit.Sleep, [1, 10], Short with { MinimumRepeats = 1 }, CancellationToken.None);

        Assert.Equal(["milliseconds"], new[] { report.AmountName });
        Assert.Equal([1L, 10L], report.Rows.Select(r => r.Amount));
        Assert.Equal(Sweep.BreakEven(report.Rows, "milliseconds", report.ProcessorCount), report.BreakEvenAmount);
        Assert.Equal(Environment.ProcessorCount, report.ProcessorCount);
        Assert.Contains("at most 1 s); the 2 rows measured in rounds", report.Policy, StringComparison.Ordinal); // the whole sweep's budget, shared by its rows
        Assert.Equal(Calibration.DriftPercent(report.Rows.Select(r => r.Speed)), report.SpeedDriftPercent);
    }

    [Fact]
    public async Task FormatsCarryTheSeedsColumnsAndTheIntervals()
    {
        var report = await Sweep.RunAsync(WorkUnit.Compute, [1, 10, 100], Short with { MinimumRepeats = 1 }, CancellationToken.None);

        var markdown = SweepFormat.ToMarkdown(report).Split('\n');
        Assert.Equal("| Cycles | Sync (s) | Async (s) | % Efficiency | Efficiency 95 % CI | Pairs | Seed 4 cores % | Seed 1 core % | Machine while measured |", markdown[0]);
        Assert.StartsWith("| 10 | ", markdown[3], StringComparison.Ordinal);
        Assert.Contains("| 0.28 | 0.28 |", markdown[3], StringComparison.Ordinal);

        var csv = SweepFormat.ToCsv(report).TrimEnd().Split('\n');
        Assert.Equal(4, csv.Length);
        Assert.StartsWith("cycles,syncSeconds,taskRunSeconds,efficiencyPercent", csv[0], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(10_000_000, 10_000_000, 134.5728267)]
    [InlineData(30_000_000, 10_000_000, 134.5728267)]
    [InlineData(40_000_000, 100_000_000, 183.6655326)]
    [InlineData(50_000_000_000, 1_000_000_000, 198.6237583)]
    public void TheNearestSeedRowIsFoundByDecade(long cycles, long seedCycles, double fourCoresPercent)
    {
        var (amount, efficiency) = Seed004Figures.Nearest(WorkKind.Compute, cycles)!.Value;

        Assert.Equal(seedCycles, amount);
        Assert.Equal(fourCoresPercent, efficiency.FourCoresPercent);
        Assert.Null(Seed004Figures.Nearest(WorkKind.SpinWait, cycles));
    }

    [Fact]
    public void SpreadAndPercentilesInterpolate()
    {
        Assert.Equal(new Spread(2.5, 1, 4), Spreads.Of([4, 1, 3, 2]));
        Assert.Equal(9.1, Percentile.OfSorted([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90), 9);
        Assert.Throws<ArgumentException>(() => Spreads.Of([]));
    }
}
