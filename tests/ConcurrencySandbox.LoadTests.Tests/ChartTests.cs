using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Matrix;
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
    public void LogAxisDrawsZerosOnItsBottomEdgeAndSaysSo()
    {
        var svg = SvgChart.Render(["t"], "s", [new ChartPanel("latency", new ChartAxis("latency", Log: true), null, [new ChartSeries("p50", [(1, 0), (2, 10), (3, 100)], "#000", Axis.Left, Stroke.Solid)])]);
        var withoutZeros = SvgChart.Render(["t"], "s", [new ChartPanel("latency", new ChartAxis("latency", Log: true), null, [new ChartSeries("p50", [(2, 10), (3, 100)], "#000", Axis.Left, Stroke.Solid)])]);

        var points = Assert.Single(Points(svg)).Split(' ');
        Assert.Equal(3, points.Length);
        var bottomEdge = double.Parse(svg.Split("<rect x=\"80\" y=\"")[1].Split('"')[0], System.Globalization.CultureInfo.InvariantCulture) + 240;
        Assert.Equal(bottomEdge, double.Parse(points[0].Split(',')[1], System.Globalization.CultureInfo.InvariantCulture));
        Assert.Contains("values of 0 are drawn on the bottom edge", svg);
        Assert.DoesNotContain("values of 0 are drawn", withoutZeros);
    }

    [Theory]
    [InlineData(0.4, 1)]
    [InlineData(3, 3)]
    [InlineData(8, 8)]
    [InlineData(37, 40)]
    public void CountAxesStepByWholeNumbers(double max, double top)
    {
        var scale = SvgChart.NiceScale(max, counts: true);

        Assert.Equal(top, scale.Top);
        Assert.All(scale.Ticks, tick => Assert.Equal(Math.Floor(tick), tick));
    }

    [Fact]
    public void NoSeriesIsFullyHiddenEachVariantGetsItsOwnPanelsOnSharedScales()
    {
        // async is 10 times faster than threadpool; one shares its p50 and p99 exactly (every request takes 100 ms).
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, _) => name == "threadpool" ? 1000 : 100);

        var panels = ReportChart.Render(report.Analysed()).Split("<g class=\"panel\">").Skip(1).ToList();

        var latencyPanels = panels.Where(p => p.Contains("latency of the requests completed", StringComparison.Ordinal)).ToList();
        Assert.Equal(2, latencyPanels.Count);
        Assert.All(latencyPanels, p => Assert.Single(new[] { "threadpool", "async" }, v => p.Contains($"data-series=\"{v} p99\"", StringComparison.Ordinal)));
        Assert.Equal(TickLabels(latencyPanels[0]), TickLabels(latencyPanels[1]));
        // Dashed p50 is drawn after solid p99, so where they coincide the dashes still show.
        Assert.True(latencyPanels[1].IndexOf("async p50", StringComparison.Ordinal) > latencyPanels[1].IndexOf("async p99", StringComparison.Ordinal));
    }

    [Fact]
    public void TimedOutRequestsAreTheirOwnBandDrawnBeforeTheOkBandAndNeverAsLatencies()
    {
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 ? 90_000 : 100);

        var svg = ReportChart.Render(report.Analysed());

        var timedOut = svg.IndexOf("data-series=\"threadpool timed out\"", StringComparison.Ordinal);
        Assert.True(timedOut > 0 && timedOut < svg.IndexOf("data-series=\"threadpool ok\"", StringComparison.Ordinal));
        Assert.Contains($"data-color=\"{ReportChart.TimedOutColor}\"", svg);
        Assert.DoesNotContain("data-series=\"async timed out\"", svg);
        Assert.DoesNotContain(">1 min<", svg);
        Assert.DoesNotContain(">100 s<", svg);
    }

    [Fact]
    public void PartialTailIntervalIsLeftOutOfTheAppliedLoadLine()
    {
        var report = SyntheticReports.LoadRun("fanout", ["async"], 20, 5, (_, _) => 100);
        var full = report.Variants[0].Intervals.Count(i => !i.Partial);

        var svg = ReportChart.Render(report.Analysed());

        Assert.Contains(report.Variants[0].Intervals, i => i.Partial);
        Assert.Contains($"data-series=\"users, every variant\" data-points=\"{full}\"", svg);
    }

    [Fact]
    public void ChartsAreOneThousandPixelsWideWithNoTextSmallerThanTwelvePixels()
    {
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100);

        foreach (var svg in new[] { ReportChart.Render(report.Analysed()), ReportChart.Distribution(["t"], report.Analysed().Variants)! })
        {
            Assert.StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\"", svg);
            Assert.All(svg.Split("font-size=\"").Skip(1).Select(f => int.Parse(f[..f.IndexOf('"', StringComparison.Ordinal)], System.Globalization.CultureInfo.InvariantCulture)), size => Assert.True(size >= 12));
        }
    }

    [Fact]
    public void DistributionChartPutsTheNinesOnItsXAxis()
    {
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 50, (_, _) => 100);

        var svg = ReportChart.Distribution(["t"], report.Analysed().Variants)!;

        Assert.Contains(">90 %</text>", svg);
        Assert.Contains(">99 %</text>", svg);
        Assert.Contains($"data-series=\"async ({CountText.Of(report.Variants[1].Total.Completed)} answered, {CountText.Of(report.Variants[1].Total.TimedOut)} timed out)\"", svg);
        Assert.Null(ReportChart.Distribution(["t"], [report.Analysed().Variants[0] with { Distribution = [] }]));
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
    public void EverySeriesOfARunHasItsOwnColourAndACapacitySearchsStepsASequentialScaleByLoad()
    {
        // Nine undeclared names over the palette's eight colours for names it does not know: two would share one.
        string[] names = [.. Enumerable.Range(1, 9).Select(i => $"step-{i}")];
        Assert.True(names.Select(VariantPalette.ColorOf).Distinct().Count() < names.Length);

        var colors = VariantPalette.OfRun([.. names.Select(name => (name, (double?)null))]);
        Assert.Equal(names.Length, colors.Distinct(StringComparer.OrdinalIgnoreCase).Count());
        Assert.Equal(VariantPalette.ColorOf(names[0]), colors[0]);

        // A capacity search's steps in the order it ran them: each load its own blue, darker as the load rises.
        var search = CapacityCurveTests.Search().Analysed().Variants;
        var byLoad = search.OrderBy(v => v.PeakLoad).Select(v => Convert.ToInt32(v.Color[1..3], 16) + Convert.ToInt32(v.Color[3..5], 16) + Convert.ToInt32(v.Color[5..7], 16)).ToList();
        Assert.Equal(search.Count, search.Select(v => v.Color).Distinct().Count());
        Assert.Equal(byLoad.OrderDescending(), byLoad);
    }

    [Fact]
    public void AVariantHasTheSameColourInEveryReportAndAtEveryCoreCount()
    {
        var fanout = ReportChart.Render(SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100).Analysed());
        var reordered = ReportChart.Render(SyntheticReports.LoadRun("fanout", ["async", "threadpool"], 20, 5, (_, _) => 100).Analysed());

        var asyncColor = VariantPalette.ColorOf("async");
        Assert.Equal(asyncColor, VariantPalette.ColorOf(new VariantKey("async", Cpus: 2)));
        Assert.NotEqual(asyncColor, VariantPalette.ColorOf("threadpool"));
        Assert.Equal(VariantPalette.ColorOf("experimental-x"), VariantPalette.ColorOf("experimental-x"));
        foreach (var svg in new[] { fanout, reordered })
        {
            Assert.Contains($"data-series=\"async p99\" data-points=\"21\" data-color=\"{asyncColor}\"><title>async p99</title><polyline fill=\"none\" stroke=\"{asyncColor}\"", svg);
        }
    }

    [Fact]
    public void LoadRunChartHasLatencyOutcomesAndPoolPanelsPerVariantThenTheLoadAndATitleNamingSeedRequestAndMachine()
    {
        var svg = ReportChart.Render(SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100).Analysed());

        Assert.Equal(3 * 2 + 1, Count(svg, "class=\"panel\""));
        Assert.Contains(">fanout (quick)</text>", svg);
        Assert.Contains(">re-runs seed 003, a 2006 report on fanning out on the ThreadPool (&quot;More fun with Thread Pools&quot;)</text>", svg);
        Assert.DoesNotContain("Seed 003:", svg);
        Assert.Contains(">GET /api/fanout?strategy={threadpool|async}</text>", svg);
        Assert.Contains(">2 logical cores, API ProcessorCount 2, .NET 10.0.0, Test CPU<", svg);
        string[] series = ["threadpool p99", "threadpool p50", "async p99", "async p50", "threadpool ok", "async ok", "threadpool threads", "async queue", "users, every variant"];
        Assert.All(series, name => Assert.Contains($"data-series=\"{name}\"", svg));
    }

    [Fact]
    public void BurstChartDrawsEveryRequestOfEveryVariantAsADot()
    {
        var report = SyntheticReports.Burst(64, new Dictionary<string, int> { ["default-pool"] = 4, ["min-workers-200"] = 64 });

        var svg = ReportChart.Render(report.Analysed());

        Assert.Equal(128 + 2, Count(svg, "<circle cx="));
        Assert.Contains(">min-workers-200 (64 completed)</text>", svg);
        Assert.Contains("seconds since the burst was sent", svg);
    }

    [Fact]
    public void MatrixChartGetsOnePanelSetPerCoreCountWithTheVariantsLabelled()
    {
        var one = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100, cpus: 1).Analysed().Variants;
        var two = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100, cpus: 2).Analysed().Variants;

        var svg = ReportChart.Render(["matrix"], [.. one, .. two], new Dictionary<string, SummaryObservation>());

        Assert.Contains(">threadpool@1cpu: latency of the requests completed per interval, p99 solid, p50 dashed (log scale, shared by every variant)</text>", svg);
        Assert.Contains(">async@2cpu: latency of the requests completed per interval, p99 solid, p50 dashed (log scale, shared by every variant)</text>", svg);
        Assert.Equal(3 * 4 + 1, Count(svg, "class=\"panel\""));
        Assert.Contains("data-series=\"async@2cpu p99\"", svg);
    }

    [Fact]
    public void LogXAxisPutsOneTickPerDecadeAtEvenSpacing()
    {
        var svg = SvgChart.Render(["t"], new ChartAxis("cycles", Log: true),
            [new ChartPanel("p", new ChartAxis("y"), null, [new ChartSeries("s", [(2, 1), (80, 2)], "#1f77b4", Axis.Left, Stroke.Solid)])]);

        // 80 px left margin, 850 px plot: the decades 1, 10 and 100 at its start, middle and end.
        Assert.Contains("class=\"x-tick\" x=\"80\" y=", svg);
        Assert.Contains("class=\"x-tick\" x=\"505\" y=", svg);
        Assert.Contains("class=\"x-tick\" x=\"930\" y=", svg);
        Assert.Equal(3, Count(svg, "class=\"x-tick\""));
    }

    [Fact]
    public void EfficiencyChartDrawsEveryCoreCountOnOneLogCyclesAxisWithSeed004sCurvesAndTheLimits()
    {
        var seedAtOne = new SeedEfficiency(26, 29);
        var seedAtMillion = new SeedEfficiency(94, 92);
        CoreCountRun[] runs =
        [
            new(1, null, 1, [MatrixTests.Row(1, 30, 2, seedAtOne), MatrixTests.Row(1_000, 60, 2), MatrixTests.Row(1_000_000, 95, 2, seedAtMillion)], null, null),
            new(2, null, 2, [MatrixTests.Row(1, 28, 2, seedAtOne), MatrixTests.Row(1_000, 90, 2), MatrixTests.Row(1_000_000, 180, 2, seedAtMillion)], null, null),
            new(4, "no such cores", null, [], null, null),
        ];

        var svg = EfficiencyChart.Render(runs)!;

        Assert.Equal(1, Count(svg, "class=\"panel\"")); // one y axis for every core count
        Assert.Contains("data-series=\"1 core: median efficiency\" data-points=\"3\"", svg);
        Assert.Contains("data-series=\"2 cores: median efficiency\" data-points=\"3\"", svg);
        Assert.Contains("data-series=\"seed 004, 4 cores (2015)\" data-points=\"2\"", svg);
        Assert.Contains("data-series=\"seed 004, 1 core (2015)\" data-points=\"2\"", svg);
        Assert.Contains("data-series=\"limit 100 % (the most 1 core gives)\" data-points=\"2\"", svg);
        Assert.Contains("data-series=\"limit 2 x 100 % (the most 2 cores give)\" data-points=\"2\"", svg);
        Assert.DoesNotContain("limit 4 x 100 %", svg); // the skipped core count has no limit line
        Assert.Contains(">1,000,000</text>", svg);
        Assert.Contains(">cycles of work per unit (log scale)</text>", svg);
        Assert.Equal(7, Count(svg, "class=\"x-tick\"")); // 1, 10, ..., 1,000,000: one tick per decade
    }

    [Fact]
    public void InconclusiveOrImpossibleSweepCellIsAHollowRingAndNeverAPointOfTheLine()
    {
        CoreCountRun[] runs =
        [
            new(1, null, 1, [MatrixTests.Row(1, 30, 2), MatrixTests.Row(1_000, 60, 30), MatrixTests.Row(1_000_000, 180, 2)], null, null),
        ];

        var svg = EfficiencyChart.Render(runs)!;

        // 1,000 cycles is inconclusive (+-30 % against a 5 % target), 180 % on one core is impossible.
        Assert.Contains("data-series=\"1 core: median efficiency\" data-points=\"1\"", svg);
        Assert.Contains("data-series=\"1 core: no verdict (ring)\" data-points=\"2\"", svg);
        Assert.Equal(2 + 1, Count(svg, "fill=\"white\" stroke=\"#1f77b4\"")); // two rings and the legend's swatch
    }

    [Fact]
    public void EfficiencyLinePassesARingWithoutBreakingAndEveryRowHasItsCiWhisker()
    {
        CoreCountRun[] runs =
        [
            new(2, null, 2, [MatrixTests.Row(1, 30, 2), MatrixTests.Row(1_000, 60, 30), MatrixTests.Row(1_000_000, 180, 2)], null, null),
        ];

        var svg = EfficiencyChart.Render(runs)!;

        // 1,000 cycles is inconclusive (+-30 %): a ring, and the line goes from 1 to 1,000,000 cycles in one stroke.
        var line = SeriesGroup(svg, "2 cores: median efficiency");
        Assert.Contains("data-points=\"2\"", line);
        Assert.Equal(1, Count(line, "<polyline"));
        Assert.Contains("data-points=\"1\"", SeriesGroup(svg, "2 cores: no verdict (ring)"));
        // A capped whisker per row, the ring's too (the table prints every row's CI), however short: never "lying on" the line.
        var whiskers = SeriesGroup(svg, "2 cores: 95 % CI (whiskers)");
        Assert.Contains("data-points=\"6\"", whiskers);
        Assert.Equal(3, Count(whiskers, "<path d=\"M"));
        Assert.DoesNotContain("lies on", string.Join(" ", HiddenSeries.Notes(svg)), StringComparison.Ordinal);
    }

    [Fact]
    public void EfficiencyFootnoteNamesWhatIsDrawnAndOnlyThat()
    {
        var svg = EfficiencyChart.Render([new(2, null, 2, [MatrixTests.Row(1, 30, 2), MatrixTests.Row(1_000, 60, 30), MatrixTests.Row(1_000_000, 90, 2)], null, null)])!;

        // Each clause of the footnote is under the title, and each names a mark the chart draws.
        foreach (var clause in EfficiencyChart.Footnote.Split("; "))
        {
            Assert.Contains(clause.Split('\'')[0], svg, StringComparison.Ordinal);
        }
        Assert.StartsWith("solid lines: ", EfficiencyChart.Footnote, StringComparison.Ordinal);
        Assert.Contains("; capped whiskers: each row", EfficiencyChart.Footnote, StringComparison.Ordinal);
        Assert.Contains("; hollow rings: ", EfficiencyChart.Footnote, StringComparison.Ordinal);
        Assert.Contains("stroke-width=\"2.5\"", SeriesGroup(svg, "2 cores: median efficiency"));
        Assert.DoesNotContain("left out of the lines", svg);
        Assert.Contains("H", SeriesGroup(svg, "2 cores: 95 % CI (whiskers)").Split("<path d=\"")[1].Split('"')[0], StringComparison.Ordinal);
        Assert.Contains("fill=\"white\"", SeriesGroup(svg, "2 cores: no verdict (ring)"));
    }

    private static string SeriesGroup(string svg, string series)
    {
        var start = svg.IndexOf($"data-series=\"{series}\"", StringComparison.Ordinal);
        Assert.True(start >= 0, $"no series '{series}'");
        return svg[start..svg.IndexOf("</g>", start, StringComparison.Ordinal)];
    }

    [Fact]
    public void EfficiencyChartIsLeftOutWhenNoCoreCountRanTheSweep() =>
        Assert.Null(EfficiencyChart.Render([new CoreCountRun(1, "no taskset", null, [], null, null)]));

    [Theory]
    [InlineData(new[] { "/api/sleep/sync?milliseconds=100", "/api/sleep/taskrun?milliseconds=100" }, "/api/sleep/{sync|taskrun}?milliseconds=100")]
    [InlineData(new[] { "/a?x=1", "/a?x=1" }, "/a?x=1")]
    public void RequestPatternKeepsWhatIsCommonAndListsWhatDiffers(string[] requests, string expected)
    {
        Assert.Equal(expected, ReportChart.RequestPattern(requests));
    }

    private static List<string> TickLabels(string panel) =>
        [.. panel.Split("class=\"tick\"").Skip(1).Select(t => t[(t.IndexOf('>', StringComparison.Ordinal) + 1)..t.IndexOf('<', StringComparison.Ordinal)])];

    private static int Count(string text, string what) => text.Split(what).Length - 1;

    private static string[] Points(string svg) =>
        [.. svg.Split(" points=\"").Skip(1).Select(p => p[..p.IndexOf('"', StringComparison.Ordinal)])];
}
