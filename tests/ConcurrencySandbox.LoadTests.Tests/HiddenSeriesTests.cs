using ConcurrencySandbox.Contracts.Reports;
using System.CommandLine;
using System.Text.RegularExpressions;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>Issue 17's drawing rule "no fully hidden series": the checker, the chart layer's remedy, and every chart a report writes.</summary>
public sealed class HiddenSeriesTests : IDisposable
{
    private readonly string _out = Path.Combine(Path.GetTempPath(), "hidden-series-" + Guid.NewGuid().ToString("N"));

    [Fact]
    public void CheckerNamesALineDrawnOneHairUnderAnotherAndOneLyingOnPartOfAnother()
    {
        const string svg = """
            <svg xmlns="http://www.w3.org/2000/svg"><g class="panel">
            <g class="series" data-series="dedicated"><polyline points="80,100 500,50 930,60"/></g>
            <g class="series" data-series="async"><polyline points="80,101 500,51 930,61"/></g>
            <g class="series" data-series="short"><polyline points="290,76 500,50"/></g>
            <g class="series" data-series="apart"><polyline points="80,120 500,70 930,80"/></g>
            </g></svg>
            """;

        var hidden = HiddenSeries.In(svg);

        Assert.Contains("async lies on dedicated", hidden);
        Assert.Contains("dedicated lies on async", hidden);
        Assert.Contains("short lies on dedicated", hidden);
        Assert.DoesNotContain(hidden, h => h.StartsWith("apart", StringComparison.Ordinal) || h.EndsWith("apart", StringComparison.Ordinal));
    }

    [Fact]
    public void CheckerNamesAStackBandThinnerThanThePixelsItNeeds()
    {
        const string svg = """
            <svg xmlns="http://www.w3.org/2000/svg"><g class="panel">
            <g class="series" data-series="timed out"><rect x="80" y="50.2" width="40" height="60"/><rect x="121" y="50" width="40" height="60"/></g>
            <g class="series" data-series="ok"><rect x="80" y="51" width="40" height="59"/><rect x="121" y="50" width="40" height="60"/></g>
            </g></svg>
            """;

        Assert.Contains("timed out lies on ok", HiddenSeries.In(svg));
    }

    [Fact]
    public void TwoEqualLinesAreBothShownTheLaterOnTopInShortDashesWithDiamondsAndANote()
    {
        var svg = OnePanel(
            new ChartSeries("dedicated", [(0, 10), (5, 20), (10, 15)], "#9467bd", Axis.Left, Stroke.Solid),
            new ChartSeries("async", [(0, 10), (5, 20), (10, 15)], "#2ca02c", Axis.Left, Stroke.Solid));

        Assert.Empty(HiddenSeries.In(svg));
        Assert.Contains("<g class=\"lies-on\" data-series=\"async\" data-on=\"dedicated\"", svg);
        Assert.DoesNotContain("data-series=\"dedicated\" data-on=", svg);
        Assert.Contains("async lies on dedicated at every point: drawn on top in short dashes with hollow diamonds", HiddenSeries.Notes(svg));
        Assert.True(svg.IndexOf("class=\"series\" data-series=\"async\"", StringComparison.Ordinal) > svg.IndexOf("class=\"series\" data-series=\"dedicated\"", StringComparison.Ordinal));
        Assert.Contains("stroke-dasharray=\"3 6\"", svg);
    }

    [Fact]
    public void AnEarlierLineLyingOnPartOfALaterOneIsMovedOnTop()
    {
        var svg = OnePanel(
            new ChartSeries("p50", [(4, 12), (6, 12)], "#2ca02c", Axis.Left, Stroke.Dashed),
            new ChartSeries("p99", [(0, 12), (10, 12)], "#2ca02c", Axis.Left, Stroke.Solid));

        Assert.Empty(HiddenSeries.In(svg));
        Assert.Contains("data-series=\"p50\" data-on=\"p99\"", svg);
        Assert.True(svg.IndexOf("class=\"series\" data-series=\"p50\"", StringComparison.Ordinal) > svg.IndexOf("class=\"series\" data-series=\"p99\"", StringComparison.Ordinal));
    }

    [Fact]
    public void SeveralLinesOnOneTakeTurnsWithOffsetDashesAndTheirNoteWrapsInsideTheChart()
    {
        string[] names = ["sync-over-async (101 completed)", "threadpool (51 completed)", "dedicated (101 completed)", "async (101 completed)"];

        var svg = OnePanel([.. names.Select(name => new ChartSeries(name, [(0, 100), (1, 105), (2, 110)], VariantPalette.ColorOf(name.Split(' ')[0]), Axis.Left, Stroke.Solid))]);

        Assert.Empty(HiddenSeries.In(svg));
        Assert.Equal(3, svg.Split("class=\"lies-on\"").Length - 1);
        Assert.Equal(["0", "3", "6"], Regex.Matches(svg, "stroke-dashoffset=\"([^\"]+)\"").Select(m => m.Groups[1].Value).Order());
        var lines = Regex.Matches(svg, "<tspan[^>]*>([^<]*)</tspan>").Select(m => m.Groups[1].Value).ToList();
        Assert.True(lines.Count > 1, "the note of three names is wrapped");
        Assert.All(lines, line => Assert.InRange(line.Length, 1, 130));
        Assert.Contains("threadpool (51 completed), dedicated (101 completed) and async (101 completed) lie on sync-over-async (101 completed) at every point: drawn on top in short dashes with hollow diamonds, taking turns", HiddenSeries.Notes(svg));
    }

