using System.Globalization;
using System.Security;
using System.Text;
using ConcurrencySandbox.Contracts.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Reports;

public enum Axis
{
    Left,
    Right,
}

public enum Stroke
{
    Solid,
    Dashed,
    Dotted,

    /// <summary>One dot per point, no line (a per-request timeline).</summary>
    Dots,

    /// <summary>One hollow ring per point, no line: a figure drawn for completeness that carries no verdict (inconclusive).</summary>
    HollowDots,

    /// <summary>
    /// Points in pairs at one x (low, high), each pair followed by a NaN: a capped vertical stroke per pair, a confidence
    /// interval. Never counted as hiding or hidden (it is drawn round the points it belongs to, however short).
    /// </summary>
    Whiskers,

    /// <summary>
    /// One bar per point, from the previous point's x (0 for the first) to its own, down to the axis. Stacked counts are
    /// drawn as cumulative series, the tallest first, so each shows as its own band.
    /// </summary>
    Bars,
}

/// <summary>One series on a panel; a NaN y breaks its line (an interval without completed requests).</summary>
public sealed record ChartSeries(string Name, IReadOnlyList<(double X, double Y)> Points, string Color, Axis Axis, Stroke Stroke);

/// <summary>
/// An axis: its label, whether it is logarithmic, how its tick values are written, whether it counts things (integer
/// ticks only), and the span it must cover whatever its own data (so small multiples share one scale).
/// </summary>
public sealed record ChartAxis(string Label, bool Log = false, Func<double, string>? TickLabel = null, bool Counts = false, (double Min, double Max)? Span = null);

/// <summary>The symbol an event marker is drawn with.</summary>
public enum MarkerShape
{
    TriangleUp,
    TriangleDown,
    Diamond,
    Square,
    Cross,
    Plus,
}

/// <summary>
/// Events of one kind drawn as markers at (x, y on the left axis), e.g. the thread pool's adjustments: not a series (no
/// line, no hidden-series check), with a legend entry that gives the number drawn.
/// </summary>
public sealed record ChartMarkers(string Name, IReadOnlyList<(double X, double Y)> Points, string Color, MarkerShape Shape, bool Filled);

/// <summary>One panel: a plot area with a left and an optional right y axis sharing the chart's x axis, and events drawn as markers.</summary>
public sealed record ChartPanel(string Title, ChartAxis LeftAxis, ChartAxis? RightAxis, IReadOnlyList<ChartSeries> Series, int Height = 240, IReadOnlyList<ChartMarkers>? Markers = null);

/// <summary>
/// Draws stacked panels as one self-contained SVG (no script, font, style or image fetched), 1000 px wide so it
/// reads on a screen and on paper. A series is drawn only if it has points, and only a drawn series gets a legend
/// entry; each panel's legend sits under its plot. Linear axes get round ticks from 0 (whole numbers on a count
/// axis), log axes one tick per decade; a 0 on a log axis is drawn on its bottom edge and the panel says so.
/// Every series carries data-series, data-points and data-color attributes for tests and browsers to check.
/// No series is fully hidden: one that lies on another at every point (<see cref="SeriesOverlap"/>) is drawn on top in
/// short dashes (a line) and marked with hollow diamonds, and a note under the panel says which lies on which.
/// Markers (<see cref="ChartMarkers"/>) outside the x axis's range are dropped, and counted in a note; a panel with more
/// than <see cref="MaxMarkers"/> draws them as ticks along its bottom edge, one row per kind.
/// </summary>
public static class SvgChart
{
    public const int Width = 1000;
    private const int Left = 80;
    private const int Right = 70;
    private const int PlotWidth = Width - Left - Right;
    private const int PanelTitleHeight = 24;
    private const int XAxisHeight = 40;
    private const int LegendRowHeight = 18;
    private const int LegendColumnWidth = 280;
    private const int LegendTextLeft = 36;
    private const int LegendCharacterWidth = 7;
    private const int LegendColumnGap = 12;
    private const int PanelGap = 22;
    private const int MaxTicks = 6;
    private const int TitleLineHeight = 20;
    private const int NoteLineHeight = 16;

    /// <summary>The most characters of a note on one line: about 6.5 px each at 13 px, across the chart's width.</summary>
    private const int NoteLineCharacters = (Width - Left - 20) / 7;
    private const double MarkerRadius = 5;
    private const double DiamondRadius = 4.5;
    private const double MinDiamondSpacing = 12;
    private const int TickRowHeight = 7;

