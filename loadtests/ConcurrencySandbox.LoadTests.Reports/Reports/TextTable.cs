using System.Net;
using System.Text;
using ConcurrencySandbox.Contracts.Statistics;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>A table of already-formatted cells, written once and rendered as Markdown or HTML; numeric columns align right.</summary>
public sealed record TextTable(IReadOnlyList<string> Headers, IReadOnlyList<IReadOnlyList<string>> Rows, IReadOnlySet<int> NumericColumns)
{
    public string ToMarkdown()
    {
        var md = new StringBuilder();
        md.AppendLine("| " + string.Join(" | ", Headers) + " |");
        md.AppendLine("|" + string.Concat(Headers.Select((_, i) => NumericColumns.Contains(i) ? "---:|" : "---|")));
        foreach (var row in Rows)
        {
            md.AppendLine("| " + string.Join(" | ", row.Select(c => c.Replace("|", "\\|", StringComparison.Ordinal))) + " |");
        }
        return md.ToString();
    }

    /// <summary>A flagged cell (one that carries a <see cref="FigureFlag.Mark"/>) is highlighted.</summary>
    public string ToHtml()
    {
        var html = new StringBuilder("<table>\n<thead><tr>");
        foreach (var header in Headers)
        {
            html.Append("<th>").Append(WebUtility.HtmlEncode(header)).Append("</th>");
        }
        html.Append("</tr></thead>\n<tbody>\n");
        foreach (var row in Rows)
        {
            html.Append("<tr>");
            for (var i = 0; i < row.Count; i++)
            {
                var flagged = FigureFlag.AllMarks.Any(mark => row[i].Contains(mark, StringComparison.Ordinal));
                var classes = (NumericColumns.Contains(i) ? "num" : "") + (flagged ? " flag" : "");
                html.Append(classes.Length > 0 ? $"<td class=\"{classes.Trim()}\">" : "<td>").Append(WebUtility.HtmlEncode(row[i])).Append("</td>");
            }
            html.Append("</tr>\n");
        }
        return html.Append("</tbody>\n</table>\n").ToString();
    }
}

/// <summary>
/// A self-contained HTML page: its style inline, its charts inline SVG, nothing fetched (no script, font, style or
/// image from anywhere), readable offline and in print.
/// </summary>
/// <summary>A first-screen tile: a variant's name and colour and its headline figures as (label, value), each read from one summary field.</summary>
public sealed record ReportTile(string Name, string Color, IReadOnlyList<(string Label, string Value)> Figures);

public sealed class HtmlPage
{
    private const string Style = """
        body{font-family:sans-serif;max-width:1040px;margin:1.5em auto;padding:0 1em;color:#111;line-height:1.4}
        h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
        table{border-collapse:collapse;margin:.6em 0;font-size:.92em;display:block;max-width:100%;overflow-x:auto}
        th,td{border:1px solid #bbb;padding:.25em .5em;vertical-align:top}th{background:#f0f0f0;text-align:left}
        td.num{text-align:right;font-variant-numeric:tabular-nums}td.flag{background:#fde2e1;font-weight:bold}
        .verdict{font-size:1.15em;padding:.6em .8em;border-left:6px solid #555;background:#f6f6f6}
        .verdict.reproduced{border-color:#2ca02c}.verdict.not{border-color:#d62728}.verdict.partial{border-color:#d62728;background:#fde8e8;font-weight:bold}
        .flags li{color:#a00}.outcomes.failed{color:#a00;font-weight:bold}pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;overflow-wrap:break-word}
        svg{max-width:100%;height:auto}
        .tiles{display:flex;flex-wrap:wrap;gap:.6em;margin:.8em 0}.tile{border:1px solid #ccc;border-top:5px solid;padding:.4em .7em;flex:1 1 13em}
        .tile h3{margin:0 0 .3em;font-size:1em}.tile dl{margin:0;display:grid;grid-template-columns:auto auto;gap:0 .8em}
        .tile dt{color:#555}.tile dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
        @media print{body{max-width:none;margin:0}h2{break-after:avoid}figure,table{break-inside:avoid}}
        """;

    /// <summary>The interactive charts' style, also the live page's.</summary>
    public const string ChartStyle = """
        .chart{margin:1em 0}.chart-title{font-weight:bold;margin-bottom:.3em}
        .chart-variants button{margin:0 .4em .4em 0;padding:.2em .6em;border:2px solid;border-radius:4px;background:#fff;cursor:pointer}
        .chart-variants button[aria-pressed=false]{opacity:.45;text-decoration:line-through}
        .u-legend{font-size:.85em;text-align:left}.u-title{font-size:1em !important;font-weight:normal !important}
        """;

