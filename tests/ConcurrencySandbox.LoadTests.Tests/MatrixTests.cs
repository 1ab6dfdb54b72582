using ConcurrencySandbox.Contracts.Reports;
using System.Text.Json;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.ApiClient;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.Platform.Machine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class MatrixTests
{
    [Fact]
    public void SweepJsonIsReadWithItsBreakEvenProcessorCountAndIntervals()
    {
        var sent = new SweepReport("compute", "cycles", [Row(1, 50, 2)], BreakEvenAmount: null, TotalSeconds: 0.01,
            CurrentMachine.Info with { ProcessorCount = 1 }, "policy", SpeedDriftPercent: 3.5, Flags: []);

        var sweep = JsonSerializer.Deserialize<SweepReport>(JsonSerializer.Serialize(sent, SandboxClient.Json), SandboxClient.Json)!;

        Assert.Equal(sent.Rows, sweep.Rows); // each figure's median, CI, n and min, the stop reason, the load and the speed check
        Assert.Null(sweep.BreakEvenAmount);
        Assert.Equal(1, sweep.ProcessorCount);
        Assert.Equal(3.5, sweep.SpeedDriftPercent);
    }

    [Theory]
    [InlineData(101, 4, 1, "confirmed: on 1 core Task.Run's efficiency at 1,000,000,000 cycles was 101 % [97, 105] n=10")]
    [InlineData(180, 4, 2, "refuted")] // the API was not really pinned: 180 % is possible on the 2 cores it had
    [InlineData(180, 4, 1, "not decided")] // impossible on one core even at the CI's lower end
    [InlineData(101, 30, 1, "not decided: on 1 core the row at 1,000,000,000 cycles did not pass its checks (1 core(s), 1,000,000,000 cycles: % efficiency inconclusive: +-30 %")]
    public void Hypothesis3IsJudgedOnOneCoreAtTheLargestAmountOnlyWhenThatRowPassedItsChecks(double efficiencyAtLargest, double halfWidthPercent, int apiProcessorCount, string expected)
    {
        CoreCountRun[] runs =
        [
            new(1, null, apiProcessorCount, [Row(10, 300, 4), Row(1_000_000_000, efficiencyAtLargest, halfWidthPercent)], null, null),
            new(2, null, 2, [Row(1_000_000_000, 199, 4)], null, null),
        ];

        Assert.Contains(expected, MatrixRunner.Hypothesis3(runs), StringComparison.Ordinal);
    }

    /// <summary>A sweep row with the efficiency's 95 % CI <paramref name="halfWidthPercent"/> wide on each side (the target is 5 %).</summary>
    internal static ComparisonRow Row(long amount, double efficiencyPercent, double halfWidthPercent, SeedEfficiency? seed = null)
    {
        var seconds = new Estimate(1, 0.99, 1.01, 10, 0.98);
        var margin = efficiencyPercent * halfWidthPercent / 100;
        return new ComparisonRow(amount, seconds, seconds, new Estimate(efficiencyPercent, efficiencyPercent - margin, efficiencyPercent + margin, 10, efficiencyPercent - margin),
            StopReason.Converged, Remeasured: false, TargetHalfWidthPercent: 5, Load: null, new SpeedCheck(0.01, 0.011), seed);
    }

    [Fact]
    public void Hypothesis3IsNotTestedWhenOneCoreWasSkipped()
    {
        CoreCountRun[] runs = [new(1, "no taskset", null, [], null, null)];

        Assert.Contains("not tested", MatrixRunner.Hypothesis3(runs));
    }

    [Fact]
    public void StarvationStartsAtTheLoadOfTheIntervalTheFirstSlowRequestsWereSentIn()
    {
        var key = new VariantKey("threadpool", Cpus: 1);
        IntervalRow Row(double end, double users) => new(key, end, "users", users, 1, LatencyStats.Empty);
        // Intervals end at 4, 8, 12 and 16 s with 4, 8, 12 and 16 users; the requests sent in each, wherever they ended.
        var raw = new VariantResult(key, "/x", "users", 16, [Row(4, 4), Row(8, 8), Row(12, 12), Row(16, 16)], [], LatencyStats.Empty)
        {
            Sent = [new SentSlice(1, 2, 2_000, 0, 0, 0), new SentSlice(5, 2, 2_400, 0, 0, 0), new SentSlice(9.5, 1, 2_500, 0, 0, 0), new SentSlice(13, 1, 4_000, 1, 60_000, 0)],
        };
        var result = SyntheticReports.Report("fanout", "003", "quick", [raw]).Analysed().Variants[0];

        Assert.Equal("12 users", MatrixRunner.StarvedFrom(result, 2000));
        Assert.Equal("16 users", MatrixRunner.StarvedFrom(result, 3000));
        // The timed-out request counts at its 60 s timeout: a lower bound of 32 s.
        Assert.Equal("16 users", MatrixRunner.StarvedFrom(result, 30_000));
        Assert.Equal("never", MatrixRunner.StarvedFrom(result, 40_000));
    }
}
