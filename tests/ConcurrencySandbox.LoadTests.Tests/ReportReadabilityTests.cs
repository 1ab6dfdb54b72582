using ConcurrencySandbox.Contracts.Reports;
using System.Globalization;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>The report fixes of issue 30 (item 5), found by reading the committed reports in chromium.</summary>
public sealed class ReportReadabilityTests : IDisposable
{
    private readonly string _out = Path.Combine(Path.GetTempPath(), "report-readability-" + Guid.NewGuid().ToString("N"));

    [Fact]
    public void StepRowsHoldTheRequestsSentInThemSoTheyAddUpToEveryRequestAndTimeoutsStayInTheirStep()
    {
        // threadpool's requests sent after 10 s time out at 60 s: nothing ends between about 21 s and 70 s, and the last
        // ones end in the partial tail after the last full interval; each is its sending step's, as a lower bound.
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 ? 90_000 : 100);

        var table = ReportWriter.StepTable(report.Analysed());

        Assert.NotNull(table);
        foreach (var variant in report.Variants)
        {
            var rows = table.Rows.Where(r => r[0] == variant.Key.Label).ToList();
            Assert.Equal(variant.Total.Requests, rows.Sum(r => long.Parse(r[3], CultureInfo.InvariantCulture)));
            Assert.DoesNotContain(rows, r => r[3] == "0");
        }
        var late = table.Rows.Where(r => r[0] == "threadpool").Skip(5).ToList();
        Assert.Equal(5, late.Count);
        Assert.All(late, r => Assert.Equal((r[3], "\u2265 60000"), (r[8], r[5])));
        Assert.DoesNotContain(table.Rows, r => r[1].StartsWith("tail", StringComparison.Ordinal) || r[1].StartsWith("0 ", StringComparison.Ordinal));
    }

    [Fact]
    public void EightyStepsAreSummarisedToEveryNthTheKneeAndTheLastWithEveryStepInTheLinkedCsv()
    {
        // 80 steps of 100 users more each, throughput in proportion; p99 10 ms, 50 ms from step 37 (3,700 users): the knee.
        var run = SyntheticReports.LoadRun("streaming", ["allocating"], 20, 5, (_, _) => 1);
        var steps = Enumerable.Range(1, 80).Select(i => new StepRow(i * 100, i - 1, i, TestStats.Uniform(i * 100, i >= 37 ? 50 : 10))).ToList();
        var report = run with { Variants = [run.Variants[0] with { Steps = steps }] };

        ReportWriter.Write(_out, report, "x");

        var table = ReportWriter.StepTable(report.Analysed())!;
        Assert.Equal(["100 users", "900 users", "1,700 users", "2,500 users", "3,300 users", "3,700 users (knee)", "4,100 users", "4,900 users", "5,700 users", "6,500 users", "7,300 users", "8,000 users"],
            table.Rows.Where(r => !r[1].StartsWith("tail", StringComparison.Ordinal)).Select(r => r[1]));
        var markdown = File.ReadAllText(Path.Combine(_out, "summary.md"));
        Assert.Contains("allocating shows 12 of its 80 steps (every 8 steps from the first, the knee and the last); steps.csv holds every step", markdown, StringComparison.Ordinal);
        Assert.Contains("a steps.csv", RenderedPage.LinesOf(Path.Combine(_out, "report.html")));
        var csv = File.ReadAllLines(Path.Combine(_out, ReportWriter.StepsFileName));
        Assert.Equal(1 + 80, csv.Length);
        Assert.Equal("allocating,users,3700,36,37,3700,3700,50,50,0,0", csv[37]);
    }

    [Fact]
    public void AnAllZeroEvidenceChartIsSaidInWordsAndANegativeAmountReadsAsNoDifferenceNotAsAFinding()
    {
        var run = SyntheticReports.LoadRun("streaming", ["allocating", "saea-pooled"], 20, 5, (_, _) => 1) with
        {
            Seed = "001",
            Words = ReportWords.Messages,
            Evidence = [new EvidenceChart("gen0 collections", "", [new("allocating", 0), new("saea-pooled", 0)], []), new EvidenceChart("bytes per message", "B", [new("allocating", 200), new("saea-pooled", -1.377)], [])],
        };
        run = run with
        {
            Variants = [.. run.Variants.Select(v => v with
            {
                Request = "50 TCP clients, 15 ms apart, 128 B every 100 ms",
                Figures = [new VariantFigure("allocated per message, net of idle", v.Key.Name == "allocating" ? 200 : -1.377, "B")],
            })],
        };

        ReportWriter.Write(_out, run, "x");

        var lines = RenderedPage.LinesOf(Path.Combine(_out, "report.html"));
        Assert.Contains("li gen0 collections: 0 for every variant (allocating, saea-pooled), so no chart is drawn.", lines);
        var evidence = Assert.Single(lines, line => line.StartsWith("chart bars ", StringComparison.Ordinal));
        Assert.Contains("\"panelTitle\":\"bytes per message\"", evidence, StringComparison.Ordinal);
        Assert.Contains("td saea-pooled | allocated per message, net of idle | no difference measured (within noise: measured -1.377 B)", lines);
        // The one rule in every place the figure is printed: the table, the evidence chart's label (its bar at 0), summary.md.
        Assert.Contains("\"name\":\"saea-pooled\",\"color\":\"", evidence, StringComparison.Ordinal);
        Assert.Contains("\"value\":0,\"label\":\"no difference measured (within noise: measured -1.377 B)\"", evidence, StringComparison.Ordinal);
        Assert.DoesNotContain("\"label\":\"-1.377", evidence, StringComparison.Ordinal);
        Assert.DoesNotMatch(@"(?<!measured )-1\.377 B", File.ReadAllText(Path.Combine(_out, "summary.md")));
        Assert.Contains("td allocating | allocated per message, net of idle | 200 B", lines);
        // Both variants sent the same request: said once above the per-variant table, not in every row.
        Assert.Contains($"p Every variant's stream: {run.Variants[0].Request}.", lines);
        Assert.DoesNotContain(lines, line => line.StartsWith("td allocating | " + run.Variants[0].Request, StringComparison.Ordinal));
        Assert.Contains("th variant | messages | failed | timed out | arrival lateness mean (ms) | arrival lateness p50 (ms) | arrival lateness p75 (ms) | arrival lateness p95 (ms) | arrival lateness p99 (ms) | arrival lateness p99.9 (ms) | arrival lateness max (ms) | messages/s | arrival lateness p50 / p99 at peak load (ms) | peak threads | peak queue", lines);
    }

    [Fact]
    public void ARunWithNoSeedFigureHasNoSeedSectionToLabel()
    {
        var run = SyntheticReports.LoadRun("run", ["GET /api/orders"], 20, 5, (_, _) => 100);
        ReportWriter.Write(_out, run with { Seed = "none (a user's service)", Finding = run.Finding with { Comparisons = [] } }, "x");

        Assert.DoesNotContain(RenderedPage.LinesOf(Path.Combine(_out, "report.html")), line => line.Contains("beside today", StringComparison.Ordinal));
        Assert.DoesNotContain("beside today", File.ReadAllText(Path.Combine(_out, "summary.md")), StringComparison.Ordinal);
    }

    [Fact]
    public void LongTablesAreFoldedAndShortOnesAreNot()
    {
        var table = new TextTable(["n"], [.. Enumerable.Range(0, 30).Select(i => (IReadOnlyList<string>)[i.ToString(CultureInfo.InvariantCulture)])], new HashSet<int>());

        var folded = new HtmlPage("t").Table(table, foldAbove: 24, summary: "Per step").Blocks.OfType<TableBlock>().Single();
        var open = new HtmlPage("t").Table(table, foldAbove: 30, summary: "Per step").Blocks.OfType<TableBlock>().Single();

        // The template folds a table of more rows than its FoldAbove under "Per step: 30 rows (click to open)".
        Assert.True(folded.Rows.Count > folded.FoldAbove);
        Assert.Equal("Per step", folded.Summary);
        Assert.False(open.Rows.Count > open.FoldAbove);
    }

    [Fact]
    public void ReportHtmlLinksItsFilesAndItsTitleNamesThePeakLoadAndTheApisCores()
    {
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100);
        ReportWriter.Write(_out, report, "x");

        var html = File.ReadAllText(Path.Combine(_out, "report.html"));

        var lines = RenderedPage.Lines(html);
        var linked = lines.Where(line => line.StartsWith("a ", StringComparison.Ordinal)).Select(line => line[2..]).ToList();
        Assert.Contains("curves.csv", linked);
        Assert.Contains("telemetry.csv", linked);
        Assert.Contains(ReportWriter.SummaryFileName, linked);
        Assert.All(linked, file => Assert.True(File.Exists(Path.Combine(_out, file)), $"{file} is linked but not written"));
        Assert.Equal("h1 fanout: threadpool and async compared (quick profile), up to 40 users, API on 2 cores", lines[0]);
        Assert.Contains("<title>fanout: threadpool and async compared (quick profile), up to 40 users, API on 2 cores</title>", html, StringComparison.Ordinal);
    }

    [Fact]
    public void ResponseCurveSvgIsInSummaryMarkdownWithEachVariantsKnee()
    {
        // Steps of 4 s at 15 requests a second: enough requests in each for a knee (ResponseCurve.MinimumRequestsPerStep).
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 40, 15, (name, t) => name == "threadpool" && t >= 20 ? 90_000 : 100);
        ReportWriter.Write(_out, report, "x");

        var md = File.ReadAllText(Path.Combine(_out, "summary.md"));
        var curve = Assert.Single(RenderedPage.LinesOf(Path.Combine(_out, "report.html")), line => line.StartsWith($"chart {SummaryCharts.ResponseCurve} ", StringComparison.Ordinal));

        Assert.Contains($"## Response curve\n\n{HtmlPage.ChartsLink}", md, StringComparison.Ordinal);
        Assert.Contains("- threadpool: knee at ", md, StringComparison.Ordinal);
        // Its figures are the summary's curves (BrowserTests checks them drawn), its model only the title.
        Assert.StartsWith($"chart {SummaryCharts.ResponseCurve} {{\"title\":\"", curve, StringComparison.Ordinal);
        Assert.DoesNotContain("\"variants\"", curve, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(4e-8, "40 ns")]
    [InlineData(8.833e-6, "8.833 us")]
    [InlineData(1.362e-6, "1.362 us")]
    [InlineData(0.00125, "1.25 ms")]
    [InlineData(2.5, "2.5 s")]
    public void SweepDurationsReadInTheirOwnUnitNeverInENotation(double seconds, string expected)
    {
        Assert.Equal(expected, DurationText.Of(seconds));
    }

    [Fact]
    public void Hypothesis3IsDefinedWhereverItIsNamed()
    {
        Assert.StartsWith("Hypothesis 3 of seed 004 (Task.Run brings no gain on one core)", MatrixRunner.Hypothesis3([]), StringComparison.Ordinal);
    }

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }
}
