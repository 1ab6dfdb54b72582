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
    public void StarvationStartsAtTheLoadTheFirstSlowRequestsWereSentAt()
    {
        var key = new VariantKey("threadpool", Cpus: 1);
        IntervalRow Row(double users, double meanMs) =>
            new(key, users, "users", users, 1, new LatencyStats(1, 0, meanMs, meanMs, meanMs, meanMs, meanMs, meanMs, meanMs));
        var result = new VariantResult(key, "/x", "users", 3, [Row(4, 1000), Row(8, 0), Row(12, 2500), Row(16, 4000)], [], LatencyStats.Empty);

        // Completed at 12 s after 2.5 s: sent at 9.5 s, in the 12-user interval; completed at 16 s after 4 s: sent at 12 s.
        Assert.Equal("12 users", MatrixRunner.StarvedFrom(result, 2000));
        Assert.Equal("12 users", MatrixRunner.StarvedFrom(result, 3000));
        Assert.Equal("never", MatrixRunner.StarvedFrom(result, 5000));
        var slower = result with { Intervals = [Row(4, 1000), Row(8, 0), Row(12, 0), Row(16, 9000)] };
        Assert.Equal("8 users", MatrixRunner.StarvedFrom(slower, 5000));
    }

    /// <summary>A sweep row with a tight spread around its figures.</summary>
    private static ComparisonRow Row(long amount, double syncSeconds, double taskRunSeconds, double efficiencyPercent) =>
        new(amount, 3, syncSeconds, taskRunSeconds, efficiencyPercent, taskRunSeconds - syncSeconds,
            new Spread(syncSeconds, syncSeconds, syncSeconds), new Spread(taskRunSeconds, taskRunSeconds, taskRunSeconds), Seed: null);
}
