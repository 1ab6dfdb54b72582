using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;

namespace ConcurrencySandbox.LoadTests.Tests;

public class VerdictTests
{
    private static readonly ExperimentSettings Settings = ExperimentSettings.Defaults;

    [Theory]
    [InlineData(3000, "Reproduced")]
    [InlineData(1100, "Not reproduced")]
    public void FanOutVerdictComesFromThreadpoolAgainstAsyncAtPeakLoad(double threadpoolMeanMs, string expected)
    {
        var finding = Catalog.Create("fanout", Settings).Assess(
            [Result("threadpool", threadpoolMeanMs), Result("sync-over-async", 1500), Result("dedicated", 1010), Result("async", 1005)]);

        Assert.StartsWith(expected + ":", finding.Verdict);
        Assert.Contains(finding.Comparisons, c => c.Figure.StartsWith("dedicated", StringComparison.Ordinal) && c.Seed.Contains("4.5 s"));
    }

    [Fact]
    public void SleepVerdictAllowsForSyncSleepingTwice()
    {
        // Unloaded, sync takes 2 x the milliseconds and async 1 x: twice async's latency is no starvation.
        var finding = Catalog.Create("sleep", Settings).Assess(
            [Result("sync", 2.0 * Settings.Milliseconds), Result("taskrun", Settings.Milliseconds), Result("async", Settings.Milliseconds)]);

        Assert.StartsWith("Not reproduced:", finding.Verdict);
    }

    [Theory]
    [InlineData(100, 104, "Reproduced")]
    [InlineData(100, 180, "Not reproduced")]
    public void ComputeVerdictComparesThroughput(double syncRequests, double taskRunRequests, string expected)
    {
        var finding = Catalog.Create("compute", Settings).Assess([Result("sync", 10, syncRequests), Result("taskrun", 10, taskRunRequests)]);

        Assert.StartsWith(expected + ":", finding.Verdict);
    }

    [Theory]
    [InlineData(6000, "Reproduced")]
    [InlineData(1200, "Not reproduced")]
    public void ColdStartVerdictComparesTheWholeBurst(double defaultPoolMaxMs, string expected)
    {
        var finding = Catalog.Create("coldstart", Settings).Assess([Result("default-pool", 900, max: defaultPoolMaxMs), Result("min-workers-200", 900, max: 1000)]);

        Assert.StartsWith(expected + ":", finding.Verdict);
    }

    [Fact]
    public void MissingVariantIsNotAssessed()
    {
        var finding = Catalog.Create("fanout", Settings with { Strategies = ["threadpool"] }).Assess([Result("threadpool", 3000)]);

        Assert.StartsWith("Not assessed", finding.Verdict);
    }

    private static VariantResult Result(string name, double meanMs, double requests = 100, double? max = null)
    {
        var stats = new LatencyStats((long)requests, 0, meanMs, meanMs, meanMs, meanMs, meanMs, meanMs, max ?? meanMs);
        return new VariantResult(name, "/x", "users", 10, [new IntervalRow(name, 10, "users", 40, requests / 10, stats)], [], stats);
    }
}
