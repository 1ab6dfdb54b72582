using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Experiments.FanOut;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>Timed-out requests are ranked at their timeout as lower bounds, in the statistics, every table, the chart and summary.json.</summary>
public sealed class CensoredLatencyTests
{
    private const double TimeoutMs = 60_000;

    [Fact]
    public void APercentileWhoseRankFallsAmongTheTimedOutRequestsIsALowerBoundAtTheTimeout()
    {
        // The committed sync-over-async case: 3 answers of 42, 39 timed out at 60 s. Its p50 is no 30 s answer.
        var stats = Recorded(answeredMs: [20_000, 30_261, 40_000], timedOut: 39);

        Assert.Equal(new LatencyFigure(20_000, false), Rounded(stats.Min));
        Assert.Equal(new LatencyFigure(TimeoutMs, true), Rounded(stats.P50));
        Assert.Equal(new LatencyFigure(TimeoutMs, true), Rounded(stats.P99));
        Assert.Equal(new LatencyFigure(TimeoutMs, true), Rounded(stats.Max));
        Assert.True(stats.Mean.IsLowerBound);
        Assert.Equal("\u2265 60000", stats.P50.Format());
    }

    [Fact]
    public void PercentilesBelowTheTimedOutShareStayExact()
    {
        // 90 answers of 100 ms and 10 timeouts: p50 and p75 are answers, p95 and above rank among the timeouts.
        var stats = Recorded([.. Enumerable.Repeat(100.0, 90)], timedOut: 10);

        Assert.Equal(new LatencyFigure(100, false), Rounded(stats.P50));
        Assert.Equal(new LatencyFigure(100, false), Rounded(stats.P75));
        Assert.Equal(new LatencyFigure(TimeoutMs, true), Rounded(stats.P95));
        Assert.Equal(LatencyBounds.Mean | LatencyBounds.P95 | LatencyBounds.P99 | LatencyBounds.P999 | LatencyBounds.Max, stats.LowerBounds);
    }

    [Fact]
    public void AStepInWhichEveryRequestTimedOutIsALowerBoundAndOneWithNoAnswerSaysSoInsteadOfZero()
    {
        var allTimedOut = Recorded([], timedOut: 36);
        var recorder = new LatencyRecorder();
        recorder.Record(3, RequestOutcome.Failed("Connection refused"));
        recorder.TakeInterval();
        var noAnswer = recorder.Total();

        Assert.Equal("\u2265 60000", allTimedOut.P50.Format());
        Assert.True(noAnswer.NoAnswer);
        Assert.Equal(LatencyFigure.None, noAnswer.P99);
        Assert.Equal("no answer", noAnswer.P99.Format());
    }

    [Fact]
    public void TheVariantTableAndTheStepTablePrintLowerBoundsWithTheSign()
    {
        // Every threadpool request takes longer than the 5 s timeout once the load builds: most time out.
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" ? 500 * t : 100, timeoutMs: 5_000);
        var threadpool = report.Variants[0];
        Assert.True(threadpool.Total.P99.IsLowerBound);

        var row = ReportWriter.VariantTable(report.Analysed()).Rows[0];
        Assert.Equal("\u2265 5000", row[9]);
        var steps = ReportWriter.StepTable(report.Analysed())!.Rows.Where(r => r[0] == "threadpool").ToList();
        Assert.Contains(steps, r => r[6] == "\u2265 5000");
        Assert.DoesNotContain(steps, r => r[5] == "0" || r[6] == "0");
    }

