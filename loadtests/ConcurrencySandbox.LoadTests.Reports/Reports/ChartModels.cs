using System.Reflection;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Experiments;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>What the charts of a run say they draw, in their title.</summary>
public static class ChartTitle
{
    /// <summary>
    /// A chart's title: the experiment, the seed it re-runs said in words (not where <paramref name="seedIntroduced"/>, on
    /// a page whose answer already said it), the request(s) sent, and the machine.
    /// </summary>
    public static IReadOnlyList<string> Lines(RunSummary s, bool seedIntroduced = false) =>
    [
        $"{s.Experiment} ({s.Profile})",
        .. !seedIntroduced && SeedReports.Introduce(s.Seed) is { } seed ? [$"re-runs {seed}"] : Array.Empty<string>(),
        RequestPattern([.. s.Variants.Select(v => v.Request)]) is var request && request.StartsWith('/') ? $"GET {request}" : request,
        $"{s.Machine.LogicalCores} logical cores{(s.ApiProcessorCount is { } n ? $", API ProcessorCount {n}" : "")}, {s.Machine.Runtime}, {s.Machine.CpuModel}",
    ];

    /// <summary>The requests as one line: the common start and end, and the parts that differ as {a|b|c}.</summary>
    public static string RequestPattern(IReadOnlyList<string> requests)
    {
        var distinct = requests.Distinct().ToList();
        if (distinct.Count <= 1)
        {
            return distinct.FirstOrDefault() ?? "";
        }
        var prefix = distinct.Aggregate((a, b) => a[..CommonLength(a, b, fromEnd: false)]);
        var rest = distinct.Select(r => r[prefix.Length..]).ToList();
        var suffix = rest.Aggregate((a, b) => a[^CommonLength(a, b, fromEnd: true)..]);
        return $"{prefix}{{{string.Join('|', rest.Select(r => r[..^suffix.Length]))}}}{suffix}";
    }

    private static int CommonLength(string a, string b, bool fromEnd)
    {
        var n = 0;
        while (n < a.Length && n < b.Length && (fromEnd ? a[^(n + 1)] == b[^(n + 1)] : a[n] == b[n]))
        {
            n++;
        }
        return n;
    }
}

/// <summary>The model of a chart drawn from the page's summary that has a title: the title, and the variants it draws (null: every one).</summary>
public sealed record SummaryChart(string Title, IReadOnlyList<string>? Variants = null);

/// <summary>
/// The charts report.html draws from the run's summary.json as the page carries it (<c>Assets/charts.js</c>): every
/// figure they plot is a field of the summary; a chart with a title has a <see cref="SummaryChart"/> for it.
/// </summary>
public static class SummaryCharts
{
    /// <summary>Latency and throughput against the offered load: the variants' curves with their knees, or a capacity search's steps, each held or broke, with the SLO.</summary>
    public const string ResponseCurve = "responseCurve";

    /// <summary>Per variant on shared scales: latency and requests by outcome per interval (a burst's completion timeline and curve), the API's pool with the observer's adjustments; then the load.</summary>
    public const string VariantPanels = "variantPanels";

    /// <summary>Every variant's answered and timed-out requests on a "nines" axis, the timed-out ones dashed at their timeout (a lower bound).</summary>
    public const string LatencyDistribution = "latencyDistribution";

    /// <summary>Every variant's p99 (solid) and p50 (dashed) per interval on one time axis, so strategies compare in one picture.</summary>
    public const string LatencyOverTime = "latencyOverTime";
}

/// <summary>A curve of <c>Charts.distribution</c>: its points on the "nines" axis, the lower bounds among them dashed.</summary>
internal sealed record DistributionCurve(string Name, string Color, IReadOnlyList<SummaryPercentile> Points);

/// <summary>The model of <c>Charts.distribution</c>: <paramref name="Quantity"/> (log) against the percentile of <paramref name="Population"/>.</summary>
internal sealed record DistributionModel(string PanelTitle, string Population, string Quantity, IReadOnlyList<DistributionCurve> Curves)
{
    public const string Kind = "distribution";
}

/// <summary>One bar of <c>Charts.bars</c>: a variant's figure as drawn (0 under its noise, <see cref="Noise.Drawn"/>) and as printed (<see cref="Noise.Amount"/>).</summary>
internal sealed record ChartBar(string Name, string Color, double Value, string Label);

/// <summary>The model of <c>Charts.bars</c>: an experiment's evidence, a bar per variant and the seed's figures as lines.</summary>
internal sealed record BarsModel(string PanelTitle, string Unit, IReadOnlyList<ChartBar> Bars, IReadOnlyList<SummaryNamedValue> SeedLines)
{
    public const string Kind = "bars";

    /// <summary>
    /// An experiment's evidence chart: its bars, a variant's colour each (a matrix's "async@2cpu" in async's), the seed's
    /// figures beside; or its distributions' curves on a "nines" axis of <see cref="SummaryEvidence.Unit"/>'s lateness.
    /// </summary>
    public static (string Kind, object Model) Of(SummaryEvidence chart)
    {
        static string ColorOf(string name) => VariantPalette.ColorOf(name.Split('@')[0]);
        if (chart.Distributions is { Count: > 0 } distributions)
        {
            return (DistributionModel.Kind, new DistributionModel(chart.Title, chart.Unit, "lateness",
                [.. distributions.Select(d => new DistributionCurve(d.Name, ColorOf(d.Name), d.Points))]));
        }
        return (Kind, new BarsModel(chart.Title, chart.Unit,
            [.. chart.Values.Select(v => new ChartBar(v.Name, ColorOf(v.Name), Noise.Drawn(v.Value), Noise.Amount(v.Value, chart.Unit)))],
            chart.SeedLines));
    }
}

/// <summary>
/// The interactive charts' code for a page: the vendored uPlot (MIT, <c>Assets/uPlot.LICENSE</c>), <c>Assets/charts.js</c>
/// and <c>Assets/charts.css</c>, embedded in the runner and inlined into report.html (<see cref="HtmlPage"/>) so it stays
/// one offline file; the live page inlines the same.
/// </summary>
public static class ChartAssets
{
    public static string UPlotJs { get; } = Read("uPlot.iife.min.js");

    public static string ChartsJs { get; } = Read("charts.js");

    /// <summary>uPlot's style and the charts' own, for a page's style element.</summary>
    public static string Styles { get; } = Read("uPlot.min.css") + "\n" + Read("charts.css");

    /// <summary>uPlot and charts.js, for a page's script element.</summary>
    public static string Scripts { get; } = UPlotJs + "\n;\n" + ChartsJs;

    /// <summary>One of the embedded assets (<c>Reports/Assets</c>).</summary>
    public static string Read(string name)
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("ReportAssets." + name)
            ?? throw new InvalidOperationException($"The runner was built without its embedded report asset {name} (Reports/Assets).");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }
}
