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
    // Latency and max confirmed, wait to start not reported by these results (inconclusive): partly reproduced, an inconclusive outcome.
    [InlineData(3000, Outcome.Inconclusive)]
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

        // Never "Reproduced" over a claim its figures did not decide: 2 of 3 confirmed is partly reproduced.
        Assert.Equal(Outcome.Inconclusive, finding.Outcome);
        Assert.StartsWith("Partly reproduced: 2 of 3 claims confirmed, 1 inconclusive (wait to start: ", finding.Verdict);
        Assert.Contains("): at 40 users threadpool's", finding.Verdict);
        Assert.EndsWith("Claims: latency under load confirmed, max latency confirmed, wait to start inconclusive.", finding.Verdict);
    }

    [Fact]
    public void TimedOutRequestsMakeTheFanOutVerdictALowerBoundWithTheirCountNeverAPlainMultiple()
    {
        // 25 of 61 threadpool requests answered after 20 s, 36 timed out at 60 s.
        var finding = FanOut.Assess([Result("threadpool", 20_000, requests: 25, timedOutAtMs: 60_000, timedOut: 36) with { MaxQueueWaitMs = 31_010 }, Result("async", 1005)]);

        Assert.Equal(Outcome.Reproduced, finding.Outcome);
        Assert.Contains("at least ", finding.Verdict);
        Assert.Contains("36 of 61 requests timed out at 60 s", finding.Verdict);
        var mean = Assert.Single(finding.Comparisons, c => c.Figure == "threadpool: mean at 40 users / unloaded latency");
        Assert.StartsWith("at least 43.6 x (36 of 61 requests timed out at 60 s: a lower bound)", mean.Today);
        Assert.StartsWith("at least 60 s", Assert.Single(finding.Comparisons, c => c.Figure == "threadpool: max").Today);
        // The longest wait is a lower bound too (the timed-out requests' calls may never have started), in the seed table as in its claim.
        Assert.StartsWith("at least 31.01 s", Assert.Single(finding.Comparisons, c => c.Figure == "threadpool: longest wait for work to start").Today);
        Assert.Contains("longest wait at least 31.01 s", finding.Claims[2].Figure);
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

    [Fact]
    public void TheFanOutLatencyClaimQuotesItsBootstrapCiAndIsConfirmedWhenTheCiClearsTwoX()
    {
        var finding = FanOut.Assess([Requests("threadpool", Spread(3000, 400)), Requests("async", Spread(1005, 10))]);

        var latency = finding.Claims[0];
        Assert.Equal(ClaimVerdict.Confirmed, latency.Verdict);
        var (low, high) = Ends(latency.Interval);
        Assert.InRange(finding.Figure!.Value, low, high);
        Assert.True(low >= Starvation.Ratio && high > low, latency.Interval);
        Assert.Contains("the CI clears the 2 x", latency.Why);
        Assert.Contains(latency.Interval, finding.Verdict);
        Assert.Equal(finding.Claims.All(c => c.Verdict == ClaimVerdict.Confirmed) ? Outcome.Reproduced : Outcome.Inconclusive, finding.Outcome);
        Assert.Equal(finding.Outcome == Outcome.Inconclusive, finding.Partly);
    }

    [Fact]
    public void ACiWhollyBelowTwoXRefutesTheLatencyClaim()
    {
        var finding = FanOut.Assess([Requests("threadpool", Spread(1100, 40)), Requests("async", Spread(1005, 10))]);

        Assert.Equal(ClaimVerdict.Refuted, finding.Claims[0].Verdict);
        Assert.True(Ends(finding.Claims[0].Interval).High < Starvation.Ratio, finding.Claims[0].Interval);
        Assert.Equal(Outcome.NotReproduced, finding.Outcome);
    }

    [Fact]
    public void ACiThatStraddlesTwoXLeavesTheVerdictInconclusiveWhateverTheExtremesSay()
    {
        // Half the threadpool requests at the stub's 1 s, half at 3.1 s: a mean ratio near 2 whose CI reaches both sides.
        var finding = FanOut.Assess([Requests("threadpool", [.. Enumerable.Repeat(1000.0, 8), .. Enumerable.Repeat(3100.0, 8)]), Requests("async", Spread(1005, 10))]);

        var (low, high) = Ends(finding.Claims[0].Interval);
        Assert.True(low < Starvation.Ratio && high > Starvation.Ratio, finding.Claims[0].Interval);
        Assert.Equal(ClaimVerdict.Inconclusive, finding.Claims[0].Verdict);
        Assert.Contains("straddles", finding.Claims[0].Why);
        // The max (3.1 x) clears its line, yet without the verdict figure's claim there is no verdict: partly reproduced at most.
        Assert.Equal(ClaimVerdict.Confirmed, finding.Claims[1].Verdict);
        Assert.Equal(Outcome.Inconclusive, finding.Outcome);
        Assert.StartsWith("Partly reproduced: 1 of 3 claims confirmed, 2 inconclusive (latency under load: ", finding.Verdict);
    }

    [Fact]
    public void TimedOutRequestsMakeTheCisEndsLowerBoundsThatStillConfirmWhenTheyClearTwoX()
    {
        // 25 threadpool requests answered after about 20 s, 36 timed out at 60 s.
        var finding = FanOut.Assess([Requests("threadpool", Spread(20_000, 2000, count: 25), timedOut: 36), Requests("async", Spread(1005, 10))]);

        var latency = finding.Claims[0];
        Assert.EndsWith(", both ends lower bounds", latency.Interval);
        Assert.Contains("= at least ", latency.Figure);
        Assert.Equal(ClaimVerdict.Confirmed, latency.Verdict);
        Assert.Contains("the ratio at least ", finding.Verdict);
    }

    [Fact]
    public void AnAllTimeoutPeakIsALowerBoundAtTheTimeoutNeverANoFigure()
    {
        var finding = FanOut.Assess([Requests("threadpool", [], timedOut: 40), Requests("async", Spread(1005, 10))]);

        var latency = finding.Claims[0];
        Assert.Equal(ClaimVerdict.Confirmed, latency.Verdict);
        var (low, _) = Ends(latency.Interval);
        Assert.True(low >= 59, latency.Interval);
        Assert.EndsWith(", both ends lower bounds", latency.Interval);
    }

    [Fact]
    public void ACiThatClearsTwoXByLessThanACpuSpeedChangeCouldMoveItIsInconclusive()
    {
        // async took 1.8 s for a 1 s stub: 44 % of its latency is not waiting, and a 2x CPU speed change could move that.
        var finding = FanOut.Assess([Requests("threadpool", Spread(4000, 20)), Requests("async", Spread(1800, 10))]);

        var latency = finding.Claims[0];
        Assert.True(Ends(latency.Interval).Low >= Starvation.Ratio, latency.Interval);
        Assert.Equal(ClaimVerdict.Inconclusive, latency.Verdict);
        Assert.Contains("by less than a 2x CPU speed change could move it", latency.Why);
    }

    [Fact]
    public void TooFewRequestsAtPeakGiveNoCiAndNoVerdict()
    {
        var finding = FanOut.Assess([Requests("threadpool", [3000, 3100, 2900]), Requests("async", [1005, 1004, 1006])]);

        Assert.StartsWith("[no 95 % CI: fewer than 6 send slices", finding.Claims[0].Interval);
        Assert.Contains("threadpool sent 3 requests in 3 send slices at 40 users, async 3 in 3", finding.Claims[0].Why);
        Assert.Equal(Outcome.Inconclusive, finding.Outcome);
    }

    [Fact]
    public void TheExtremesHaveNoCiAndAreJudgedOnlyWhenTheyClearTheirLine()
    {
        var below = FanOut.Assess([Requests("threadpool", Spread(1100, 40)), Requests("async", Spread(1005, 10))]);
        var above = FanOut.Assess([Requests("threadpool", Spread(3000, 400)), Requests("async", Spread(1005, 10))]);

        Assert.All(new[] { below.Claims[1], above.Claims[1] }, c => Assert.StartsWith("[no 95 % CI: an extreme has none", c.Interval));
        Assert.Equal(ClaimVerdict.Inconclusive, below.Claims[1].Verdict);
        Assert.Equal(ClaimVerdict.Confirmed, above.Claims[1].Verdict);
    }

    [Fact]
    public void TheFiguresReadTheWholeRampWhereThePeakStepAloneHoldsTooFewRequestsForACi()
    {
        // A 4 -> 40 users ramp of 6 s steps; the starved threadpool sends one request every 1.5 s: 4 in the peak step,
        // too few for a CI, 40 over the ramp (seed 003's mean was its whole test's).
        var threadpool = Ramp("threadpool", sentEverySeconds: 1.5, latencyMs: 40_000);

        var finding = FanOut.Assess([threadpool, Ramp("async", sentEverySeconds: 0.2, latencyMs: 1_005)]);

        Assert.Equal(4, threadpool.Sent.Count(s => s.FromSeconds >= 54));
        Assert.Equal(ClaimVerdict.Confirmed, finding.Claims[0].Verdict);
        Assert.True(Ends(finding.Claims[0].Interval).Low >= Starvation.Ratio, finding.Claims[0].Interval);
        Assert.Single(finding.Comparisons, c => c.Figure == "threadpool: mean over the ramp (4-40 users) / unloaded latency");
        Assert.Contains(": over the ramp (4-40 users) threadpool's", finding.Verdict);
        Assert.StartsWith(finding.Claims.All(c => c.Verdict == ClaimVerdict.Confirmed) ? "Reproduced: " : "Partly reproduced: ", finding.Verdict);
    }

    /// <summary>A 4 -> 40 users ramp in 6 s steps (2 s intervals) and 4 s of draining, one request sent every <paramref name="sentEverySeconds"/>, each answered after <paramref name="latencyMs"/>.</summary>
    private static VariantResult Ramp(string name, double sentEverySeconds, double latencyMs)
    {
        var key = new VariantKey(name);
        var sent = Enumerable.Range(0, (int)(60 / sentEverySeconds))
            .Select(i => new SentSlice(Math.Round(i * sentEverySeconds / LatencyRecorder.SentSliceSeconds) * LatencyRecorder.SentSliceSeconds, 1, latencyMs, 0, 0, 0))
            .ToList();
        var stats = TestStats.Of(Enumerable.Repeat(latencyMs, sent.Count));
        // Two intervals after the load ended, in-flight requests draining, at no load.
        IReadOnlyList<IntervalRow> intervals = [.. Enumerable.Range(1, 32).Select(i => new IntervalRow(key, i * 2, "users", i > 30 ? 0 : 4 + (4 * ((i - 1) / 3)), 1, stats))];
        return new VariantResult(key, "/x", "users", 60, intervals, [], stats) { Sent = sent };
    }

    /// <summary>"[1.2, 3.4]" or "[1.2, 3.4], both ends lower bounds": the CI's ends.</summary>
    private static (double Low, double High) Ends(string interval)
    {
        var ends = interval[1..interval.IndexOf(']', StringComparison.Ordinal)].Split(", ");
        return (double.Parse(ends[0], System.Globalization.CultureInfo.InvariantCulture), double.Parse(ends[1], System.Globalization.CultureInfo.InvariantCulture));
    }

    /// <summary><paramref name="count"/> latencies spread evenly over <paramref name="meanMs"/> +- <paramref name="halfWidthMs"/>.</summary>
    private static double[] Spread(double meanMs, double halfWidthMs, int count = 40) =>
        [.. Enumerable.Range(0, count).Select(i => meanMs - halfWidthMs + (2 * halfWidthMs * i / (count - 1)))];

    /// <summary>A variant whose peak step sent one request per send slice: <paramref name="answeredMs"/>, then <paramref name="timedOut"/> given up at 60 s.</summary>
    private static VariantResult Requests(string name, IReadOnlyList<double> answeredMs, long timedOut = 0)
    {
        var key = new VariantKey(name);
        var stats = TestStats.Of(answeredMs, timedOut, timedOut > 0 ? 60_000 : null);
        return new VariantResult(key, "/x", "users", 20, [new IntervalRow(key, 20, "users", 40, (answeredMs.Count + timedOut) / 20.0, stats)], [], stats)
        {
            Sent = SyntheticReports.OnePerSlice(answeredMs, timedOut, 60_000),
        };
    }

    private static VariantResult Result(string name, double meanMs, double requests = 100, double? max = null, int? cpus = null, double timedOutAtMs = 0, long timedOut = 0)
    {
        var key = new VariantKey(name, cpus);
        var stats = timedOut > 0
            ? TestStats.Of(Enumerable.Repeat(meanMs, (int)requests), timedOut, timedOutAtMs)
            : TestStats.Uniform((long)requests, meanMs, maxMs: max);
        return new VariantResult(key, "/x", "users", 20, [new IntervalRow(key, 20, "users", 40, requests / 20, stats)], [], stats)
        {
            Sent = SyntheticReports.OnePerSlice(Enumerable.Repeat(meanMs, (int)requests), timedOut, timedOutAtMs),
        };
    }
}
