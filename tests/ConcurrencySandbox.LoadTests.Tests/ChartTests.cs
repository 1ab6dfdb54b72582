using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

public class ChartTests
{
    [Theory]
    [InlineData(3, 3, 0.5)]
    [InlineData(60, 60, 10)]
    [InlineData(480, 500, 100)]
    [InlineData(37, 40, 10)]
    [InlineData(0.7, 0.8, 0.2)]
    [InlineData(0, 1, 0.2)]
    public void AxisEndsOnARoundStepAtOrAboveTheMaximum(double max, double top, double step)
    {
        var scale = SvgChart.NiceScale(max);

        Assert.Equal(top, scale.Top, 9);
        Assert.Equal(step, scale.Step, 9);
        Assert.True(scale.Ticks.Count() <= 7);
    }

    [Fact]
    public void ChartIsSelfContainedSvgWithEveryDrawnSeriesInTheLegend()
    {
        var svg = SvgChart.Render(["t <&>"], "seconds",
        [
            new ChartPanel("top", new ChartAxis("left"), new ChartAxis("right"),
            [
                new ChartSeries("threadpool mean", [(0, 1), (10, 4)], "#d62728", Axis.Left, Stroke.Solid),
                new ChartSeries("async rps", [(0, 3), (10, 9)], "#1f77b4", Axis.Right, Stroke.Dashed),
            ]),
            new ChartPanel("bottom", new ChartAxis("threads"), null, [new ChartSeries("threads", [(0, 2), (10, 30)], "#2ca02c", Axis.Left, Stroke.Solid)]),
        ]);

        Assert.StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"", svg);
        Assert.Equal(3, Count(svg, "<polyline"));
        Assert.Contains(">threadpool mean</text>", svg);
        Assert.Contains(">async rps</text>", svg);
        Assert.Contains("t &lt;&amp;&gt;", svg);
        Assert.DoesNotContain("<script", svg);
        Assert.DoesNotContain("http://", svg.Replace("http://www.w3.org/2000/svg", ""));
    }

    [Fact]
    public void SeriesWithoutPointsGetsNeitherALineNorALegendEntry()
    {
        var svg = SvgChart.Render(["t"], "s",
        [
            new ChartPanel("pool", new ChartAxis("threads"), null,
            [
                new ChartSeries("threadpool threads", [(0, 2), (10, 30)], "#d62728", Axis.Left, Stroke.Solid),
                new ChartSeries("sync-over-async threads", [], "#ff7f0e", Axis.Left, Stroke.Solid),
                new ChartSeries("gap only", [(3, double.NaN)], "#ff7f0e", Axis.Left, Stroke.Solid),
            ]),
        ]);

        Assert.Equal(1, Count(svg, "class=\"legend\""));
        Assert.Equal(1, Count(svg, "class=\"series\""));
        Assert.DoesNotContain("sync-over-async", svg);
        Assert.DoesNotContain("gap only", svg);
    }

    [Fact]
    public void SinglePointSeriesIsDrawnAsADot()
    {
        var svg = SvgChart.Render(["t"], "s", [new ChartPanel("p", new ChartAxis("y"), null, [new ChartSeries("min-workers-200", [(1.4, 1.37)], "#17becf", Axis.Left, Stroke.Solid)])]);

        Assert.Equal(1, Count(svg, "<circle cx="));
        Assert.Equal(0, Count(svg, "<polyline"));
        Assert.Contains(">min-workers-200</text>", svg);
    }

    [Fact]
    public void ALineBreaksWhereAnIntervalHasNoValue()
    {
        var svg = SvgChart.Render(["t"], "s", [new ChartPanel("p", new ChartAxis("y"), null, [new ChartSeries("p99", [(1, 5), (2, 6), (3, double.NaN), (4, 7), (5, 8)], "#000", Axis.Left, Stroke.Solid)])]);

        Assert.Equal(2, Count(svg, "<polyline"));
    }

    [Fact]
    public void LogAxisHasOneLabelledTickPerDecadeFromBelowTheSmallestToAboveTheLargest()
    {
        var svg = SvgChart.Render(["t"], "s",
        [
            new ChartPanel("latency", new ChartAxis("latency", Log: true, SvgChart.Milliseconds), null,
                [new ChartSeries("async p99", [(1, 1001), (2, 1005)], "#2ca02c", Axis.Left, Stroke.Solid), new ChartSeries("threadpool p99", [(1, 3000), (2, 55000)], "#d62728", Axis.Left, Stroke.Solid)]),
        ]);

        Assert.Equal([1000, 10000, 100000], SvgChart.LogDecades(1001, 55000));
        string[] labels = ["1 s", "10 s", "100 s"];
        Assert.All(labels, label => Assert.Contains($">{label}</text>", svg));
        Assert.Equal(labels.Length, Count(svg, "class=\"tick\""));
    }

    [Fact]
    public void LogAxisLeavesOutValuesThatAreNotPositive()
    {
        var svg = SvgChart.Render(["t"], "s", [new ChartPanel("latency", new ChartAxis("latency", Log: true), null, [new ChartSeries("p50", [(1, 0), (2, 10), (3, 100)], "#000", Axis.Left, Stroke.Solid)])]);

        Assert.Single(Points(svg));
        Assert.Equal(2, Points(svg)[0].Split(' ').Length);
    }

    [Fact]
    public void EachVariantIsDrawnInTheColourItsExperimentDeclares()
    {
        Assert.Equal("#d62728", VariantPalette.ColorOf("threadpool"));
        Assert.Equal("#17becf", VariantPalette.ColorOf("min-workers-64"));
        Assert.Equal("#08519c", VariantPalette.ColorOf(new VariantKey("preallocated", Cpus: 4)));
    }

    [Fact]
    public void NoVariantNameIsDeclaredWithTwoColours()
    {
        var clashes = ExperimentList.All
            .SelectMany(definition => definition.Colors.Select(color => (definition.Name, color)))
            .GroupBy(declared => declared.color.Name, StringComparer.OrdinalIgnoreCase)
            .Where(name => name.Select(declared => declared.color.Color).Distinct(StringComparer.OrdinalIgnoreCase).Count() > 1)
            .Select(name => $"{name.Key}: {string.Join(", ", name.Select(d => $"{d.Name} {d.color.Color}"))}");

        Assert.Empty(clashes);
    }

    [Fact]
    public void AVariantHasTheSameColourInEveryReportAndAtEveryCoreCount()
    {
        var fanout = ReportChart.Render(SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100));
        var reordered = ReportChart.Render(SyntheticReports.LoadRun("fanout", ["async", "threadpool"], 20, 5, (_, _) => 100));

        var asyncColor = VariantPalette.ColorOf("async");
        Assert.Equal(asyncColor, VariantPalette.ColorOf(new VariantKey("async", Cpus: 2)));
        Assert.NotEqual(asyncColor, VariantPalette.ColorOf("threadpool"));
        Assert.Equal(VariantPalette.ColorOf("experimental-x"), VariantPalette.ColorOf("experimental-x"));
        foreach (var svg in new[] { fanout, reordered })
        {
            Assert.Contains($"data-series=\"async p99\"><title>async p99</title><polyline fill=\"none\" stroke=\"{asyncColor}\"", svg);
        }
    }

    [Fact]
    public void LoadRunChartHasLatencyThroughputPoolAndLoadPanelsAndATitleNamingSeedRequestAndMachine()
    {
        var svg = ReportChart.Render(SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100));

        Assert.Equal(4, Count(svg, "class=\"panel\""));
        Assert.Contains(">Seed 003: fanout (quick)</text>", svg);
        Assert.Contains(">GET /api/fanout?strategy={threadpool|async}</text>", svg);
        Assert.Contains(">2 logical cores, API ProcessorCount 2, .NET 10.0.0, Test CPU<", svg);
        string[] series = ["threadpool p99", "threadpool p50", "async p99", "async p50", "threadpool", "async", "threadpool threads", "async queue", "users, every variant"];
        Assert.All(series, name => Assert.Contains($"data-series=\"{name}\"", svg));
    }

    [Fact]
    public void BurstChartDrawsEveryRequestOfEveryVariantAsADot()
    {
        var report = SyntheticReports.Burst(64, new Dictionary<string, int> { ["default-pool"] = 4, ["min-workers-200"] = 64 });

        var svg = ReportChart.Render(report);

        Assert.Equal(128 + 2, Count(svg, "<circle cx="));
        Assert.Contains(">min-workers-200 (64 requests)</text>", svg);
        Assert.Contains("seconds since the burst was sent", svg);
    }

    [Fact]
    public void MatrixChartGetsOnePanelSetPerCoreCountWithTheVariantsLabelled()
    {
        var one = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100, cpus: 1).Variants;
        var two = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100, cpus: 2).Variants;

        var svg = ReportChart.Render(["matrix"], [.. one, .. two]);

        Assert.Contains(">Latency per interval, 1 core(s): p99 solid, p50 dashed (log scale)</text>", svg);
        Assert.Contains(">Latency per interval, 2 core(s): p99 solid, p50 dashed (log scale)</text>", svg);
        Assert.Equal(3 * 2 + 1, Count(svg, "class=\"panel\""));
        Assert.Contains("data-series=\"async@2cpu p99\"", svg);
    }

    [Theory]
    [InlineData(new[] { "/api/sleep/sync?milliseconds=100", "/api/sleep/taskrun?milliseconds=100" }, "/api/sleep/{sync|taskrun}?milliseconds=100")]
    [InlineData(new[] { "/a?x=1", "/a?x=1" }, "/a?x=1")]
    public void RequestPatternKeepsWhatIsCommonAndListsWhatDiffers(string[] requests, string expected)
    {
        Assert.Equal(expected, ReportChart.RequestPattern(requests));
    }

    private static int Count(string text, string what) => text.Split(what).Length - 1;

    private static string[] Points(string svg) =>
        [.. svg.Split("points=\"").Skip(1).Select(p => p[..p.IndexOf('"', StringComparison.Ordinal)])];
}
