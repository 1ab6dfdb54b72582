using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Reports;
using Microsoft.Playwright;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// report.html and the Swagger UI opened in Debian's chromium (driven by Playwright, no browser download): no console
/// error, no request leaving the page, every chart's series drawn with the summary's points on axes that say what they plot, a screenshot kept under
/// TestResults/screenshots. Skipped, with the reason, where chromium is not installed.
/// </summary>
[Trait("Category", "Slow")]
public sealed class BrowserTests(BrowserTests.SharedBrowser shared) : IClassFixture<BrowserTests.SharedBrowser>, IDisposable
{
    public const string Chromium = "/usr/bin/chromium";

    private static readonly string[] ChromiumArgs =
        ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

    private static readonly string Screenshots = Path.GetFullPath(Path.Combine(AppContext.BaseDirectory, "..", "..", "..", "TestResults", "screenshots"));

    private readonly string _out = Path.Combine(Path.GetTempPath(), "loadtests-browser-" + Guid.NewGuid().ToString("N"));
    private readonly List<OpenPage> _pages = [];

    [FactWhenChromiumIsInstalled]
    public async Task ResponseCurveHasAPointPerStepAndVariantShowsValuesOnHoverAndHidesAVariantFromItsButton()
    {
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 ? 90_000 : 100);
        ReportWriter.Write(_out, report, RunnerCommandLine.Format(["fanout", "--profile", "quick"]));
        var page = await OpenAsync(new Uri(Path.Combine(_out, "report.html")).AbsoluteUri);
        // On a loaded machine Playwright can answer before the page's inline scripts ran: wait for both charts.
        await page.Page.WaitForFunctionAsync("() => window.Charts && Charts.instances.length === 4", null, new() { Timeout = 60_000 });
        Assert.Empty(page.ConsoleErrors);

        // Charts.instances[0] is the response curve; its second plot is throughput, one value per step and variant.
        var points = await page.Page.EvaluateAsync<int[]>(
            "() => { const c = Charts.instances[0], u = c.plots[1]; return c.model.variants.map(v => u.data[u.series.findIndex(s => s.label === v.name + ' ok/s')].filter(y => y != null).length); }");
        Assert.Equal(report.Variants.Select(v => v.Steps.Count(s => s.Load > 0)), points);
        var timedOutMarks = await page.Page.EvaluateAsync<int>(
            "() => { const u = Charts.instances[0].plots[0]; return u.data[u.series.findIndex(s => s.label === 'threadpool timed out (at least)')].filter(y => y != null).length; }");
        Assert.True(timedOutMarks > 0, "threadpool's timed-out requests are drawn as lower-bound marks");

        const string legendOf = "() => [...document.querySelectorAll('.chart')[0].querySelectorAll('.u-legend')[0].querySelectorAll('tr')].map(tr => tr.textContent)";
        var before = await page.Page.EvaluateAsync<string[]>(legendOf);
        await page.Page.Locator(".chart .u-over").First.HoverAsync();
        var hovered = await page.Page.EvaluateAsync<string[]>(legendOf);
        Assert.Contains(hovered, row => row.StartsWith("async p99", StringComparison.Ordinal) && row.EndsWith(" ms", StringComparison.Ordinal));
        Assert.NotEqual(before, hovered);

