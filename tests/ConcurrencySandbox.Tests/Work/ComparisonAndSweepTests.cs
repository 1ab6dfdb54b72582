using ConcurrencySandbox.Api.Work;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Experiments.Work;

namespace ConcurrencySandbox.Tests.Work;

public sealed class ComparisonAndSweepTests
{
    [Fact]
    public async Task CompareReportsMediansAndTheirRatio()
    {
        var row = await Comparison.CompareAsync(WorkUnit.Compute, 100_000, 3, CancellationToken.None);

        Assert.Equal(3, row.Repeat);
        Assert.Equal(row.Sync.Median, row.SyncSeconds);
        Assert.Equal(row.TaskRun.Median, row.TaskRunSeconds);
        Assert.Equal(row.SyncSeconds / row.TaskRunSeconds * 100, row.EfficiencyPercent, 9);
        Assert.Equal(row.TaskRunSeconds - row.SyncSeconds, row.TaskRunAddedSeconds, 12);
        Assert.Equal(69.7553358, row.Seed?.FourCoresPercent);
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
    public async Task SweepFindsTheFirstAmountWhereTaskRunPaysOff()
    {
        var report = await Sweep.RunAsync(WorkUnit.Sleep, [1, 10], 1, CancellationToken.None);

        Assert.Equal(["milliseconds"], new[] { report.AmountName });
        Assert.Equal([1L, 10L], report.Rows.Select(r => r.Amount));
        var expected = report.Rows.FirstOrDefault(r => r.EfficiencyPercent >= 100)?.Amount;
        Assert.Equal(expected, report.BreakEvenAmount);
        Assert.Equal(Environment.ProcessorCount, report.ProcessorCount);
    }

    [Fact]
    public async Task FormatsCarryTheSeedsColumns()
    {
        var report = await Sweep.RunAsync(WorkUnit.Compute, [1, 10, 100], 1, CancellationToken.None);

        var markdown = SweepFormat.ToMarkdown(report).Split('\n');
        Assert.Equal("| Cycles | Sync (s) | Async (s) | % Efficiency | Seed 4 cores % | Seed 1 core % |", markdown[0]);
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
        var (amount, efficiency) = Seed004Figures.Nearest(WorkUnit.Compute, cycles)!.Value;

        Assert.Equal(seedCycles, amount);
        Assert.Equal(fourCoresPercent, efficiency.FourCoresPercent);
        Assert.Null(Seed004Figures.Nearest(WorkUnit.SpinWait, cycles));
    }

    [Fact]
    public void SpreadAndPercentilesInterpolate()
    {
        Assert.Equal(new Spread(2.5, 1, 4), Spread.Of([4, 1, 3, 2]));
        Assert.Equal(9.1, Percentile.OfSorted([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90), 9);
        Assert.Throws<ArgumentException>(() => Spread.Of([]));
    }
}