    /// <summary>The most markers a panel draws as symbols; more are drawn as ticks along its bottom edge.</summary>
    public const int MaxMarkers = 60;

    /// <summary>Half the width of a whisker's caps, in pixels.</summary>
    private const double WhiskerCap = 4;

    /// <summary>The dashes of a series drawn on top of one it lies on (short, so the one beneath shows through).</summary>
    private const string LiesOnDash = " stroke-dasharray=\"3 6\"";

    private const double LiesOnDashPeriod = 9;

    /// <summary>Renders the panels under a title of one or more lines (the first in bold), over a linear x axis in seconds or the like.</summary>
    public static string Render(IReadOnlyList<string> titleLines, string xLabel, IReadOnlyList<ChartPanel> panels) =>
        Render(titleLines, new ChartAxis(xLabel), panels);

    /// <summary>Renders the panels under a title of one or more lines (the first in bold), over the x axis <paramref name="xAxis"/> (linear from 0, or log with one tick per decade).</summary>
    public static string Render(IReadOnlyList<string> titleLines, ChartAxis xAxis, IReadOnlyList<ChartPanel> panels)
    {
        var drawn = panels.Select(p => p with { Series = [.. p.Series.Select(Drawable).Where(s => s.Points.Count > 0)] }).ToList();
        var x = XMap(drawn.SelectMany(p => p.Series).SelectMany(s => s.Points).Select(p => p.X).ToList(), xAxis);
        var top = 20 + titleLines.Count * TitleLineHeight;
        var body = new StringBuilder();
        foreach (var panel in drawn)
        {
            top = DrawPanel(body, panel, top, x, xAxis) + PanelGap;
        }

        var svg = new StringBuilder();
        svg.Append(CultureInfo.InvariantCulture, $"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{Width}\" height=\"{top}\" viewBox=\"0 0 {Width} {top}\" font-family=\"sans-serif\" font-size=\"13\" role=\"img\">\n");
        svg.Append(CultureInfo.InvariantCulture, $"<rect width=\"{Width}\" height=\"{top}\" fill=\"white\"/>\n");
        for (var i = 0; i < titleLines.Count; i++)
        {
            var weight = i == 0 ? " font-size=\"17\" font-weight=\"bold\"" : "";
            svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Left}\" y=\"{24 + i * TitleLineHeight}\"{weight}>{Escape(titleLines[i])}</text>\n");
        }
        svg.Append(body);
        svg.Append("</svg>\n");
        return svg.ToString();
    }

    private static bool IsLog(ChartPanel panel, Axis axis) => (axis == Axis.Left ? panel.LeftAxis : panel.RightAxis)?.Log == true;

    /// <summary>The points a series can show: finite x, and y finite (NaN kept as a break).</summary>
    private static ChartSeries Drawable(ChartSeries series)
    {
        var points = series.Points.Where(p => double.IsFinite(p.X) && (double.IsNaN(p.Y) || double.IsFinite(p.Y))).ToList();
        return series with { Points = points.Any(p => !double.IsNaN(p.Y)) ? points : [] };
    }

    /// <summary>Draws one panel from <paramref name="top"/>; returns the y below its legend and notes.</summary>
    private static int DrawPanel(StringBuilder svg, ChartPanel panel, int top, XMapping x, ChartAxis xAxis)
    {
        var plotTop = top + PanelTitleHeight;
        var bottom = plotTop + panel.Height;
        var right = Left + PlotWidth;
        svg.Append(CultureInfo.InvariantCulture, $"<g class=\"panel\"><text x=\"{Left}\" y=\"{plotTop - 8}\" font-weight=\"bold\">{Escape(panel.Title)}</text>\n");
        if (panel.Series.Count == 0)
        {
            svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Left + PlotWidth / 2}\" y=\"{plotTop + 20}\" text-anchor=\"middle\" fill=\"#555\">no data recorded</text></g>\n");
            return plotTop + 30;
        }

        var notes = new List<string>();
        var markers = (panel.Markers ?? []).Select(m => m with { Points = [.. m.Points.Where(p => InRange(x.Share(p.X)) && double.IsFinite(p.Y))] }).ToList();
        var dropped = (panel.Markers ?? []).Sum(m => m.Points.Count) - markers.Sum(m => m.Points.Count);
        if (dropped > 0)
        {
            notes.Add($"{CountText.Of(dropped, "marker")} outside the x axis {(dropped == 1 ? "is" : "are")} not drawn");
        }
        markers.RemoveAll(m => m.Points.Count == 0);

        var leftMap = YMap(panel, Axis.Left, plotTop, bottom, markers.SelectMany(m => m.Points).Select(p => p.Y));
        var rightMap = panel.RightAxis is not null && panel.Series.Any(s => s.Axis == Axis.Right) ? YMap(panel, Axis.Right, plotTop, bottom, []) : null;
        foreach (var (value, y) in leftMap.Ticks)
        {
            svg.Append(CultureInfo.InvariantCulture, $"<line x1=\"{Left}\" y1=\"{y:0.#}\" x2=\"{right}\" y2=\"{y:0.#}\" stroke=\"#ddd\"/>\n");
            svg.Append(CultureInfo.InvariantCulture, $"<text class=\"tick\" x=\"{Left - 6}\" y=\"{y + 4:0.#}\" text-anchor=\"end\">{Escape(leftMap.Label(value))}</text>\n");
        }
        foreach (var (value, y) in rightMap?.Ticks ?? [])
        {
            svg.Append(CultureInfo.InvariantCulture, $"<text class=\"tick\" x=\"{right + 6}\" y=\"{y + 4:0.#}\">{Escape(rightMap!.Label(value))}</text>\n");
        }
        svg.Append(CultureInfo.InvariantCulture, $"<rect x=\"{Left}\" y=\"{plotTop}\" width=\"{PlotWidth}\" height=\"{panel.Height}\" fill=\"none\" stroke=\"#333\"/>\n");
        foreach (var tick in x.Ticks)
        {
            svg.Append(CultureInfo.InvariantCulture, $"<text class=\"x-tick\" x=\"{Left + x.Share(tick) * PlotWidth:0.#}\" y=\"{bottom + 16}\" text-anchor=\"middle\">{Escape((xAxis.TickLabel ?? Format)(tick))}</text>\n");
        }
        svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Left + PlotWidth / 2}\" y=\"{bottom + 32}\" text-anchor=\"middle\" fill=\"#333\">{Escape(xAxis.Label)}</text>\n");
        if (panel.Series.Any(s => IsLog(panel, s.Axis) && s.Points.Any(p => p.Y <= 0)))
        {
            svg.Append(CultureInfo.InvariantCulture, $"<text class=\"note\" x=\"{right - 6}\" y=\"{bottom - 6}\" text-anchor=\"end\" fill=\"#555\">values of 0 are drawn on the bottom edge (a log axis has no 0)</text>\n");
        }
        svg.Append(CultureInfo.InvariantCulture, $"<text transform=\"translate({Left - 56},{plotTop + panel.Height / 2}) rotate(-90)\" text-anchor=\"middle\">{Escape(panel.LeftAxis.Label)}</text>\n");
        if (rightMap is not null)
        {
            svg.Append(CultureInfo.InvariantCulture, $"<text transform=\"translate({right + 52},{plotTop + panel.Height / 2}) rotate(90)\" text-anchor=\"middle\">{Escape(panel.RightAxis!.Label)}</text>\n");
        }

        Func<(double X, double Y), (double X, double Y)> ToPixels(ChartSeries series)
        {
            var map = series.Axis == Axis.Right && rightMap is not null ? rightMap : leftMap;
            return p => (Left + x.Share(p.X) * PlotWidth, map.Y(p.Y));
        }
        var pixels = panel.Series.Select(s => Pixels(s, ToPixels(s))).ToList();
        var hiddenAgainst = SeriesOverlap.HiddenAgainst([.. pixels.Select((p, i) => (p, panel.Series[i].Stroke == Stroke.Bars))]);
        // A line that lies on another is drawn last, in short dashes, so both show; a bar keeps its place in the stack.
        var order = Enumerable.Range(0, panel.Series.Count).OrderBy(i => hiddenAgainst[i] is not null && panel.Series[i].Stroke != Stroke.Bars);
        foreach (var i in order)
        {
            DrawSeries(svg, panel.Series[i], ToPixels(panel.Series[i]), bottom, hiddenAgainst[i]);
        }
        for (var i = 0; i < panel.Series.Count; i++)
        {
            if (hiddenAgainst[i] is { } overlap)
            {
                var series = panel.Series[i];
                var diamonds = DiamondsFor(pixels[i], series.Stroke == Stroke.Bars ? pixels[overlap.Base] : [], overlap);
                svg.Append(CultureInfo.InvariantCulture, $"<g class=\"lies-on\" data-series=\"{Escape(series.Name)}\" data-on=\"{Escape(panel.Series[overlap.Base].Name)}\" data-points=\"{diamonds.Count}\">");
                foreach (var (px, py) in diamonds)
                {
                    svg.Append(MarkerPath(MarkerShape.Diamond, px, py, DiamondRadius, series.Color, filled: false));
                }
                svg.Append("</g>\n");
            }
        }
        foreach (var group in hiddenAgainst.Select((o, i) => (Overlap: o, Series: panel.Series[i])).Where(o => o.Overlap is not null).GroupBy(o => o.Overlap!.Base))
        {
            var names = group.Select(o => o.Series.Name).ToList();
            var lie = names.Count == 1 ? $"{names[0]} lies" : $"{string.Join(", ", names[..^1])} and {names[^1]} lie";
            notes.Add(group.First().Series.Stroke == Stroke.Bars
                ? $"{lie} on {panel.Series[group.Key].Name} at every point (too thin to see): marked with hollow diamonds"
                : $"{lie} on {panel.Series[group.Key].Name} at every point: drawn on top in short dashes with hollow diamonds{(names.Count > 1 ? ", taking turns" : "")}");
        }
        // A series marked against one base may lie on others too (two variants equal at low load): the note names them all.
        for (var i = 0; i < panel.Series.Count; i++)
        {
            if (hiddenAgainst[i] is { } marked && panel.Series[i].Stroke != Stroke.Bars)
            {
                var others = Enumerable.Range(0, panel.Series.Count)
                    .Where(j => j != marked.Base && SeriesOverlap.Hides(j, i, false, false) && panel.Series[j].Stroke != Stroke.Bars && SeriesOverlap.LiesOn(pixels[i], pixels[j], bars: false))
                    .Select(j => panel.Series[j].Name).ToList();
                if (others.Count > 0)
                {
                    notes.Add($"{panel.Series[i].Name} also lies on {string.Join(" and ", others)} at every point");
                }
            }
        }

        var asTicks = markers.Sum(m => m.Points.Count) > MaxMarkers;
        for (var row = 0; row < markers.Count; row++)
        {
            var set = markers[row];
            svg.Append(CultureInfo.InvariantCulture, $"<g class=\"markers\" data-markers=\"{Escape(set.Name)}\" data-points=\"{set.Points.Count}\" data-color=\"{set.Color}\"><title>{Escape(set.Name)}</title>");
            foreach (var (mx, my) in set.Points.Select(p => (Left + x.Share(p.X) * PlotWidth, leftMap.Y(p.Y))))
            {
                svg.Append(asTicks
                    ? Invariant($"<line x1=\"{mx:0.#}\" y1=\"{bottom - row * TickRowHeight - 1}\" x2=\"{mx:0.#}\" y2=\"{bottom - (row + 1) * TickRowHeight + 1}\" stroke=\"{set.Color}\" stroke-width=\"1.5\"/>")
                    : MarkerPath(set.Shape, mx, my, MarkerRadius, set.Color, set.Filled));
            }
            svg.Append("</g>\n");
        }
        if (asTicks)
        {
            notes.Add(Invariant($"{markers.Sum(m => m.Points.Count)} markers, too many to draw as symbols: drawn as ticks along the bottom edge, one row per kind (the first kind at the bottom)"));
        }

        var legendTop = bottom + XAxisHeight;
        var entries = panel.Series.Select((s, i) => (Swatch: Swatch(s, hiddenAgainst[i] is not null), s.Name))
            .Concat(markers.Select((m, row) => (Swatch: (Func<int, int, string>)((lx, ly) => MarkerPath(m.Shape, lx + 15, ly, MarkerRadius, m.Color, m.Filled)),
                Name: asTicks ? $"{m.Name} ({CountText.Of(m.Points.Count)}, tick row {row + 1})" : $"{m.Name} ({CountText.Of(m.Points.Count)})")))
            .ToList();
        // A column as wide as the longest entry (swatch and text at about 7 px a character), so no entry runs into the next.
        var columnWidth = Math.Max(LegendColumnWidth, entries.Select(e => LegendTextLeft + LegendCharacterWidth * e.Name.Length + LegendColumnGap).DefaultIfEmpty(0).Max());
        var columns = Math.Max(1, (Width - Left) / columnWidth);
        for (var i = 0; i < entries.Count; i++)
        {
            var lx = Left + i % columns * columnWidth;
            var ly = legendTop + i / columns * LegendRowHeight;
            svg.Append(CultureInfo.InvariantCulture, $"<g class=\"legend\">{entries[i].Swatch(lx, ly)}<text x=\"{lx + LegendTextLeft}\" y=\"{ly + 4}\">{Escape(entries[i].Name)}</text></g>\n");
        }
        var notesTop = legendTop + (entries.Count + columns - 1) / columns * LegendRowHeight;
        var noteLines = 0;
        foreach (var note in notes)
        {
            svg.Append(CultureInfo.InvariantCulture, $"<text class=\"note\" x=\"{Left}\" y=\"{notesTop + noteLines * NoteLineHeight + 4}\" fill=\"#555\">");
            foreach (var (line, i) in Wrap(note, NoteLineCharacters).Select((line, i) => (line, i)))
            {
                svg.Append(CultureInfo.InvariantCulture, $"<tspan x=\"{Left}\" dy=\"{(i == 0 ? 0 : NoteLineHeight)}\">{Escape(line)}</tspan>");
                noteLines++;
            }
            svg.Append("</text>\n");
        }
        svg.Append("</g>\n");
        return notesTop + noteLines * NoteLineHeight;
    }

    /// <summary>The words of <paramref name="text"/> in lines of at most <paramref name="width"/> characters (a longer word on a line of its own).</summary>
    private static List<string> Wrap(string text, int width)
    {
        var lines = new List<string> { "" };
        foreach (var word in text.Split(' '))
        {
            if (lines[^1].Length > 0 && lines[^1].Length + 1 + word.Length > width)
            {
                lines.Add("");
            }
            lines[^1] = lines[^1].Length == 0 ? word : $"{lines[^1]} {word}";
        }
        return lines;
    }

    /// <summary>A share of the plot's width inside it (a hair of rounding allowed at either edge).</summary>
    private static bool InRange(double share) => share >= -1e-9 && share <= 1 + 1e-9;

    /// <summary>
    /// Where a series is drawn, as polylines in pixels for <see cref="SeriesOverlap"/>: a line's unbroken runs, each dot on
    /// its own, each bar's top (its middle).
    /// </summary>
    private static IReadOnlyList<IReadOnlyList<(double X, double Y)>> Pixels(ChartSeries series, Func<(double X, double Y), (double X, double Y)> toPixels) => series.Stroke switch
    {
        Stroke.Bars => [.. Bars(series, toPixels).Select(b => (IReadOnlyList<(double X, double Y)>)[((b.Left + b.Right) / 2, b.Top)])],
        Stroke.Dots or Stroke.HollowDots => [.. series.Points.Where(p => !double.IsNaN(p.Y)).Select(p => (IReadOnlyList<(double X, double Y)>)[toPixels(p)])],
        Stroke.Whiskers => [],
        _ => [.. Segments(series.Points).Select(s => (IReadOnlyList<(double X, double Y)>)[.. s.Select(toPixels)])],
    };

    /// <summary>
    /// Where to mark a series that lies on another: its points at least <see cref="MinDiamondSpacing"/> apart, every
    /// <see cref="Overlap.Of"/>-th from its turn so those lying on one base alternate; for bars, only the tops not exactly on
    /// the base's (where the thin band has something), or all when none differs.
    /// </summary>
    private static List<(double X, double Y)> DiamondsFor(IReadOnlyList<IReadOnlyList<(double X, double Y)>> pixels, IReadOnlyList<IReadOnlyList<(double X, double Y)>> barsBeside, Overlap overlap)
    {
        var points = pixels.SelectMany(p => p).ToList();
        var otherTops = barsBeside.SelectMany(p => p).ToHashSet();
        if (points.Any(p => !otherTops.Contains(p)))
        {
            points.RemoveAll(otherTops.Contains);
        }
        var kept = new List<(double X, double Y)>();
        foreach (var point in points.OrderBy(p => p.X))
        {
            if (kept.Count == 0 || point.X - kept[^1].X >= MinDiamondSpacing)
            {
                kept.Add(point);
            }
        }
        return [.. kept.Where((_, i) => i % overlap.Of == overlap.Turn - 1)];
    }

    /// <summary>One bar per point, from the previous point's x (0 for the first) to its own; only bars above 0 are drawn.</summary>
    private static IEnumerable<(double Left, double Top, double Right)> Bars(ChartSeries series, Func<(double X, double Y), (double X, double Y)> toPixels)
    {
        var previousX = 0.0;
        foreach (var point in series.Points)
        {
            var ((x0, _), (x1, y)) = (toPixels((previousX, 0)), toPixels(point));
            previousX = point.X;
            if (!double.IsNaN(point.Y) && point.Y > 0)
            {
                yield return (x0, y, x1);
            }
        }
    }

    /// <param name="liesOn">Set when the series lies on another: a line is drawn in short dashes, offset by its turn so several alternate.</param>
    private static void DrawSeries(StringBuilder svg, ChartSeries series, Func<(double X, double Y), (double X, double Y)> toPixels, int bottom, Overlap? liesOn)
    {
        svg.Append(CultureInfo.InvariantCulture, $"<g class=\"series\" data-series=\"{Escape(series.Name)}\" data-points=\"{series.Points.Count(p => !double.IsNaN(p.Y))}\" data-color=\"{series.Color}\"><title>{Escape(series.Name)}</title>");
        if (series.Stroke == Stroke.Bars)
        {
            foreach (var (x0, y, x1) in Bars(series, toPixels))
            {
                svg.Append(CultureInfo.InvariantCulture, $"<rect x=\"{x0:0.#}\" y=\"{y:0.#}\" width=\"{Math.Max(x1 - x0 - 1, 1):0.#}\" height=\"{bottom - y:0.#}\" fill=\"{series.Color}\"/>");
            }
            svg.Append("</g>\n");
            return;
        }
        var segments = Segments(series.Points);
        foreach (var segment in segments)
        {
            var pixels = segment.Select(toPixels).ToList();
            if (series.Stroke == Stroke.Whiskers)
            {
                var (x, low, high) = (pixels[0].X, pixels[0].Y, pixels[^1].Y);
                svg.Append(Invariant($"<path d=\"M{x:0.#},{low:0.#}V{high:0.#}M{x - WhiskerCap:0.#},{low:0.#}H{x + WhiskerCap:0.#}M{x - WhiskerCap:0.#},{high:0.#}H{x + WhiskerCap:0.#}\" fill=\"none\" stroke=\"{series.Color}\" stroke-width=\"1.5\"/>"));
                continue;
            }
            if (series.Stroke == Stroke.HollowDots)
            {
                foreach (var (px, py) in pixels)
                {
                    svg.Append(CultureInfo.InvariantCulture, $"<circle cx=\"{px:0.#}\" cy=\"{py:0.#}\" r=\"5\" fill=\"white\" stroke=\"{series.Color}\" stroke-width=\"2\"/>");
                }
                continue;
            }
            if (series.Stroke == Stroke.Dots || pixels.Count == 1)
            {
                foreach (var (px, py) in pixels)
                {
                    svg.Append(CultureInfo.InvariantCulture, $"<circle cx=\"{px:0.#}\" cy=\"{py:0.#}\" r=\"3\" fill=\"{series.Color}\" fill-opacity=\"0.75\"/>");
                }
                continue;
            }
            var points = string.Join(' ', pixels.Select(p => string.Create(CultureInfo.InvariantCulture, $"{p.X:0.#},{p.Y:0.#}")));
            svg.Append(CultureInfo.InvariantCulture, $"<polyline fill=\"none\" stroke=\"{series.Color}\" stroke-width=\"{(series.Stroke == Stroke.Solid ? 2.5 : 2)}\"{DashOf(series.Stroke, liesOn)} stroke-linejoin=\"round\" points=\"{points}\"/>");
        }
        svg.Append("</g>\n");
    }

    private static List<List<(double X, double Y)>> Segments(IReadOnlyList<(double X, double Y)> points)
    {
        var segments = new List<List<(double X, double Y)>> { new() };
        foreach (var point in points)
        {
            if (double.IsNaN(point.Y))
            {
                segments.Add([]);
            }
            else
            {
                segments[^1].Add(point);
            }
        }
        return [.. segments.Where(s => s.Count > 0)];
    }

    /// <summary>The legend's swatch of a series at (x, y); one that lies on another also shows its diamond.</summary>
    private static Func<int, int, string> Swatch(ChartSeries series, bool liesOn) => (x, y) => series.Stroke switch
    {
        Stroke.Dots => Invariant($"<circle cx=\"{x + 15}\" cy=\"{y}\" r=\"4\" fill=\"{series.Color}\"/>"),
        Stroke.HollowDots => Invariant($"<circle cx=\"{x + 15}\" cy=\"{y}\" r=\"5\" fill=\"white\" stroke=\"{series.Color}\" stroke-width=\"2\"/>"),
        Stroke.Bars => Invariant($"<rect x=\"{x + 5}\" y=\"{y - 6}\" width=\"20\" height=\"12\" fill=\"{series.Color}\"/>"),
        Stroke.Whiskers => Invariant($"<path d=\"M{x + 15},{y - 6}V{y + 6}M{x + 11},{y - 6}H{x + 19}M{x + 11},{y + 6}H{x + 19}\" fill=\"none\" stroke=\"{series.Color}\" stroke-width=\"1.5\"/>"),
        _ => Invariant($"<line x1=\"{x}\" y1=\"{y}\" x2=\"{x + 30}\" y2=\"{y}\" stroke=\"{series.Color}\" stroke-width=\"2.5\"{(liesOn ? LiesOnDash : DashOf(series.Stroke, null))}/>"),
    } + (liesOn ? MarkerPath(MarkerShape.Diamond, x + 15, y, DiamondRadius, series.Color, filled: false) : "");

    /// <summary>A marker's symbol centred on (x, y); a cross or plus is strokes only, any other shape filled or white inside.</summary>
    private static string MarkerPath(MarkerShape shape, double x, double y, double r, string color, bool filled)
    {
        var d = shape switch
        {
            MarkerShape.TriangleUp => Invariant($"M{x:0.#},{y - r:0.#}L{x + r:0.#},{y + 0.8 * r:0.#}L{x - r:0.#},{y + 0.8 * r:0.#}Z"),
            MarkerShape.TriangleDown => Invariant($"M{x:0.#},{y + r:0.#}L{x + r:0.#},{y - 0.8 * r:0.#}L{x - r:0.#},{y - 0.8 * r:0.#}Z"),
            MarkerShape.Diamond => Invariant($"M{x:0.#},{y - r:0.#}L{x + r:0.#},{y:0.#}L{x:0.#},{y + r:0.#}L{x - r:0.#},{y:0.#}Z"),
            MarkerShape.Square => Invariant($"M{x - 0.8 * r:0.#},{y - 0.8 * r:0.#}H{x + 0.8 * r:0.#}V{y + 0.8 * r:0.#}H{x - 0.8 * r:0.#}Z"),
            MarkerShape.Cross => Invariant($"M{x - r:0.#},{y - r:0.#}L{x + r:0.#},{y + r:0.#}M{x + r:0.#},{y - r:0.#}L{x - r:0.#},{y + r:0.#}"),
            _ => Invariant($"M{x - r:0.#},{y:0.#}H{x + r:0.#}M{x:0.#},{y - r:0.#}V{y + r:0.#}"),
        };
        var fill = shape is MarkerShape.Cross or MarkerShape.Plus ? "none" : filled ? color : "white";
        return $"<path d=\"{d}\" fill=\"{fill}\" stroke=\"{color}\" stroke-width=\"1.5\"/>";
    }

    /// <summary>A line's dash attributes: its stroke's, or, when it lies on another, short dashes offset by its turn.</summary>
    private static string DashOf(Stroke stroke, Overlap? liesOn) => liesOn is not null
        ? LiesOnDash + Invariant($" stroke-dashoffset=\"{LiesOnDashPeriod * (liesOn.Turn - 1) / liesOn.Of:0.#}\"")
        : stroke switch
        {
            Stroke.Dashed => " stroke-dasharray=\"8 4\"",
            Stroke.Dotted => " stroke-dasharray=\"2 3\"",
            _ => "",
        };

    /// <summary>Maps x values to their share (0 to 1) of the plot's width and lists the axis's ticks.</summary>
    private sealed record XMapping(Func<double, double> Share, IReadOnlyList<double> Ticks);

    /// <summary>A linear x axis from 0 in round steps, or a log one over the decades around the positive values (one tick per decade).</summary>
    private static XMapping XMap(IReadOnlyList<double> values, ChartAxis axis)
    {
        if (axis.Log)
        {
            var positive = values.Where(v => v > 0).ToList();
            var decades = LogDecades(positive.DefaultIfEmpty(1).Min(), positive.DefaultIfEmpty(10).Max());
            var (low, high) = (Math.Log10(decades[0]), Math.Log10(decades[^1]));
            return new XMapping(v => v <= 0 ? 0 : (Math.Log10(v) - low) / (high - low), decades);
        }
        var scale = NiceScale(values.DefaultIfEmpty(1).Max(), axis.Counts);
        return new XMapping(v => v / scale.Top, [.. scale.Ticks]);
    }

    /// <summary>Maps values of one axis to pixels and lists its ticks.</summary>
    private sealed record YMapping(Func<double, double> Y, IReadOnlyList<(double Value, double Y)> Ticks, Func<double, string> Label);

    /// <param name="markerValues">The y values of the markers drawn on this axis, which it must cover too.</param>
    private static YMapping YMap(ChartPanel panel, Axis axis, int plotTop, int bottom, IEnumerable<double> markerValues)
    {
        var spec = (axis == Axis.Left ? panel.LeftAxis : panel.RightAxis)!;
        var values = panel.Series.Where(s => s.Axis == axis).SelectMany(s => s.Points).Select(p => p.Y).Concat(markerValues).Where(double.IsFinite)
            .Concat(spec.Span is { } span ? [span.Min, span.Max] : []).ToList();
        var height = bottom - plotTop;
        var label = spec.TickLabel ?? Format;
        if (spec.Log)
        {
            var positive = values.Where(v => v > 0).ToList();
            var decades = LogDecades(positive.DefaultIfEmpty(1).Min(), positive.DefaultIfEmpty(10).Max());
            var (low, high) = (Math.Log10(decades[0]), Math.Log10(decades[^1]));
            Func<double, double> y = v => v <= 0 ? bottom : bottom - (Math.Log10(v) - low) / (high - low) * height;
            return new YMapping(y, [.. decades.Select(d => (d, y(d)))], label);
        }
        var scale = NiceScale(values.DefaultIfEmpty(1).Max(), spec.Counts);
        Func<double, double> linear = v => bottom - v / scale.Top * height;
        return new YMapping(linear, [.. scale.Ticks.Select(t => (t, linear(t)))], label);
    }

    /// <summary>The powers of ten from the one at or below <paramref name="min"/> to the one at or above <paramref name="max"/> (at least two).</summary>
    public static IReadOnlyList<double> LogDecades(double min, double max)
    {
        var low = (int)Math.Floor(Math.Log10(min) + 1e-9);
        var high = Math.Max(low + 1, (int)Math.Ceiling(Math.Log10(max) - 1e-9));
        return [.. Enumerable.Range(low, high - low + 1).Select(k => Math.Pow(10, k))];
    }

    /// <summary>An axis from 0 to <see cref="Top"/> in round steps.</summary>
    public sealed record Scale(double Top, double Step)
    {
        public IEnumerable<double> Ticks => Enumerable.Range(0, (int)Math.Round(Top / Step) + 1).Select(i => i * Step);
    }

    /// <summary>
    /// The axis for values up to <paramref name="max"/>: the smallest step of 1, 2, 2.5 or 5 x 10^k that needs at most
    /// <see cref="MaxTicks"/> steps, and the first multiple of it at or above the maximum. A count axis
    /// (<paramref name="counts"/>) steps by whole numbers only: 1, 2, 5, 10, ...
    /// </summary>
    public static Scale NiceScale(double max, bool counts = false)
    {
        if (max <= 0 || double.IsNaN(max) || double.IsInfinity(max))
        {
            return counts ? new Scale(1, 1) : new Scale(1, 0.2);
        }
        var magnitude = Math.Pow(10, Math.Floor(Math.Log10(max / MaxTicks)));
        var step = new[] { 1, 2, 2.5, 5, 10 }.Select(m => m * magnitude).Where(s => !counts || (s >= 1 && s == Math.Floor(s)))
            .DefaultIfEmpty(1).First(s => s * MaxTicks >= max * (1 - 1e-12));
        return new Scale(Math.Ceiling(max / step * (1 - 1e-12)) * step, step);
    }

    /// <summary>A latency tick in milliseconds written with its unit: 1 ms, 100 ms, 1 s, 10 s.</summary>
    public static string Milliseconds(double ms) => ms >= 1000
        ? (ms / 1000).ToString("0.##", CultureInfo.InvariantCulture) + " s"
        : ms.ToString(ms >= 1 ? "0.##" : "0.###", CultureInfo.InvariantCulture) + " ms";

    private static string Format(double value) => value.ToString(Math.Abs(value) >= 100 ? "0" : "0.##", CultureInfo.InvariantCulture);

    private static string Escape(string text) => SecurityElement.Escape(text);
}
