using System.Text.Json;
using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.ApiClient;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Matrix;

namespace ConcurrencySandbox.LoadTests.Tests;

public class MatrixTests
{
    [Fact]
    public void SweepJsonIsReadWithItsBreakEvenAndProcessorCount()
    {
        var sent = new SweepReport("compute", "cycles", [Row(1, 0.001, 0.002, 50)], BreakEvenAmount: null, TotalSeconds: 0.01,
            MachineInfo.Current with { ProcessorCount = 1 });

        var sweep = JsonSerializer.Deserialize<SweepReport>(JsonSerializer.Serialize(sent, SandboxClient.Json), SandboxClient.Json)!;

        Assert.Equal(sent.Rows, sweep.Rows);
        Assert.Null(sweep.BreakEvenAmount);
        Assert.Equal(1, sweep.ProcessorCount);
    }

    [Theory]
    [InlineData(101, "confirmed")]
    [InlineData(180, "refuted")]
    public void Hypothesis3IsJudgedOnOneCoreAtTheLargestAmount(double efficiencyAtLargest, string expected)
    {
        CoreCountRun[] runs =
        [
            new(1, null, 1, [Row(10, 1, 1, 300), Row(1_000_000_000, 2, 2, efficiencyAtLargest)], null, null),
            new(2, null, 2, [Row(1_000_000_000, 2, 1, 199)], null, null),
        ];

        Assert.Contains(expected, MatrixRunner.Hypothesis3(runs));
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
        var result = new VariantResult(key, "/x", "users", 16, [Row(4, 4), Row(8, 8), Row(12, 12), Row(16, 16)], [], LatencyStats.Empty)
        {
            Sent = [new SentSlice(1, 2, 2_000, 0, 0, 0), new SentSlice(5, 2, 2_400, 0, 0, 0), new SentSlice(9.5, 1, 2_500, 0, 0, 0), new SentSlice(13, 1, 4_000, 1, 60_000, 0)],
        };

        Assert.Equal("12 users", MatrixRunner.StarvedFrom(result, 2000));
        Assert.Equal("16 users", MatrixRunner.StarvedFrom(result, 3000));
        // The timed-out request counts at its 60 s timeout: a lower bound of 32 s.
        Assert.Equal("16 users", MatrixRunner.StarvedFrom(result, 30_000));
        Assert.Equal("never", MatrixRunner.StarvedFrom(result, 40_000));
    }

    /// <summary>A sweep row with a tight spread around its figures.</summary>
    private static ComparisonRow Row(long amount, double syncSeconds, double taskRunSeconds, double efficiencyPercent) =>
        new(amount, 3, syncSeconds, taskRunSeconds, efficiencyPercent, taskRunSeconds - syncSeconds,
            new Spread(syncSeconds, syncSeconds, syncSeconds), new Spread(taskRunSeconds, taskRunSeconds, taskRunSeconds), Seed: null);
}
