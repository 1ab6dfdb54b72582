using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments.ColdStart;
using ConcurrencySandbox.LoadTests.Experiments.Compute;
using ConcurrencySandbox.LoadTests.Experiments.FanOut;
using ConcurrencySandbox.LoadTests.Experiments.Sleep;
using ConcurrencySandbox.LoadTests.Experiments;

namespace ConcurrencySandbox.LoadTests.Tests;

public class VerdictTests
{
    private static readonly FanOutExperiment FanOut = new(FanOutSettings.Defaults);

    [Theory]
    [InlineData(3000, Outcome.Reproduced)]
    [InlineData(1100, Outcome.NotReproduced)]
    public void FanOutVerdictComesFromThreadpoolAgainstAsyncAtPeakLoadAndShowsTheCustomPoolBesideTheSeed(double threadpoolMeanMs, Outcome expected)
    {
        var finding = FanOut.Assess(
            [Result("threadpool", threadpoolMeanMs), Result("sync-over-async", 1500), Result("dedicated", 1010), Result("async", 1005)]);

        Assert.Equal(expected, finding.Outcome);
        Assert.Contains(finding.Comparisons, c => c.Figure.StartsWith("dedicated", StringComparison.Ordinal) && c.Seed.Contains("4.5 s"));
    }

    [Fact]
    public void FanOutVerdictJudgesVariantsByNameWhateverCoreCountTheyRanAt()
    {
        var finding = FanOut.Assess([Result("threadpool", 3000, cpus: 2), Result("async", 1005, cpus: 2)]);

        Assert.Equal(Outcome.Reproduced, finding.Outcome);
        Assert.StartsWith("Reproduced: at peak load threadpool's", finding.Verdict);
        Assert.EndsWith("Claims: latency under load confirmed, max latency confirmed, wait to start inconclusive.", finding.Verdict);
    }

    [Fact]
    public void TimedOutRequestsMakeTheFanOutVerdictALowerBoundWithTheirCountNeverAPlainMultiple()
    {
        // 25 of 61 threadpool requests answered after 20 s, 36 timed out at 60 s.
        var finding = FanOut.Assess([Result("threadpool", 20_000, requests: 25, timedOutAtMs: 60_000, timedOut: 36), Result("async", 1005)]);

        Assert.Equal(Outcome.Reproduced, finding.Outcome);
        Assert.Contains("at least ", finding.Verdict);
        Assert.Contains("36 of 61 requests timed out at 60 s", finding.Verdict);
        var mean = Assert.Single(finding.Comparisons, c => c.Figure == "threadpool: mean at peak load / unloaded latency");
        Assert.StartsWith("at least 43.6 x (36 of 61 requests timed out at 60 s: a lower bound)", mean.Today);
        Assert.StartsWith("at least 60 s", Assert.Single(finding.Comparisons, c => c.Figure == "threadpool: max").Today);
    }

    [Fact]
    public void TimeoutsOfTheReferenceVariantLeaveTheStarvationVerdictNotAssessed()
    {
        var finding = FanOut.Assess([Result("threadpool", 3000), Result("async", 1005, timedOutAtMs: 60_000, timedOut: 2)]);

        Assert.Equal(Outcome.NotAssessed, finding.Outcome);
        Assert.Contains("2 of 102 requests timed out at 60 s for async", finding.Verdict);
    }

    [Fact]
    public void SleepVerdictAllowsForSyncSleepingTwice()
    {
        // Unloaded, sync takes 2 x the milliseconds and async 1 x: twice async's latency is no starvation.
        const int milliseconds = 100;
        var finding = new SleepExperiment(milliseconds).Assess(
            [Result("sync", 2.0 * milliseconds), Result("taskrun", milliseconds), Result("async", milliseconds)]);

        Assert.Equal(Outcome.NotReproduced, finding.Outcome);
        Assert.StartsWith("Not reproduced: ", finding.Verdict);
    }

    [Theory]
    [InlineData(100, 104, Outcome.Reproduced)]
    [InlineData(100, 180, Outcome.NotReproduced)]
    public void ComputeVerdictComparesThroughput(double syncRequests, double taskRunRequests, Outcome expected)
    {
        var finding = new ComputeExperiment(10_000_000).Assess([Result("sync", 10, syncRequests), Result("taskrun", 10, taskRunRequests)]);

        Assert.Equal(expected, finding.Outcome);
    }

    [Theory]
    [InlineData(6000, Outcome.Reproduced)]
    [InlineData(1200, Outcome.NotReproduced)]
    public void ColdStartVerdictComparesTheWholeBurst(double defaultPoolMaxMs, Outcome expected)
    {
        var finding = new ColdStartExperiment(ColdStartSettings.Defaults).Assess([Result("default-pool", 900, max: defaultPoolMaxMs), Result("min-workers-200", 900, max: 1000)]);

        Assert.Equal(expected, finding.Outcome);
    }

    [Fact]
    public void MissingVariantIsNotAssessed()
    {
        var finding = new FanOutExperiment(FanOutSettings.Defaults with { Strategies = ["threadpool"] }).Assess([Result("threadpool", 3000)]);

        Assert.Equal(Outcome.NotAssessed, finding.Outcome);
        Assert.StartsWith("Not assessed: ", finding.Verdict);
    }

    private static VariantResult Result(string name, double meanMs, double requests = 100, double? max = null, int? cpus = null, double timedOutAtMs = 0, long timedOut = 0)
    {
        var key = new VariantKey(name, cpus);
        var stats = timedOut > 0
            ? TestStats.Of(Enumerable.Repeat(meanMs, (int)requests), timedOut, timedOutAtMs)
            : TestStats.Uniform((long)requests, meanMs, maxMs: max);
        return new VariantResult(key, "/x", "users", 10, [new IntervalRow(key, 10, "users", 40, requests / 10, stats)], [], stats)
        {
            Sent = [new SentSlice(0, (long)requests, meanMs * requests, timedOut, timedOut * timedOutAtMs, 0)],
        };
    }
}