    [Fact]
    public void TheDistributionOfAVariantWithFewAnswersSitsAboveOneWithManyAndItsTimeoutsAreDrawnDashed()
    {
        var fewAnswers = LatencyRecorder.DistributionOf(TestStats.Histogram([1_000, 1_000, 1_000]), timedOut: 39, timedOutAtMs: TimeoutMs);
        var manyAnswers = LatencyRecorder.DistributionOf(TestStats.Histogram(Enumerable.Repeat(30_000.0, 40)), timedOut: 2, timedOutAtMs: TimeoutMs);

        static double At(IReadOnlyList<PercentilePoint> points, double percentile) => points.Where(p => p.Percentile <= percentile).MaxBy(p => p.Percentile)!.LatencyMs;
        Assert.True(At(fewAnswers, 50) > At(manyAnswers, 50));
        Assert.All(fewAnswers.Where(p => p.Percentile > 100.0 * 3 / 42), p => Assert.Equal((TimeoutMs, true), (p.LatencyMs, p.IsLowerBound)));

        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" ? 500 * t : 100, timeoutMs: 5_000);
        // What report.html's latency distribution draws dashed, as lower bounds: threadpool's timed-out requests, at their timeout.
        var threadpool = report.Analysed().Variants.Single(v => v.Name == "threadpool");
        Assert.Contains(threadpool.Distribution, p => p.IsLowerBound && p.LatencyMs >= 5_000);
        Assert.DoesNotContain(report.Analysed().Variants.Single(v => v.Name == "async").Distribution, p => p.IsLowerBound);
    }

    [Fact]
    public void SummaryJsonNamesTheLowerBoundsAndStillReadsBack()
    {
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" ? 500 * t : 100, timeoutMs: 5_000);

        var summary = RunSummary.Parse(report.Analysed().ToJson());

        Assert.Contains("p99Ms", summary.Variants[0].LowerBounds!);
        Assert.Contains(summary.Variants[0].Steps, s => s.LowerBounds?.Contains("p99Ms") == true);
        Assert.Null(summary.Variants[1].LowerBounds);
        Assert.DoesNotContain("lowerBounds", (report with { Variants = [report.Variants[1]] }).Analysed().ToJson());
    }

    [Fact]
    public void TheFanOutVerdictAndItsSeedTableQuoteOneFigureForTheMeanOverTheRamp()
    {
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" ? 500 * t : 1_050, timeoutMs: 5_000);

        var finding = new FanOutExperiment(FanOutSettings.Defaults).Assess(report.Variants);

        var mean = Assert.Single(finding.Comparisons, c => c.Figure.StartsWith("threadpool: mean ", StringComparison.Ordinal) && c.Figure.EndsWith(" / unloaded latency", StringComparison.Ordinal));
        Assert.StartsWith("at least ", mean.Today);
        Assert.Contains(mean.Today, finding.Verdict);
        Assert.Equal(["latency under load", "max latency", "wait to start"], finding.Claims.Select(c => c.What));
        // The claim lines carry the latency ratio's 95 % CI (lower bounds here: requests timed out), in summary.md and summary.json alike.
        var latency = finding.Claims[0];
        Assert.Matches(@"^\[\d+\.\d, \d+\.\d\], both ends lower bounds$", latency.Interval);
        var judged = report with { Finding = finding };
        Assert.Contains($"latency under load: {latency.Verdict.ToString().ToLowerInvariant()}: {latency.Figure} {latency.Interval}", ReportWriter.SummaryMarkdown(judged.Analysed()));
        Assert.Equal(latency.Interval, RunSummary.Parse(judged.Analysed().ToJson()).Claims![0].Interval);
    }

    private static LatencyStats Recorded(IReadOnlyList<double> answeredMs, int timedOut)
    {
        var recorder = new LatencyRecorder();
        foreach (var ms in answeredMs)
        {
            recorder.Record(ms, RequestOutcome.Success);
        }
        for (var i = 0; i < timedOut; i++)
        {
            recorder.Record(TimeoutMs, RequestOutcome.TimedOut);
        }
        recorder.TakeInterval();
        return recorder.Total();
    }

    private static LatencyFigure Rounded(LatencyFigure figure) => figure with { Ms = Math.Round(figure.Ms / 100) * 100 };
}