    private readonly string _title;
    private bool _hasCharts;
    private readonly StringBuilder _body = new();

    public HtmlPage(string title)
    {
        _title = title;
        Heading(1, title);
    }

    public HtmlPage Heading(int level, string text) => Append($"<h{level}>{Encode(text)}</h{level}>");

    /// <summary>The paragraph, or nothing when there is no text.</summary>
    public HtmlPage Paragraph(string? text, string? cssClass = null) =>
        string.IsNullOrEmpty(text) ? this : Append(cssClass is null ? $"<p>{Encode(text)}</p>" : $"<p class=\"{cssClass}\">{Encode(text)}</p>");

    public HtmlPage Preformatted(string text) => Append($"<pre><code>{Encode(text)}</code></pre>");

    public HtmlPage List(IEnumerable<string> items, string? cssClass = null) =>
        Append((cssClass is null ? "<ul>" : $"<ul class=\"{cssClass}\">") + string.Concat(items.Select(i => $"<li>{Encode(i)}</li>")) + "</ul>");

    /// <summary>The table, or nothing when there is none; folded under <paramref name="summary"/> when it has more than <paramref name="foldAbove"/> rows.</summary>
    public HtmlPage Table(TextTable? table, int foldAbove = int.MaxValue, string summary = "") =>
        table is null ? this
        : table.Rows.Count > foldAbove ? Append($"<details><summary>{Encode(summary)}: {table.Rows.Count} rows (click to open)</summary>\n{table.ToHtml()}</details>")
        : Append(table.ToHtml());

    /// <summary>Links to files beside the page (relative names only: opening the page fetches none of them).</summary>
    public HtmlPage Links(string lead, IEnumerable<string> files) =>
        Append($"<p>{Encode(lead)}{string.Join(", ", files.Select(f => $"<a href=\"{Encode(f)}\">{Encode(f)}</a>"))}.</p>");

    /// <summary>An inline SVG produced by <see cref="SvgChart"/> (trusted markup, not text).</summary>
    public HtmlPage Figure(string svg) => Append($"<figure>{svg}</figure>");

    /// <summary>One tile per item, side by side: its name over a colour bar, then its figures as label and value.</summary>
    public HtmlPage Tiles(IEnumerable<ReportTile> tiles) => Append("<div class=\"tiles\">" + string.Concat(tiles.Select(t =>
        $"<section class=\"tile\" data-variant=\"{Encode(t.Name)}\" style=\"border-top-color:{Encode(t.Color)}\"><h3>{Encode(t.Name)}</h3><dl>"
        + string.Concat(t.Figures.Select(f => $"<dt>{Encode(f.Label)}</dt><dd>{Encode(f.Value)}</dd>")) + "</dl></section>")) + "</div>");

    public HtmlPage Figures(IEnumerable<string> svgs) => svgs.Aggregate(this, (page, svg) => page.Figure(svg));

    /// <summary>
    /// An interactive chart that <c>Assets/charts.js</c> draws from its JSON model (<see cref="ResponseCurveModel"/>, <see cref="TimeSeriesModel"/>); the page
    /// then inlines uPlot and charts.js once, so it still fetches nothing.
    /// </summary>
    public HtmlPage Chart(string kind, string modelJson)
    {
        _hasCharts = true;
        return Append($"<div class=\"chart\" data-chart=\"{kind}\"><script type=\"application/json\">{modelJson}</script><noscript>This interactive chart needs JavaScript; the same figures are in the tables and the SVG charts below.</noscript></div>");
    }

    public override string ToString() =>
        $"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{Encode(_title)}</title>\n<style>{Style}{(_hasCharts ? ChartStyle + ChartAssets.UPlotCss : "")}</style>\n</head>\n<body>\n{_body}{(_hasCharts ? ChartScripts : "")}</body>\n</html>\n";

    private static string ChartScripts => $"<script>{ChartAssets.UPlotJs}</script>\n<script>{ChartAssets.ChartsJs}</script>\n<script>Charts.renderAll(document);</script>\n";

    private HtmlPage Append(string html)
    {
        _body.AppendLine(html);
        return this;
    }

    private static string Encode(string text) => WebUtility.HtmlEncode(text);
}