        await page.Page.Locator("button.chart-variant[data-variant='threadpool']").First.ClickAsync();
        var shown = await page.Page.EvaluateAsync<string[]>(
            "() => Charts.instances[0].plots.flatMap(u => u.series.slice(1).filter(s => s.show).map(s => s.label))");
        Assert.DoesNotContain(shown, label => label.StartsWith("threadpool ", StringComparison.Ordinal));
        Assert.Contains("async p99", shown);
        // Wide tables scroll inside themselves: the page is never wider than the window.
        Assert.Empty(await page.OverflowingAsync());
        Assert.Empty(page.ConsoleErrors);
        Assert.Equal([page.Url], page.Requests);
        await page.ScreenshotAsync("response-curve.png");
    }

    [FactWhenChromiumIsInstalled]
    public async Task FindCapacitysCurveDrawsEachStepAtItsLoadWithTheSloAndTheStepThatBrokeIt()
    {
        ReportWriter.Write(_out, CapacityCurveTests.Search(), RunnerCommandLine.Format(["run", "--url", "http://127.0.0.1:5000/x", "--find-capacity"]));
        var page = await OpenAsync(new Uri(Path.Combine(_out, "report.html")).AbsoluteUri);
        await page.Page.WaitForFunctionAsync("() => window.Charts && Charts.instances.length === 3", null, new() { Timeout = 60_000 });

        // The curve first, and no time axis with the steps drawn over each other as variants (the panels below are one per step).
        Assert.Equal(["responseCurve", "variantPanels", "latencyDistribution"], await page.Page.EvaluateAsync<string[]>("() => Charts.instances.map(c => c.el.dataset.chart)"));
        const string valuesOf = "label => { const u = Charts.instances[0].plots[0]; return u.data[u.series.findIndex(s => s.label === label)].filter(y => y != null); }";
        var slo = await page.Page.EvaluateAsync<double[]>(valuesOf, "SLO: p99 \u2264 500 ms");
        var broke = await page.Page.EvaluateAsync<double[]>(valuesOf, "search broke the SLO");
        var loads = await page.Page.EvaluateAsync<double[]>("() => Charts.instances[0].plots[0].data[0]");
        Assert.Equal(new double[] { 500, 500, 500, 500 }, slo);
        Assert.Single(broke);
        Assert.Equal(new double[] { 4, 8, 12, 16 }, loads);
        // Why the step broke it, in the legend at its point: the step's own reason from the summary.
        Assert.Equal(new string?[] { null, null, null, "p99 900 ms" }, await page.Page.EvaluateAsync<string?[]>("() => Charts.instances[0].model.variants[0].broke"));
        Assert.Empty(page.ConsoleErrors);
        Assert.Equal([page.Url], page.Requests);
        await page.ScreenshotAsync("find-capacity-curve.png");
    }

    /// <summary>Every kind of page the runner writes, from synthetic raw results through the one analysis (a real run of each is minutes long).</summary>
    public static TheoryData<string> PageKinds() => ["experiment", "find-capacity", "coldstart", "streaming", "matrix", "run-url", "compare", "stopped-before-first-step", "no-answer"];

    [TheoryWhenChromiumIsInstalled]
    [MemberData(nameof(PageKinds))]
    public async Task EveryPageKindOpensOnItsAnswerFitsTheWindowAndFetchesNothing(string kind)
    {
        var html = WritePage(kind, Path.Combine(_out, kind));
        var page = await OpenAsync(new Uri(html).AbsoluteUri);
        await page.Page.WaitForFunctionAsync("() => document.querySelector('#report h1') !== null", null, new() { Timeout = 60_000 });

        // The first screen (1280 x 900): the title, then the plain answer and the tiles (a matrix's too: per core count and variant).
        var firstScreen = await page.Page.EvaluateAsync<string[]>(
            "() => [...document.querySelectorAll('#report h1, p.answer, p.verdict, .tiles')].filter(e => e.getBoundingClientRect().top < window.innerHeight).map(e => e.tagName.toLowerCase() + '.' + e.className)");
        Assert.Contains("h1.", firstScreen);
        Assert.Contains("p.answer", firstScreen);
        if (kind is not ("compare" or "stopped-before-first-step"))
        {
            Assert.Contains("div.tiles", firstScreen);
        }
        var text = await page.Page.InnerTextAsync("#report");
        Assert.DoesNotContain("**", text, StringComparison.Ordinal);
        if (kind == "no-answer")
        {
            Assert.Contains("no answer", await page.Page.InnerTextAsync(".tile[data-variant='threadpool']"), StringComparison.Ordinal);
        }
        if (kind == "stopped-before-first-step")
        {
            Assert.Contains("stopped before its first step", await page.Page.InnerTextAsync("p.answer"), StringComparison.Ordinal);
        }
        Assert.Empty(await page.OverflowingAsync());
        Assert.Empty(page.ConsoleErrors);
        Assert.Equal([page.Url], page.Requests);
        var png = await page.FirstScreenAsync($"first-screen-{kind}.png");
        Assert.True(DistinctPixelBytes(png) > 16, $"the first screen of {kind} is blank");
    }

    /// <summary>Every committed report.html (docs/results: each run's report and each matrix's page), relative to docs/results.</summary>
    public static TheoryData<string> CommittedPages() => [.. CommittedPageFiles()];

    private static IEnumerable<string> CommittedPageFiles()
    {
        var results = Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results");
        return Directory.GetFiles(results, "report.html", SearchOption.AllDirectories).Select(file => Path.GetRelativePath(results, file)).Order(StringComparer.Ordinal);
    }

    [TheoryWhenChromiumIsInstalled]
    [MemberData(nameof(CommittedPages))]
    public async Task EveryCommittedPageOpensColdOnItsAnswerAt1280PxAndFetchesNothing(string file)
    {
        // Issue 39's "done when", on the pages as committed: opened cold, the first screen answers, nothing is clipped or fetched.
        var page = await OpenAsync(new Uri(Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results", file)).AbsoluteUri);
        await page.Page.WaitForFunctionAsync("() => document.querySelector('#report h1') !== null", null, new() { Timeout = 60_000 });

        var firstScreen = await page.Page.EvaluateAsync<string[]>(
            "() => [...document.querySelectorAll('#report h1, p.answer')].filter(e => e.getBoundingClientRect().bottom < window.innerHeight).map(e => e.tagName.toLowerCase() + '.' + e.className)");
        Assert.Equal(["h1.", "p.answer"], firstScreen);
        // Tiles under the answer, on the first screen: a run's per variant, a matrix's per core count and variant.
        Assert.True(await page.Page.EvaluateAsync<bool>("() => [...document.querySelectorAll('.tiles')].some(e => e.getBoundingClientRect().top < window.innerHeight)"), $"{file}: no tile on the first screen");
        Assert.DoesNotContain("**", await page.Page.InnerTextAsync("#report"), StringComparison.Ordinal);
        Assert.Empty(await page.OverflowingAsync());
        Assert.Empty(page.ConsoleErrors);
        Assert.Equal([page.Url], page.Requests);
        await page.FirstScreenAsync($"committed-{file.Replace(Path.DirectorySeparatorChar, '-')}.png");
    }

    /// <summary>The pages with the panels charts.js draws from a summary or a matrix: generated ones, seeded, and every committed one.</summary>
    public static TheoryData<string> PanelPages() =>
    [
        .. new[] { "experiment", "coldstart", "streaming", "find-capacity", "no-answer" }.Select(kind => $"{Generated}{kind}"),
        .. new[] { 1, 2, 3 }.Select(seed => $"{Generated}matrix-{seed}"),
        .. CommittedPageFiles(),
    ];

    private const string Generated = "generated:";

    /// <summary>Every series of every interactive chart as drawn: the chart's kind and index, the plot, the series' label, its points and largest value, the x axis's label and its own y axis's.</summary>
    private const string DrawnSeriesScript = """
        () => Charts.instances.flatMap((c, ci) => c.plots.flatMap((u, pi) => u.series.slice(1).map((s, si) => {
          const ys = u.data[si + 1].filter(y => y != null);
          return [c.el.dataset.chart, ci, pi, s.label, ys.length, ys.reduce((m, y) => Math.max(m, y), 0), u.axes[0].label, (u.axes.find(a => a.scale === s.scale) || {}).label].join("\t");
        })))
        """;

    private sealed record DrawnSeries(string Chart, int Index, int Plot, string Label, int Points, double Max, string X, string Y);

    [TheoryWhenChromiumIsInstalled]
    [MemberData(nameof(PanelPages))]
    public async Task EveryPanelIsDrawnWithThePointsOfTheSummaryItReadsAndFetchesNothing(string source)
    {
        // The panels the static SVGs drew before charts.js did (chart.svg, distribution.svg, evidence-N.svg, the matrix's), against their figures.
        var html = source.StartsWith(Generated, StringComparison.Ordinal)
            ? PanelPage(source[Generated.Length..], Path.Combine(_out, source[Generated.Length..]))
            : Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results", source);
        var page = await OpenAsync(new Uri(html).AbsoluteUri);
        await page.Page.WaitForFunctionAsync("() => window.Charts && document.querySelectorAll('.chart').length === Charts.instances.length", null, new() { Timeout = 60_000 });
        var drawn = (await page.Page.EvaluateAsync<string[]>(DrawnSeriesScript)).Select(line => line.Split('\t'))
            .Select(f => new DrawnSeries(f[0], int.Parse(f[1], CultureInfo.InvariantCulture), int.Parse(f[2], CultureInfo.InvariantCulture), f[3], int.Parse(f[4], CultureInfo.InvariantCulture), double.Parse(f[5], CultureInfo.InvariantCulture), f[6], f[7])).ToList();
        var summaryJson = await page.Page.EvaluateAsync<string>("() => document.getElementById('summary').textContent");
        Assert.NotEqual("null", summaryJson);
        var summary = RunSummary.Parse(summaryJson);
        DrawnSeries One(string chart, string label, int? plot = null) => Assert.Single(drawn, d => d.Chart == chart && d.Label == label && (plot is null || d.Plot == plot));

        var panels = drawn.Where(d => d.Chart == SummaryCharts.VariantPanels).ToList();
        Assert.Equal(summary.Variants.Count > 0, panels.Count > 0);
        foreach (var v in summary.Variants)
        {
            if (v.LoadUnit == "burst")
            {
                var answered = v.Burst!.Count(r => r.Answered);
                Assert.Equal(answered, One(SummaryCharts.VariantPanels, $"{v.Name} completed").Points);
                Assert.Equal(answered, One(SummaryCharts.VariantPanels, $"{v.Name} served").Max);
            }
            else
            {
                Assert.Equal(v.Intervals.Count(i => i.Completed > 0 && i.P99Ms > 0), One(SummaryCharts.VariantPanels, $"{v.Name} p99").Points);
                Assert.Equal(v.Intervals.Count, One(SummaryCharts.VariantPanels, $"{v.Name} ok").Points);
                var timedOut = panels.SingleOrDefault(d => d.Label == $"{v.Name} timed out");
                Assert.Equal(v.Outcomes.TimedOut > 0, timedOut is not null);
                Assert.True(timedOut is null || timedOut.Max == v.Intervals.Max(i => i.Requests), $"{v.Name}: the timed-out band tops each interval's requests");
            }
            var pool = One(SummaryCharts.VariantPanels, $"{v.Name} threads");
            Assert.Equal(v.Telemetry.Count, pool.Points);
            // Each reason the observer saw, on this variant's pool plot, one mark per adjustment; no other.
            var adjustments = summary.Observations.TryGetValue(v.Name, out var o) ? o.Adjustments : [];
            Assert.Equal(
                adjustments.GroupBy(a => a.Reason).Select(g => $"pool adjustment: {g.Key} x{g.Count()}").Order(StringComparer.Ordinal),
                panels.Where(d => d.Plot == pool.Plot && d.Label.StartsWith("pool adjustment: ", StringComparison.Ordinal)).Select(d => $"{d.Label} x{d.Points}").Order(StringComparer.Ordinal));
        }
        // Each panel's axes say what its series plot: time on x, and on y what the series is (as CommittedResultsTests read chart.svg's).
        // The load axes' labels charts.js writes from the summary's load unit.
        var loadLabel = summary.Variants.Count == 0 ? "" : summary.Variants[0].LoadUnit switch
        {
            "rate" => "arrival rate (req/s)",
            "burst" => "requests sent at once (the burst)",
            var unit => unit,
        };
        foreach (var series in panels)
        {
            Assert.StartsWith("seconds since ", series.X, StringComparison.Ordinal);
            string? expected = series.Label switch
            {
                var l when l.EndsWith(" p99", StringComparison.Ordinal) || l.EndsWith(" p50", StringComparison.Ordinal) => "latency",
                var l when l.EndsWith(" threads", StringComparison.Ordinal) || l.StartsWith("pool adjustment: ", StringComparison.Ordinal) => "pool threads",
                var l when l.EndsWith(" queue", StringComparison.Ordinal) => "queued work items",
                var l when l.EndsWith(" ok", StringComparison.Ordinal) || l.EndsWith(" timed out", StringComparison.Ordinal) || l.Contains(" failed (", StringComparison.Ordinal) => summary.Words.Unit,
                var l when l.EndsWith(", every variant", StringComparison.Ordinal) => loadLabel,
                var l when l.EndsWith(" served", StringComparison.Ordinal) || l.Contains(" given up ", StringComparison.Ordinal) => $"{summary.Words.Unit} so far",
                var l when l.EndsWith(" completed", StringComparison.Ordinal) => "latency (s)",
                _ => null,
            };
            Assert.True(expected is not null && series.Y == expected, $"{source}: \"{series.Label}\" is plotted on an axis labelled \"{series.Y}\", not \"{expected}\"");
        }
        Assert.All(drawn.Where(d => d.Chart == SummaryCharts.ResponseCurve), d => Assert.Equal(loadLabel, d.X));
        foreach (var v in summary.Variants.Where(v => v.Distribution.Count > 0))
        {
            var exact = v.Distribution.Count(p => !p.IsLowerBound && p.Percentile < 100 && p.LatencyMs > 0);
            Assert.Equal(exact, drawn.SingleOrDefault(d => d.Chart == SummaryCharts.LatencyDistribution && d.Label == v.Name)?.Points ?? 0);
            // The lower bounds dashed, joined to the last exact point (at one x with the first bound where the two meet): never drawn as latencies.
            var bounds = v.Distribution.Where(p => p.IsLowerBound && p.Percentile < 100).ToList();
            var joined = bounds.Concat(v.Distribution.Where(p => !p.IsLowerBound && p.Percentile < 100 && p.LatencyMs > 0).TakeLast(1)).Select(p => p.Percentile).Distinct().Count();
            Assert.Equal(bounds.Count == 0 ? 0 : joined, drawn.SingleOrDefault(d => d.Chart == SummaryCharts.LatencyDistribution && d.Label == $"{v.Name}: timed out, at least")?.Points ?? 0);
        }
        Assert.Equal(summary.Variants.Any(v => v.Distribution.Count > 0), drawn.Any(d => d.Chart == SummaryCharts.LatencyDistribution));
        // Every variant on one time axis, where the page has it: each variant's p99 per interval that got an answer.
        foreach (var v in summary.Variants.Where(_ => drawn.Any(d => d.Chart == SummaryCharts.LatencyOverTime)))
        {
            Assert.Equal(v.Intervals.Count(i => i.Completed > 0 && i.P99Ms > 0), One(SummaryCharts.LatencyOverTime, $"{v.Name} p99").Points);
        }

        // The evidence, in the summary's order: a bar per variant at its figure (0 under its noise), or a distribution's curves.
        var evidence = ReportWriter.EvidenceDrawn(summary);
        var evidenceCharts = drawn.Where(d => d.Chart is "bars" or "distribution").GroupBy(d => d.Index).ToList();
        Assert.Equal(evidence.Count, evidenceCharts.Count);
        foreach (var (e, chart) in evidence.Zip(evidenceCharts))
        {
            if (e.Distributions is { Count: > 0 } distributions)
            {
                Assert.All(distributions, d => Assert.Equal(d.Points.Count(p => !p.IsLowerBound && p.Percentile < 100 && p.LatencyMs > 0), chart.SingleOrDefault(s => s.Label == d.Name)?.Points ?? 0));
                continue;
            }
            Assert.Equal(
                e.Values.Select(v => $"{v.Name}: {Noise.Amount(v.Value, e.Unit)} {Noise.Drawn(v.Value).ToString("R", CultureInfo.InvariantCulture)}"),
                chart.Where(s => s.Points == 1).Select(s => $"{s.Label} {s.Max.ToString("R", CultureInfo.InvariantCulture)}"));
            Assert.Equal(e.SeedLines.Select(l => l.Name), chart.Where(s => s.Points > 1).Select(s => s.Label));
        }

        // The matrix's compute sweep: a point or a ring per row of matrix.json, per core count that ran it.
        var matrixJson = Path.Combine(Path.GetDirectoryName(html)!, MatrixFile.FileName);
        var efficiency = drawn.Where(d => d.Chart == EfficiencyModel.Kind).ToList();
        if (File.Exists(matrixJson))
        {
            using var matrix = System.Text.Json.JsonDocument.Parse(File.ReadAllText(matrixJson));
            var sweeps = matrix.RootElement.GetProperty("runs").EnumerateArray().Select(r => r.GetProperty("sweep").GetArrayLength()).Where(n => n > 0).ToList();
            Assert.Equal(sweeps, efficiency.Where(d => d.Label.EndsWith(": median efficiency", StringComparison.Ordinal))
                .Select(d => d.Points + efficiency.Single(r => r.Label == d.Label.Replace(": median efficiency", ": no verdict (ring)", StringComparison.Ordinal)).Points));
        }
        else
        {
            Assert.Empty(efficiency);
        }
        Assert.Empty(page.ConsoleErrors);
        Assert.Equal([page.Url], page.Requests);
        await page.ScreenshotAsync($"panels-{source.Replace(':', '-').Replace(Path.DirectorySeparatorChar, '-')}.png");
    }

    /// <summary>A page of <paramref name="kind"/> as <see cref="WritePage"/> writes it, or "matrix-SEED": a matrix with a seeded sweep (rings among its rows) and fan-out, matrix.json beside.</summary>
    private static string PanelPage(string kind, string folder)
    {
        if (!kind.StartsWith("matrix-", StringComparison.Ordinal))
        {
            return WritePage(kind, folder);
        }
        var random = new Random(int.Parse(kind["matrix-".Length..], CultureInfo.InvariantCulture));
        var cores = Enumerable.Range(1, 1 + random.Next(3)).ToList();
        var runs = cores.Select(cpus => new CoreCountRun(cpus, null, cpus,
            [.. Enumerable.Range(0, 3 + random.Next(6)).Select(k => MatrixTests.Row((long)Math.Pow(10, k + 1), random.NextDouble() * 110 * cpus, 1 + random.Next(60)))], null,
            SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= random.Next(2, 15) ? 90_000 : 100, cpus).Analysed())).ToList();
        SyntheticReports.Matrix(new MatrixOptions(cores, null, ["sweep", "fanout"], 1_000_000_000, 1), 100, folder).Write(runs, null);
        return Path.Combine(folder, "report.html");
    }

    [FactWhenChromiumIsInstalled]
    public async Task TileFiguresKeepOneLineAtDesktopAndPhoneWidthsWithLongLowerBounds()
    {
        // fanout's timed-out variants print "\u2265 60000 / \u2265 60000"; streaming's label is "arrival lateness p50 / p99 (ms)".
        foreach (var kind in new[] { "experiment", "streaming" })
        {
            var page = await OpenAsync(new Uri(WritePage(kind, Path.Combine(_out, kind))).AbsoluteUri);
            foreach (var (width, height) in new[] { (1280, 900), (390, 844) })
            {
                await page.Page.SetViewportSizeAsync(width, height);
                // Each label's and value's box, against its font size: one line is about 1.4 x, two would be 2.8 x.
                var boxes = (await page.Page.EvaluateAsync<string[][]>(
                    "() => [...document.querySelectorAll('.tile dt, .tile dd')].map(e => [e.textContent, String(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).fontSize)), "
                    + "String(e.closest('.tile').getBoundingClientRect().right <= window.innerWidth)])"))
                    .Select(b => new TileBox(b[0], double.Parse(b[1], CultureInfo.InvariantCulture), b[2] == "true")).ToList();
                Assert.NotEmpty(boxes);
                Assert.Contains(boxes, b => b.Text.Contains('\u2265', StringComparison.Ordinal) || b.Text.Contains("lateness", StringComparison.Ordinal));
                Assert.All(boxes, b => Assert.True(b.HeightOverFont < 2, $"{kind} at {width} px: \"{b.Text}\" wraps ({b.HeightOverFont:0.0} x its font size)"));
                Assert.All(boxes, b => Assert.True(b.RightInWindow, $"{kind} at {width} px: the tile of \"{b.Text}\" reaches past the window"));
                await page.FirstScreenAsync($"tiles-{kind}-{width}.png");
            }
        }
    }

    private sealed record TileBox(string Text, double HeightOverFont, bool RightInWindow);

    /// <summary>Writes one page of <paramref name="kind"/> into <paramref name="folder"/>; returns its path.</summary>
    private static string WritePage(string kind, string folder)
    {
        var command = RunnerCommandLine.Format(["fanout", "--profile", "quick"]);
        var timingOut = SyntheticReports.LoadRun("fanout", ["threadpool", "sync-over-async", "dedicated", "async"], 20, 5, (name, t) => name is "threadpool" or "sync-over-async" && t >= 10 ? 90_000 : 100);
        switch (kind)
        {
            case "experiment":
                ReportWriter.Write(folder, timingOut with
                {
                    ExpectedToFail = ["threadpool", "sync-over-async"],
                    Observations = new Dictionary<string, VariantObservation> { ["threadpool"] = SyntheticReports.Observed(SyntheticReports.StarvingAdjustments(starvation: 5, climbing: 4)) },
                }, command);
                break;
            case "find-capacity":
                ReportWriter.Write(folder, CapacityCurveTests.Search(), RunnerCommandLine.Format(["run", "--url", "http://127.0.0.1:5000/x", "--find-capacity"]));
                break;
            case "coldstart":
                ReportWriter.Write(folder, SyntheticReports.Burst(64, new Dictionary<string, int> { ["default-pool"] = 4, ["min-workers-200"] = 64 }), command);
                break;
            case "streaming":
                ReportWriter.Write(folder, SyntheticReports.LoadRun("streaming", ["allocating", "saea-pooled"], 20, 5, (name, _) => name == "allocating" ? 3 : 1.5) with { Seed = "001", Words = ReportWords.Messages }, command);
                break;
            case "run-url":
                ReportWriter.Write(folder, SyntheticReports.LoadRun("run", ["GET /api/orders"], 20, 5, (_, t) => t >= 10 ? 2_000 : 100) with
                {
                    Seed = "none (a user's service)",
                    Headline = "Change **OrdersController.Get** (`Orders.cs:42`): it blocks a pool thread on Task.Result; the service broke at 24 users.",
                }, RunnerCommandLine.Format(["run", "--url", "http://127.0.0.1:5000/api/orders"]));
                break;
            case "matrix":
                Directory.CreateDirectory(folder);
                var runs = new[] { 1, 2 }.Select(cpus => new CoreCountRun(cpus, null, cpus, [], null,
                    SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 / cpus ? 90_000 : 100, cpus).Analysed())).ToList();
                File.WriteAllText(Path.Combine(folder, "report.html"), MatrixRunner.Html(runs, "Hypothesis 3 of seed 004: not judged (no sweep).", SyntheticReports.Matrix(new MatrixOptions([1, 2], null, ["fanout"], 1_000, 1)), null));
                break;
            case "compare":
                ReportWriter.Write(Path.Combine(folder, "a"), timingOut, command);
                ReportWriter.Write(Path.Combine(folder, "b"), SyntheticReports.LoadRun("fanout", ["threadpool", "sync-over-async", "dedicated", "async"], 20, 5, (_, _) => 100), command);
                ReportComparison.Of(Path.Combine(folder, "a"), Path.Combine(folder, "b")).Write(folder);
                return Path.Combine(folder, "compare.html");
            case "stopped-before-first-step":
                ReportWriter.Write(folder, timingOut with { Variants = [], Partial = PartialRun.Describe("threadpool", 0, 10, []) }, command);
                break;
            case "no-answer":
                ReportWriter.Write(folder, SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, _) => name == "threadpool" ? 90_000 : 100), command);
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(kind), kind, "no such page kind");
        }
        return Path.Combine(folder, "report.html");
    }

    /// <summary>How many different byte values a PNG's decompressed scanlines hold: a blank (one-colour) screen has a handful, a page of text and charts far more.</summary>
    private static int DistinctPixelBytes(byte[] png)
    {
        using var idat = new MemoryStream();
        for (var at = 8; at + 8 <= png.Length;)
        {
            var length = System.Buffers.Binary.BinaryPrimitives.ReadInt32BigEndian(png.AsSpan(at));
            if (System.Text.Encoding.ASCII.GetString(png, at + 4, 4) == "IDAT")
            {
                idat.Write(png, at + 8, length);
            }
            at += 12 + length;
        }
        idat.Position = 0;
        using var pixels = new MemoryStream();
        using (var zlib = new System.IO.Compression.ZLibStream(idat, System.IO.Compression.CompressionMode.Decompress))
        {
            zlib.CopyTo(pixels);
        }
        return pixels.ToArray().Distinct().Count();
    }

    [FactWhenChromiumIsInstalled]
    public async Task SwaggerUiRendersItsOperationsFromItsOwnOriginOnly()
    {
        await using var api = await ApiProcess.StartAsync(new ApiLaunch(new Dictionary<string, string>()), CancellationToken.None);
        var page = await OpenAsync(new Uri(api.BaseAddress, "/swagger/index.html").AbsoluteUri);

        await page.Page.WaitForSelectorAsync(".opblock", new() { Timeout = 60_000 });

        Assert.True(await page.Page.Locator(".opblock").CountAsync() > 5);
        Assert.Empty(page.ConsoleErrors);
        var origin = api.BaseAddress.GetLeftPart(UriPartial.Authority);
        Assert.All(page.Requests, url => Assert.StartsWith(origin, url, StringComparison.Ordinal));
        await page.ScreenshotAsync("swagger-ui.png");
    }

    [FactWhenChromiumIsInstalled]
    public async Task LivePageFillsInDuringASmokeRunAndEndsShowingTheReportAndTheSummarysFigures()
    {
        using var runner = CommandRun.Start("dotnet", [typeof(Runner).Assembly.Location, "sleep", "--profile", "smoke", "--milliseconds", "20", "--live", "0", "--out", _out]);
        try
        {
            var address = await LiveAddressAsync(runner);
            var output = runner.StandardOutput.ReadToEndAsync();
            var error = runner.StandardError.ReadToEndAsync();

            var page = await OpenAsync(address, WaitUntilState.Load);
            // An interval arrives while the run still goes: the page fills in as it runs, not at the end.
            await page.Page.WaitForFunctionAsync("() => Object.values(window.live.series).some(s => s.intervals.length > 0) && window.live.ended === null", null, new() { Timeout = 60_000, PollingInterval = 50 });
            // The tiles too, from the intervals, before the run ends.
            await page.Page.WaitForFunctionAsync("() => document.querySelector('#tiles .tile dd') !== null && window.live.ended === null", null, new() { Timeout = 60_000, PollingInterval = 50 });
            await page.Page.WaitForFunctionAsync("() => window.live.ended !== null", null, new() { Timeout = 120_000 });
            await page.Page.FrameLocator("#report").Locator("p.verdict").WaitForAsync(new() { Timeout = 60_000 });

            // A point per step and variant: the steps the report holds (smoke's 2, 4 and 6 users, unless a busy machine's late tick
            // merged two), each in the table and on the response curve.
            var summary = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "summary.json")));
            var steps = summary.Variants.Select(v => v.Steps.Count(step => step.Load > 0)).ToArray();
            Assert.Equal(steps, await page.Page.EvaluateAsync<int[]>("() => window.live.order.map(n => window.live.series[n].steps.filter(s => s.point.load > 0).length)"));
            // The end is summary.json's, not the page's own sums: its answer, and per step the requests sent and timed out as the report counts them.
            await page.Page.Locator("#curve[data-source='summary.json']").WaitForAsync(new() { Timeout = 30_000 });
            Assert.Equal(summary.Answer, await page.Page.Locator("#answer").TextContentAsync());
            // The tiles at the end are the report's: summary.json's figures as ReportWriter words them, its failed and timed out among them.
            await page.Page.Locator("#tiles[data-source='summary.json']").WaitForAsync(new() { Timeout = 30_000 });
            var tiles = await page.Page.EvaluateAsync<string[][]>("() => [...document.querySelectorAll('#tiles .tile')].map(t => [t.dataset.variant, ...[...t.querySelectorAll('dt, dd')].map(e => e.textContent)])");
            Assert.Equal(
                ReportWriter.Tiles(summary).Select(t => (string[])[$"{summary.Experiment}/{t.Name}", .. t.Figures.SelectMany(f => new[] { f.Label, f.Value })]).ToArray(),
                tiles);
            Assert.Equal(
                summary.Variants.Select(v => string.Create(CultureInfo.InvariantCulture, $"{v.Failed} of {v.Requests}|{v.Outcomes.TimedOut}")).ToArray(),
                tiles.Select(t => $"{t[6]}|{t[8]}").ToArray());
            var rows = await page.Page.EvaluateAsync<string[][]>("() => [...document.querySelectorAll('#curve tbody tr')].map(r => [...r.cells].map(c => c.textContent))");
            string[][] expected = [.. summary.Variants.SelectMany(v => v.Steps.Where(step => step.Load > 0).Select(step =>
                new[] { $"{summary.Experiment}/{v.Name}", step.Outcomes.Requests.ToString(CultureInfo.InvariantCulture), step.Outcomes.TimedOut.ToString(CultureInfo.InvariantCulture) }))];
            Assert.Equal(expected, rows.Select(r => new[] { r[0], r[3], r[9] }).ToArray());
            Assert.Equal(steps.Sum(), await page.Page.EvaluateAsync<int>("() => Charts.instances.find(c => c.el.id === 'curve-chart').model.variants.reduce((n, v) => n + v.points.length, 0)"));
            Assert.Equal(new[] { "sleep/sync", "sleep/taskrun", "sleep/async" }, await page.Page.EvaluateAsync<string[]>("() => [...document.querySelectorAll('#curve-chart .chart-variant')].map(b => b.dataset.variant)"));
            Assert.Equal(2, await page.Page.Locator("#curve-chart .uplot").CountAsync());
            // The load axis named by charts.js from the steps' load unit, as report.html's.
            Assert.Equal(new[] { "users", "users" }, await page.Page.EvaluateAsync<string[]>("() => Charts.instances.find(c => c.el.id === 'curve-chart').plots.map(u => u.axes[0].label)"));
            Assert.Equal("finished", await page.Page.EvaluateAsync<string>("() => window.live.ended.outcome"));
            Assert.Empty(page.ConsoleErrors);
            Assert.All(page.Requests, url => Assert.StartsWith(address, url, StringComparison.Ordinal));
            await page.ScreenshotAsync("live-page.png");

            using var exit = new CancellationTokenSource(TimeSpan.FromMinutes(1));
            await runner.WaitForExitAsync(exit.Token);
            Assert.True(runner.ExitCode is CommandLine.ExitOk or CommandLine.ExitThresholdFailed, $"exit {runner.ExitCode}: {await error}\n{await output}");
        }
        finally
        {
            if (!runner.HasExited)
            {
                runner.Kill(entireProcessTree: true);
            }
        }
    }

    /// <summary>
    /// An open load (an arrival rate) on the live page: while it runs, each step's row and the peak-load tile give the load
    /// in requests/s, as the report's rows at the end do, never the summary's unit word "rate" ("20 rate"). Steps of 6 s:
    /// the runner reports every 5 s, and a step's row comes when a full interval at the next load closes it.
    /// </summary>
    [FactWhenChromiumIsInstalled]
    public async Task LivePageGivesAnArrivalRateInRequestsPerSecondWhileTheRunGoes()
    {
        var config = Path.Combine(Directory.CreateDirectory(_out).FullName, "rate.json");
        await File.WriteAllTextAsync(config, """{ "LoadSimulationsSettings": [ { "Inject": [20, "00:00:01", "00:00:06"] }, { "Inject": [40, "00:00:01", "00:00:06"] } ] }""");
        using var runner = CommandRun.Start("dotnet", [typeof(Runner).Assembly.Location, "sleep", "--config", config, "--milliseconds", "20", "--live", "0", "--out", Path.Combine(_out, "rate")]);
        try
        {
            var address = await LiveAddressAsync(runner);
            // Drained, so a full pipe never holds the runner up.
            _ = runner.StandardOutput.ReadToEndAsync();
            _ = runner.StandardError.ReadToEndAsync();
            var page = await OpenAsync(address, WaitUntilState.Load);
            await page.Page.WaitForFunctionAsync("() => document.querySelector('#curve tbody tr') !== null && document.querySelector('#tiles .tile dd') !== null", null, new() { Timeout = 60_000, PollingInterval = 50 });
            var read = await page.Page.EvaluateAsync<string[]>(
                "() => [document.querySelector('#curve tbody tr').cells[1].textContent, [...document.querySelectorAll('#tiles .tile dd')][4].textContent, window.live.ended === null ? 'running' : 'ended']");
            Assert.Equal("running", read[2]);
            // The step's row and the peak-load tile: "20 req/s", not "20 rate".
            Assert.Matches(@"^\d+(\.\d)? req/s$", read[0]);
            Assert.Matches(@"^\d+(\.\d)? req/s$", read[1]);
            Assert.Empty(page.ConsoleErrors);
        }
        finally
        {
            if (!runner.HasExited)
            {
                runner.Kill(entireProcessTree: true);
            }
        }
    }

    /// <summary>The live page's address from the runner's first line ("live: http://127.0.0.1:PORT/ ...").</summary>
    private static async Task<string> LiveAddressAsync(Process runner)
    {
        using var startup = new CancellationTokenSource(TimeSpan.FromMinutes(1));
        var first = await runner.StandardOutput.ReadLineAsync(startup.Token);
        Assert.StartsWith("live: http://127.0.0.1:", first);
        return first!["live: ".Length..].Split(' ')[0];
    }

    private async Task<OpenPage> OpenAsync(string url, WaitUntilState waitUntil = WaitUntilState.NetworkIdle)
    {
        // A context of its own: a fresh profile (no cache, no storage), so every page still opens cold.
        var context = await (await shared.BrowserAsync()).NewContextAsync(new() { ViewportSize = new() { Width = 1280, Height = 900 } });
        var page = await context.NewPageAsync();
        var opened = new OpenPage(context, page, url);
        _pages.Add(opened);
        page.Console += (_, message) =>
        {
            if (message.Type == "error")
            {
                opened.ConsoleErrors.Add(message.Text);
            }
        };
        page.PageError += (_, error) => opened.ConsoleErrors.Add(error);
        page.Request += (_, request) => opened.Requests.Add(request.Url);
        await page.GotoAsync(url, new() { WaitUntil = waitUntil, Timeout = 60_000 });
        return opened;
    }

    private sealed record OpenPage(IBrowserContext Context, IPage Page, string Url)
    {
        public List<string> ConsoleErrors { get; } = [];

        public List<string> Requests { get; } = [];

        /// <summary>The elements that reach past the window's right edge (a table wider than its scrolling box, a chart wider than the page), as "tag.class width"; none when nothing overflows.</summary>
        public async Task<string[]> OverflowingAsync() => await Page.EvaluateAsync<string[]>(
            "() => document.documentElement.scrollWidth <= window.innerWidth ? [] : [...document.querySelectorAll('body *')]"
            + ".filter(e => e.getBoundingClientRect().right > window.innerWidth && !e.closest('.table-box')).map(e => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`).slice(0, 10)");

        /// <summary>The window as a reader first sees it (not the whole page), kept as <paramref name="name"/> under the screenshots; its PNG.</summary>
        public async Task<byte[]> FirstScreenAsync(string name)
        {
            Directory.CreateDirectory(Screenshots);
            return await Page.ScreenshotAsync(new() { Path = Path.Combine(Screenshots, name), FullPage = false });
        }

        public async Task ScreenshotAsync(string name)
        {
            Directory.CreateDirectory(Screenshots);
            await Page.ScreenshotAsync(new() { Path = Path.Combine(Screenshots, name), FullPage = true });
        }
    }

    public void Dispose()
    {
        foreach (var page in _pages)
        {
            page.Context.CloseAsync().GetAwaiter().GetResult();
        }
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }

    /// <summary>
    /// One Playwright driver and one chromium for the class, launched at its first page (not where chromium is missing:
    /// the tests are skipped there): starting both took about 3 s a page, a minute of CI over the class's pages.
    /// </summary>
    public sealed class SharedBrowser : IAsyncLifetime
    {
        private IPlaywright? _playwright;
        private IBrowser? _browser;

        public async Task<IBrowser> BrowserAsync()
        {
            _playwright ??= await Playwright.CreateAsync();
            return _browser ??= await _playwright.Chromium.LaunchAsync(new() { ExecutablePath = Chromium, Args = ChromiumArgs, Headless = true });
        }

        public Task InitializeAsync() => Task.CompletedTask;

        public async Task DisposeAsync()
        {
            if (_browser is not null)
            {
                await _browser.CloseAsync();
            }
            _playwright?.Dispose();
        }
    }
}

/// <summary>A fact that runs only where Debian's chromium is installed at <see cref="BrowserTests.Chromium"/>, and says why when skipped.</summary>
internal sealed class FactWhenChromiumIsInstalledAttribute : FactAttribute
{
    public FactWhenChromiumIsInstalledAttribute() => Skip = NotInstalled;

    /// <summary>Why a browser test is skipped; null where chromium is installed.</summary>
    public static string? NotInstalled => File.Exists(BrowserTests.Chromium) ? null
        : string.Create(CultureInfo.InvariantCulture, $"{BrowserTests.Chromium} is not installed (apt-get install chromium; .ci/run installs it).");
}

/// <summary>A theory that runs only where Debian's chromium is installed, as <see cref="FactWhenChromiumIsInstalledAttribute"/>.</summary>
internal sealed class TheoryWhenChromiumIsInstalledAttribute : TheoryAttribute
{
    public TheoryWhenChromiumIsInstalledAttribute() => Skip = FactWhenChromiumIsInstalledAttribute.NotInstalled;
}
