using System.Reflection;
using System.Text.Json;
using ConcurrencySandbox.Contracts.Reports;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>A variant as the interactive charts name and colour it (its button that shows or hides all its series).</summary>
internal sealed record ChartVariant(string Name, string Color);

/// <summary>One variant's response curve as <c>Charts.responseCurve</c> draws it: its points and its knee (the point's index).</summary>
public sealed record ChartCurve(string Name, string Color, IReadOnlyList<SummaryCurvePoint> Points, Knee? Knee, string Line);

/// <summary>The model of <c>Charts.responseCurve</c> in <c>Assets/charts.js</c>: every variant's curve against one load axis.</summary>
public sealed record ResponseCurveModel(string Title, string LoadLabel, string LoadUnit, IReadOnlyList<ChartCurve> Variants)
{
    public const string Kind = "responseCurve";

    /// <summary>The summary's response curves; null when no variant ran a stepped load (nothing to draw).</summary>
    public static ResponseCurveModel? Of(string title, IReadOnlyList<SummaryVariant> variants)
    {
        var curved = variants.Where(v => v.Curve is not null).ToList();
        if (curved.Count == 0)
        {
            return null;
        }
        var unit = curved[0].LoadUnit;
        return new ResponseCurveModel(title, ReportChart.LoadLabel(unit), ResponseCurve.UnitOf(unit),
            [.. curved.Select(v => new ChartCurve(v.Name, v.Color, v.Curve!.Points, v.Curve.Knee is { } k ? new Knee(k.Point, k.Reason) : null, v.Curve.Line))]);
    }
}

/// <summary>One line of a <see cref="TimeSeriesModel"/>: (x, y) points, y null for a gap (an interval without an answer).</summary>
internal sealed record TimeSeriesLine(string Name, string Variant, string Color, bool Dashed, IReadOnlyList<double?[]> Points);

/// <summary>The model of <c>Charts.timeSeries</c>: every variant's lines on one time axis.</summary>
internal sealed record TimeSeriesModel(string Title, string PanelTitle, string XLabel, string YLabel, string Unit, bool Log, IReadOnlyList<ChartVariant> Variants, IReadOnlyList<TimeSeriesLine> Series)
{
    public const string Kind = "timeSeries";

    /// <summary>
    /// Every variant's p99 (solid) and p50 (dashed) per reporting interval on one time axis, so strategies compare in one
    /// picture; an interval without an answered request is a gap. Null when no variant has intervals.
    /// </summary>
    public static TimeSeriesModel? LatencyOverTime(string title, IReadOnlyList<SummaryVariant> variants)
    {
        if (variants.All(v => v.Intervals.Count == 0))
        {
            return null;
        }
        double?[] At(SummaryInterval i, Func<SummaryInterval, double> value) => [i.ElapsedSeconds, i.Completed > 0 ? value(i) : null];
        return new TimeSeriesModel(
            title,
            "Every variant's latency per interval on one time axis: p99 solid, p50 dashed (log scale)",
            "seconds since the variant started (variants run one after another)",
            "latency",
            "ms",
            Log: true,
            [.. variants.Select(v => new ChartVariant(v.Name, v.Color))],
            [.. variants.SelectMany(v => new[]
            {
                new TimeSeriesLine($"{v.Name} p99", v.Name, v.Color, false, [.. v.Intervals.Select(i => At(i, s => s.P99Ms))]),
                new TimeSeriesLine($"{v.Name} p50", v.Name, v.Color, true, [.. v.Intervals.Select(i => At(i, s => s.P50Ms))]),
            })]);
    }
}

/// <summary>
/// The interactive charts' code and models for a page: the vendored uPlot (MIT, <c>Assets/uPlot.LICENSE</c>) and
/// <c>Assets/charts.js</c>, embedded in the runner and inlined into report.html so it stays one offline file; the live
/// page serves the same.
/// </summary>
public static class ChartAssets
{
    private static readonly JsonSerializerOptions ModelJson = new(JsonSerializerDefaults.Web);

    public static string UPlotJs { get; } = Read("uPlot.iife.min.js");

    public static string UPlotCss { get; } = Read("uPlot.min.css");

    public static string ChartsJs { get; } = Read("charts.js");

    /// <summary>
    /// A model as JSON safe inside an inline script element: the default encoder writes &lt;, &gt; and &amp; as \u escapes,
    /// so no "&lt;/script&gt;" can end it early.
    /// </summary>
    public static string ToJson<TModel>(TModel model) => JsonSerializer.Serialize(model, ModelJson);

    private static string Read(string name)
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("ReportAssets." + name)
            ?? throw new InvalidOperationException($"The runner was built without its embedded chart asset {name} (Reports/Assets).");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }
}