    [Fact]
    public void LinesThatPartOnlyHereAndThereAreLeftAlone()
    {
        var svg = OnePanel(
            new ChartSeries("threadpool", [(0, 10), (5, 20), (10, 15)], "#d62728", Axis.Left, Stroke.Solid),
            new ChartSeries("async", [(0, 10), (5, 10), (10, 15)], "#2ca02c", Axis.Left, Stroke.Solid));

        Assert.Empty(HiddenSeries.In(svg));
        Assert.DoesNotContain("lies-on", svg);
        Assert.DoesNotContain("class=\"note\"", svg);
    }

    [Fact]
    public void AStackBandTooThinToSeeIsMarkedOnlyWhereItHasSomething()
    {
        // 1 timed out of 1000 in the third interval: a band of a tenth of a pixel.
        var svg = SvgChart.Render(["t"], "s",
        [
            new ChartPanel("outcomes", new ChartAxis("requests", Counts: true), null,
            [
                new ChartSeries("threadpool timed out", [(1, 1000), (2, 1000), (3, 1000), (4, 1000)], ReportChart.TimedOutColor, Axis.Left, Stroke.Bars),
                new ChartSeries("threadpool ok", [(1, 1000), (2, 1000), (3, 999), (4, 1000)], "#d62728", Axis.Left, Stroke.Bars),
            ], Height: 110),
        ]);

        Assert.Empty(HiddenSeries.In(svg));
        Assert.Contains("<g class=\"lies-on\" data-series=\"threadpool timed out\" data-on=\"threadpool ok\" data-points=\"1\">", svg);
        Assert.Contains("threadpool timed out lies on threadpool ok at every point (too thin to see): marked with hollow diamonds", HiddenSeries.Notes(svg));
    }

    public static TheoryData<string> Experiments => [.. ExperimentList.Names];

    [Theory]
    [MemberData(nameof(Experiments))]
    public void NoChartOfAnExperimentsReportHidesASeriesFully(string name)
    {
        var report = SyntheticRunOf(name);

        ReportWriter.Write(_out, report, RunnerCommandLine.Format([name]));

        var charts = Directory.GetFiles(_out, "*.svg");
        Assert.Contains(charts, c => Path.GetFileName(c) == "chart.svg");
        Assert.All(charts, chart => Assert.Empty(HiddenSeries.In(File.ReadAllText(chart))));
    }

    [Fact]
    public void NoSeriesOfTheMatrixChartsIsFullyHiddenWhenCoreCountsAndSeedCurvesCoincide()
    {
        var one = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100, cpus: 1).Analysed().Variants;
        var two = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100, cpus: 2).Analysed().Variants;
        var seed = new SeedEfficiency(40, 40);
        CoreCountRun[] runs =
        [
            new(1, null, 1, [MatrixTests.Row(1, 40, 2, seed), MatrixTests.Row(1_000, 60, 2, seed), MatrixTests.Row(1_000_000, 95, 2, seed)], null, null),
            new(2, null, 2, [MatrixTests.Row(1, 40, 2, seed), MatrixTests.Row(1_000, 60, 2, seed), MatrixTests.Row(1_000_000, 95, 2, seed)], null, null),
        ];

        var fanOut = ReportChart.Render(["matrix"], [.. one, .. two], new Dictionary<string, SummaryObservation>());
        var efficiency = EfficiencyChart.Render(runs)!;

        Assert.Empty(HiddenSeries.In(fanOut));
        Assert.Empty(HiddenSeries.In(efficiency));
        Assert.Contains("2 cores: median efficiency lies on 1 core: median efficiency at every point: drawn on top in short dashes with hollow diamonds", HiddenSeries.Notes(efficiency));
    }

    [Fact]
    public void NoSeriesOfAnEvidenceChartIsFullyHiddenWhenTwoSeedLinesAgree()
    {
        var svg = ReportChart.Evidence(RunAnalysis.Evidence(new EvidenceChart("Bytes per message", "B",
            [new EvidenceValue("allocating", 243), new EvidenceValue("pipelines", 243)],
            [new EvidenceValue("seed 001: allocating", 243), new EvidenceValue("seed 001: half the heap", 243)])));

        Assert.Empty(HiddenSeries.In(svg));
        Assert.Contains(HiddenSeries.Notes(svg), note => note.StartsWith("seed 001: half the heap lies on seed 001: allocating at every point", StringComparison.Ordinal));
    }

    private static string OnePanel(params ChartSeries[] series) => SvgChart.Render(["t"], "s", [new ChartPanel("p", new ChartAxis("y"), null, series)]);

    /// <summary>
    /// A run of the experiment's own variants (built from its default options) with made-up data shaped to tempt hiding:
    /// every variant equally fast (10 % jitter), so p50 runs close to p99 and the distributions close to each other; the
    /// first variant's requests time out after 10 s, and its pool adjusts.
    /// </summary>
    private static ExperimentReport SyntheticRunOf(string name)
    {
        var definition = ExperimentList.All.Single(d => d.Name == name);
        var command = new RootCommand();
        foreach (var option in definition.Options)
        {
            command.Options.Add(option);
        }
        var experiment = definition.Create(new OptionValues(command.Parse(Array.Empty<string>())));
        var names = experiment.Variants.Select(v => v.Name).ToList();
        var report = name == "coldstart"
            ? SyntheticReports.Burst(64, names.ToDictionary(n => n, _ => 64))
            : SyntheticReports.LoadRun(name, names, 20, 5, (variant, t) => variant == names[0] && t >= 10 ? 90_000 : 100);
        var results = report.Variants.Select(r => r with { Figures = experiment.FiguresOf(r) }).ToList();
        return report with
        {
            Variants = results,
            Evidence = experiment.EvidenceOf(results),
            Observations = new Dictionary<string, VariantObservation> { [names[0]] = SyntheticReports.Observed(SyntheticReports.StarvingAdjustments(5, 4)) },
        };
    }

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }
}
