using System.Text.RegularExpressions;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.LoadTests.Tests;

public sealed partial class ReportHtmlTests : IDisposable
{
    private readonly string _out = Path.Combine(Path.GetTempPath(), "report-html-" + Guid.NewGuid().ToString("N"));

    // Inline scripts (the vendored chart code, chart models as JSON) are allowed; a script with a src is not.
    // Links to the report's own files by relative name (href="curves.csv") are followed only when clicked.
    [GeneratedRegex(@"(?:src|xlink:href)\s*=|href\s*=\s*""(?![\w.-]+(?:/[\w.-]+)*"")|url\(|@import|<script(?!>|\s+type=""application/json""(?:\s+id=""\w+"")?>)|<link|<img|<iframe|<object|<embed", RegexOptions.IgnoreCase)]
    private static partial Regex ExternalReference();

    [Fact]
    public void ReportHtmlFetchesNothingAndCarriesItsChartsInline()
    {
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100);
        ReportWriter.Write(_out, report, RunnerCommandLine.Format(["fanout", "--profile", "quick"]));

        var html = File.ReadAllText(Path.Combine(_out, "report.html"));

        Assert.Empty(ExternalReference().Matches(html));
        // uPlot's banner names its home page; nothing else on the page does.
        Assert.DoesNotContain("://", html.Replace(ChartAssets.UPlotJs, "", StringComparison.Ordinal), StringComparison.OrdinalIgnoreCase);
        Assert.Contains(ChartAssets.UPlotJs, html, StringComparison.Ordinal);
        Assert.Contains(ChartAssets.ChartsJs, html, StringComparison.Ordinal);
        Assert.Contains(ChartAssets.Read("report.html")[^300..], html, StringComparison.Ordinal);
        // Its charts are drawn in the page from the summary it carries; no picture is written beside it.
        Assert.Contains($"chart {SummaryCharts.VariantPanels} summary", RenderedPage.Lines(html));
        Assert.Empty(Directory.GetFiles(_out, "*.svg"));
    }

    [Fact]
    public void ReportHtmlPutsTheVerdictFirstThenSeedVariantsThresholdsMachineCommandAndCharts()
    {
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100);
        ReportWriter.Write(_out, report, RunnerCommandLine.Format(["fanout", "--threshold", "async:p99<1200"]));

        var lines = RenderedPage.LinesOf(Path.Combine(_out, "report.html"));

        string[] inOrder = ["p.verdict reproduced Reproduced: synthetic data.", "h2 Seed 003 beside today", "h2 Per variant", "h2 Thresholds", "h2 Machine and run",
            "pre dotnet run -c Release --project loadtests/ConcurrencySandbox.LoadTests -- fanout --threshold 'async:p99<1200'", "h2 Per variant over time", $"chart {SummaryCharts.VariantPanels}"];
        var positions = inOrder.Select(s => lines.ToList().FindIndex(line => line.StartsWith(s, StringComparison.Ordinal))).ToList();
        Assert.All(positions.Zip(inOrder), p => Assert.True(p.First >= 0, $"missing: {p.Second}"));
        Assert.Equal(positions.Order(), positions);
        Assert.True(File.Exists(Path.Combine(_out, "summary.md")));
    }

    [Fact]
    public void ExperimentsOwnFiguresAppearInReportHtml()
    {
        var report = SyntheticReports.LoadRun("receive", ["per-call", "preallocated"], 10, 5, (_, _) => 10);
        report = report with { Variants = [.. report.Variants.Select(v => v with { Figures = [new Engine.VariantFigure("CPU per receive", 1.25, "ms")] })] };
        ReportWriter.Write(_out, report, RunnerCommandLine.Format(["receive"]));

        Assert.Contains("td per-call | CPU per receive | 1.25 ms", RenderedPage.LinesOf(Path.Combine(_out, "report.html")));
    }

    [Fact]
    public void FlaggedCellIsHighlightedInHtmlAndMarkedInMarkdown()
    {
        var flag = FigureChecks.Efficiency("2 cores, 10 cycles: % efficiency", new Estimate(725, 700, 750, 8, 690), cores: 2)!;
        var table = new TextTable(["cycles", "% efficiency"], [["10", $"725 {flag.Mark}"]], new HashSet<int> { 0, 1 });

        Assert.Equal([[0, 1]], table.FlaggedCells());
        Assert.Contains("| 10 | 725 (impossible) |", table.ToMarkdown());
    }

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }
}
