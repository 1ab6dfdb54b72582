using System.Globalization;
using System.Security;
using System.Text;

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
}

/// <summary>One line on a panel.</summary>
public sealed record ChartSeries(string Name, IReadOnlyList<(double X, double Y)> Points, string Color, Axis Axis, Stroke Stroke);

/// <summary>One panel: a plot area with a left and a right y axis sharing the chart's x axis.</summary>
public sealed record ChartPanel(string Title, string LeftLabel, string RightLabel, IReadOnlyList<ChartSeries> Series);

/// <summary>
/// Draws stacked line-chart panels as a self-contained SVG (no scripts, no fonts or styles fetched), so the report
/// opens offline in any browser. Axes get "nice" ticks; each panel has its legend on the right.
/// </summary>
public static class SvgChart
{
    public static readonly IReadOnlyList<string> Palette =
        ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];

    private const int Width = 1100;
    private const int PanelHeight = 300;
    private const int Left = 70;
    private const int PlotWidth = 700;
    private const int Top = 75;
    private const int Gap = 75;
    private const int MaxTicks = 6;

    public static string Render(string title, string xLabel, IReadOnlyList<ChartPanel> panels)
    {
        var x = NiceScale(panels.SelectMany(p => p.Series).SelectMany(s => s.Points).Select(p => p.X).DefaultIfEmpty(1).Max());
        var height = Top + panels.Count * (PanelHeight + Gap);
        var svg = new StringBuilder();
        svg.Append(CultureInfo.InvariantCulture, $"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{Width}\" height=\"{height}\" viewBox=\"0 0 {Width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n");
        svg.Append(CultureInfo.InvariantCulture, $"<rect width=\"{Width}\" height=\"{height}\" fill=\"white\"/>\n");
        svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Left}\" y=\"25\" font-size=\"16\" font-weight=\"bold\">{Escape(title)}</text>\n");
        for (var i = 0; i < panels.Count; i++)
        {
            DrawPanel(svg, panels[i], Top + i * (PanelHeight + Gap), x, xLabel);
        }
        svg.Append("</svg>\n");
        return svg.ToString();
    }

    private static void DrawPanel(StringBuilder svg, ChartPanel panel, int top, Scale x, string xLabel)
    {
        var bottom = top + PanelHeight;
        var right = Left + PlotWidth;
        var left = AxisScale(panel.Series, Axis.Left);
        var rightAxis = AxisScale(panel.Series, Axis.Right);
        svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Left}\" y=\"{top - 10}\" font-weight=\"bold\">{Escape(panel.Title)}</text>\n");
        svg.Append(CultureInfo.InvariantCulture, $"<rect x=\"{Left}\" y=\"{top}\" width=\"{PlotWidth}\" height=\"{PanelHeight}\" fill=\"none\" stroke=\"#333\"/>\n");

        foreach (var tick in left.Ticks)
        {
            var y = bottom - tick / left.Top * PanelHeight;
            svg.Append(CultureInfo.InvariantCulture, $"<line x1=\"{Left}\" y1=\"{y:0.#}\" x2=\"{right}\" y2=\"{y:0.#}\" stroke=\"#eee\"/>\n");
            svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Left - 6}\" y=\"{y + 4:0.#}\" text-anchor=\"end\">{Format(tick)}</text>\n");
        }
        if (panel.Series.Any(s => s.Axis == Axis.Right))
        {
            foreach (var tick in rightAxis.Ticks)
            {
                svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{right + 6}\" y=\"{bottom - tick / rightAxis.Top * PanelHeight + 4:0.#}\">{Format(tick)}</text>\n");
            }
        }
        foreach (var tick in x.Ticks)
        {
            svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Left + tick / x.Top * PlotWidth:0.#}\" y=\"{bottom + 16}\" text-anchor=\"middle\">{Format(tick)}</text>\n");
        }
        svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Left + PlotWidth / 2}\" y=\"{bottom + 34}\" text-anchor=\"middle\">{Escape(xLabel)}</text>\n");
        svg.Append(CultureInfo.InvariantCulture, $"<text transform=\"translate({Left - 48},{top + PanelHeight / 2}) rotate(-90)\" text-anchor=\"middle\">{Escape(panel.LeftLabel)}</text>\n");
        svg.Append(CultureInfo.InvariantCulture, $"<text transform=\"translate({right + 50},{top + PanelHeight / 2}) rotate(90)\" text-anchor=\"middle\">{Escape(panel.RightLabel)}</text>\n");

        for (var i = 0; i < panel.Series.Count; i++)
        {
            var series = panel.Series[i];
            var yTop = (series.Axis == Axis.Left ? left : rightAxis).Top;
            var points = string.Join(' ', series.Points.Select(p =>
                string.Create(CultureInfo.InvariantCulture, $"{Left + p.X / x.Top * PlotWidth:0.#},{bottom - p.Y / yTop * PanelHeight:0.#}")));
            svg.Append(CultureInfo.InvariantCulture, $"<polyline fill=\"none\" stroke=\"{series.Color}\" stroke-width=\"2\"{DashOf(series.Stroke)} points=\"{points}\"><title>{Escape(series.Name)}</title></polyline>\n");

            var legendY = top + 8 + i * 18;
            svg.Append(CultureInfo.InvariantCulture, $"<line x1=\"{right + 75}\" y1=\"{legendY}\" x2=\"{right + 105}\" y2=\"{legendY}\" stroke=\"{series.Color}\" stroke-width=\"2\"{DashOf(series.Stroke)}/>\n");
            svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{right + 110}\" y=\"{legendY + 4}\">{Escape(series.Name)}</text>\n");
        }
    }

    private static string DashOf(Stroke stroke) => stroke switch
    {
        Stroke.Dashed => " stroke-dasharray=\"8 4\"",
        Stroke.Dotted => " stroke-dasharray=\"2 3\"",
        _ => "",
    };

    private static Scale AxisScale(IEnumerable<ChartSeries> series, Axis axis) =>
        NiceScale(series.Where(s => s.Axis == axis).SelectMany(s => s.Points).Select(p => p.Y).DefaultIfEmpty(1).Max());

    /// <summary>An axis from 0 to <see cref="Top"/> in round steps.</summary>
    public sealed record Scale(double Top, double Step)
    {
        public IEnumerable<double> Ticks => Enumerable.Range(0, (int)Math.Round(Top / Step) + 1).Select(i => i * Step);
    }

    /// <summary>
    /// The axis for values up to <paramref name="max"/>: the smallest step of 1, 2, 2.5 or 5 x 10^k that needs at most
    /// <see cref="MaxTicks"/> steps, and the first multiple of it at or above the maximum.
    /// </summary>
    public static Scale NiceScale(double max)
    {
        if (max <= 0 || double.IsNaN(max) || double.IsInfinity(max))
        {
            return new Scale(1, 0.2);
        }
        var magnitude = Math.Pow(10, Math.Floor(Math.Log10(max / MaxTicks)));
        var step = new[] { 1, 2, 2.5, 5, 10 }.Select(m => m * magnitude).First(s => s * MaxTicks >= max * (1 - 1e-12));
        return new Scale(Math.Ceiling(max / step * (1 - 1e-12)) * step, step);
    }

    private static string Format(double value) => value.ToString(Math.Abs(value) >= 100 ? "0" : "0.##", CultureInfo.InvariantCulture);

    private static string Escape(string text) => SecurityElement.Escape(text);
}
