using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>A --find-capacity report draws latency against the load, one point per step, each step held or broke, with the SLO.</summary>
public sealed class CapacityCurveTests : IDisposable
{
    private readonly string _out = Path.Combine(Path.GetTempPath(), "capacity-" + Guid.NewGuid().ToString("N"));

    /// <summary>A search as run --url runs it: one variant per step, each at one load, in the order bisecting visits them.</summary>
    internal static ExperimentReport Search()
    {
        // 4 and 8 users answer in 100 ms; 16 in 900 ms (over a 500 ms SLO); the search then bisects to 12 (held).
        (string Label, double Users, double Ms)[] steps = [("4-users", 4, 100), ("8-users", 8, 100), ("16-users", 16, 900), ("12-users", 12, 200)];
        var runs = steps.Select(s => SyntheticReports.LoadRun("run", [s.Label], 10, 30, (_, _) => s.Ms).Variants[0])
            .Select((v, i) => v with { Intervals = [.. v.Intervals.Select(row => row with { Load = steps[i].Users })], Steps = [] }).ToList();
        var report = SyntheticReports.Report("run", "none", "find-capacity", runs);
        return report with
        {
            Capacity = new SummaryCapacity("users", 500, "p99 <= 500 ms (given)", 12, 16, "p99 900 ms", null, null, null),
            StepJudgements = steps.ToDictionary(s => s.Label, s => s.Ms > 500 ? new StepJudgement(StepJudgement.Broke, "p99 900 ms") : new StepJudgement(StepJudgement.Held, null)),
        };
    }

    [Fact]
    public void TheCurvesStepsAreEachHeldOrBrokeAgainstTheSloAndItsLineSaysWhere()
    {
        // BrowserTests.FindCapacitysCurve... draws them: the load on x in load order, the SLO, why a step broke it.
        var summary = Search().Analysed();

        Assert.Equal([4.0, 8, 16, 12], summary.Capacity!.Steps!.Select(s => s.Load));
        Assert.Equal([null, null, "p99 900 ms", null], summary.Capacity.Steps!.Select(s => s.BrokeBecause));
        Assert.Equal(500, summary.Capacity.SloP99Ms);
        Assert.Equal(["search: held up to 12 users; broke at 16 users (p99 900 ms)"], ReportWriter.CurveLines(summary));
    }

    [Fact]
    public void TheReportDrawsTheSearchNotItsStepsOnOneTimeAxisWithTheSloAndWhyAStepBrokeIt()
    {
        ReportWriter.Write(_out, Search(), "run --url http://127.0.0.1/x --find-capacity");

        var html = File.ReadAllText(Path.Combine(_out, "report.html"));
        Assert.DoesNotContain("Every variant on one time axis", html);
        Assert.Single(RenderedPage.Lines(html), line => line.StartsWith($"chart {SummaryCharts.ResponseCurve} ", StringComparison.Ordinal));
        Assert.Contains("- search: held up to 12 users; broke at 16 users (p99 900 ms)", File.ReadAllText(Path.Combine(_out, "summary.md")));
    }

    [Fact]
    public void AClimbingStepIsSummedUpOverItsHoldAndTheConsoleSaysTheSameFigures()
    {
        // A 16-user step that climbed for 5 s at 100 ms, then held 16 users for 5 s at 900 ms: judged over the hold, as
        // the headline's figures are, so capacity.steps and the console's closing line must read the hold too.
        var climb = SyntheticReports.LoadRun("run", ["16-users"], 5, 30, (_, _) => 100).Variants[0].Total;
        var hold = SyntheticReports.LoadRun("run", ["16-users"], 5, 30, (_, _) => 900).Variants[0].Total;
        var whole = SyntheticReports.LoadRun("run", ["16-users"], 10, 30, (_, sent) => sent < 5 ? 100 : 900).Variants[0];
        var step = whole with
        {
            Intervals = [.. whole.Intervals.Select(i => i with { Load = i.ElapsedSeconds <= 5 ? 1 : 16 })],
            Steps = [new StepRow(1, 0, 5, climb), new StepRow(16, 5, 10, hold)],
        };
        var report = SyntheticReports.Report("run", "none", "find-capacity", [step]) with
        {
            Capacity = new SummaryCapacity("users", 500, "p99 <= 500 ms (given)", null, 16, "p99 900 ms", null, null, null),
            StepJudgements = new Dictionary<string, StepJudgement> { ["16-users"] = new StepJudgement(StepJudgement.Broke, "p99 900 ms") },
        };

        var summary = report.Analysed();

        var searched = Assert.Single(summary.Capacity!.Steps!);
        Assert.Equal(hold.P50Ms, searched.P50Ms);
        Assert.Equal(hold.P99Ms, searched.P99Ms);
        Assert.Equal(hold.Requests, searched.Requests);
        Assert.Contains(ReportWriter.StepLines(summary), line => line.Contains(
            FormattableString.Invariant($"16-users (search) users=16 sent={hold.Requests} answered={hold.Completed} timedout=0 p50={hold.P50Ms:0.#}ms p99={hold.P99Ms:0.#}ms broke"), StringComparison.Ordinal));
    }

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }
}
