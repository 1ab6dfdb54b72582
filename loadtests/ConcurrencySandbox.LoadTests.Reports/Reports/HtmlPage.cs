using System.Net;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.RegularExpressions;
using ConcurrencySandbox.Contracts.Reports;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>A first-screen tile: a variant's name and colour and its headline figures, each read from one summary field.</summary>
public sealed record ReportTile(string Name, string Color, IReadOnlyList<TileFigure> Figures);

/// <summary>One figure of a tile: its label and its value as the tables print it.</summary>
public sealed record TileFigure(string Label, string Value);

/// <summary>
/// A self-contained HTML page: the blocks a report is made of (headings, paragraphs, tables, tiles, charts), kept as
/// data and injected as JSON into the template <c>Assets/report.html</c>, whose script draws them; the interactive charts
/// are the live page's (<c>Assets/charts.js</c> on the vendored uPlot), the run's summary.json rides along. Nothing is
/// fetched (no script, font, style or image from anywhere): the page reads offline and prints.
/// </summary>
public sealed partial class HtmlPage(string title, RunSummary? summary = null)
{
    private static readonly string Template = ChartAssets.Read("report.html");

    // Web names (camelCase) as the template's script reads them; text as written (no \u escapes), made safe for an inline script below.
    private static readonly JsonSerializerOptions PageJson = new(JsonSerializerDefaults.Web)
    {
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    private static readonly JsonSerializerOptions SummaryJson = new(RunSummary.Json) { WriteIndented = false };

    private readonly List<PageBlock> _blocks = [];

    public string Title => title;

    /// <summary>The blocks so far, in page order (what the template draws).</summary>
    public IReadOnlyList<PageBlock> Blocks => _blocks;

    /// <summary>The heading, or nothing when there is no text.</summary>
    public HtmlPage Heading(int level, string? text) => string.IsNullOrEmpty(text) ? this : Add(new HeadingBlock(level, text));

    /// <summary>The paragraph, or nothing when there is no text; **strong** and `code` in it are drawn as such.</summary>
    public HtmlPage Paragraph(string? text, string? cssClass = null) => string.IsNullOrEmpty(text) ? this : Add(new ParagraphBlock(text, cssClass));

    public HtmlPage Preformatted(string text) => Add(new PreformattedBlock(text));

    public HtmlPage List(IEnumerable<string> items, string? cssClass = null) => Add(new ListBlock([.. items], cssClass));

    /// <summary>The table, or nothing when there is none; folded under <paramref name="summary"/> when it has more than <paramref name="foldAbove"/> rows.</summary>
    public HtmlPage Table(TextTable? table, int foldAbove = int.MaxValue, string summary = "") =>
        table is null ? this
        : Add(new TableBlock(table.Headers, table.Rows, [.. table.NumericColumns.Order()], [.. table.FlaggedCells()], foldAbove == int.MaxValue ? null : foldAbove, summary));

    /// <summary>Links to files beside the page (relative names only: opening the page fetches none of them).</summary>
    public HtmlPage Links(string lead, IEnumerable<string> files) => Add(new LinksBlock(lead, [.. files]));

    /// <summary>
    /// One tile per item, side by side: its name over a colour bar, then its figures as label and value; in Markdown a
    /// table whose first column, the tiles' names, is headed <paramref name="names"/> (what each tile is: a variant, a core count).
    /// </summary>
    public HtmlPage Tiles(IEnumerable<ReportTile> tiles, string names = "variant") => Add(new TilesBlock([.. tiles], names));

    /// <summary>
    /// An interactive chart that <c>Assets/charts.js</c> draws from its model (the evidence's, the matrix's efficiency), or
    /// from the page's summary (<see cref="SummaryCharts"/>); Markdown says the page draws it.
    /// </summary>
    public HtmlPage Chart(string kind, object? model = null) => Add(new ChartBlock(kind, model));

    /// <summary>
    /// The page as Markdown (summary.md): the same blocks in the same order, tables as Markdown tables, tiles as one
    /// table, each chart as a link to the page that draws it (<see cref="ChartsLink"/>); a section left with nothing to
    /// say in Markdown is left out with its heading.
    /// </summary>
    public string ToMarkdown()
    {
        var parts = _blocks.Select(b => (Heading: b as HeadingBlock, Text: Markdown(b))).ToList();
        var kept = parts.Where((p, i) => p.Heading is not { } h
            || parts.Skip(i + 1).TakeWhile(next => next.Heading is not { } n || n.Level > h.Level).Any(next => next.Text is not null));
        return $"# {title}\n\n" + string.Concat(kept.Where(p => p.Text is not null).Select(p => p.Text + "\n\n")).TrimEnd('\n') + "\n";
    }

    /// <summary>The classes whose paragraph Markdown writes in bold (the partial note, the plain answer).</summary>
    public const string PartialClass = "verdict partial", AnswerClass = "answer";

    /// <summary>Where Markdown sends a reader for a chart: report.html beside it draws every chart from the same figures.</summary>
    public const string ChartsLink = "Drawn in [report.html](report.html), from the same figures.";

    private static string? Markdown(PageBlock block) => block switch
    {
        HeadingBlock h => $"{new string('#', h.Level)} {h.Text}",
        ParagraphBlock { Class: PartialClass or AnswerClass } p => $"**{p.Text}**",
        ParagraphBlock p => p.Text,
        ListBlock { Items.Count: > 0 } l => string.Join('\n', l.Items.Select(item => $"- {item}")),
        PreformattedBlock p => $"```\n{p.Text}\n```",
        TableBlock t => new TextTable(t.Headers, t.Rows, t.NumericColumns.ToHashSet()).ToMarkdown().TrimEnd('\n'),
        TilesBlock { Tiles.Count: > 0 } t => new TextTable([t.Names, .. t.Tiles[0].Figures.Select(f => f.Label)], [.. t.Tiles.Select(tile => (IReadOnlyList<string>)[tile.Name, .. tile.Figures.Select(f => f.Value)])],
            Enumerable.Range(1, t.Tiles[0].Figures.Count).ToHashSet()).ToMarkdown().TrimEnd('\n'),
        LinksBlock l => $"{l.Text}{string.Join(", ", l.Items.Select(file => $"[{file}]({file})"))}.",
        ChartBlock => ChartsLink,
        _ => null,
    };

    /// <summary>The page: the template with the title, the blocks, the summary and the chart code injected.</summary>
    public override string ToString()
    {
        var slots = new Dictionary<string, string>
        {
            ["TITLE"] = WebUtility.HtmlEncode(title),
            ["CHARTS_CSS"] = ChartAssets.Styles,
            ["PAGE"] = InlineScriptSafe(JsonSerializer.Serialize(new PageModel(title, _blocks), PageJson)),
            // The contract's encoder writes <, > and & as \u escapes: no "</script>" can end it early.
            ["SUMMARY"] = summary is null ? "null" : JsonSerializer.Serialize(summary, SummaryJson),
            ["CHARTS_JS"] = ChartAssets.Scripts,
        };
        // One pass, so nothing injected is read as a slot.
        return Slot().Replace(Template, m => slots[m.Groups[1].Value]);
    }

    /// <summary>JSON inside an inline script: "&lt;/" and "&lt;!--" written as escapes JSON reads the same, so the script cannot end early.</summary>
    private static string InlineScriptSafe(string json) =>
        json.Replace("</", "<\\/", StringComparison.Ordinal).Replace("<!--", "<\\u0021--", StringComparison.Ordinal);

    [GeneratedRegex(@"/\*(TITLE|CHARTS_CSS|PAGE|SUMMARY|CHARTS_JS)\*/")]
    private static partial Regex Slot();

    private HtmlPage Add(PageBlock block)
    {
        _blocks.Add(block);
        return this;
    }

    private sealed record PageModel(string Title, IReadOnlyList<PageBlock> Blocks);
}

/// <summary>One block of a page, as the template's script draws it (its "kind").</summary>
[JsonPolymorphic(TypeDiscriminatorPropertyName = "kind")]
[JsonDerivedType(typeof(HeadingBlock), "heading")]
[JsonDerivedType(typeof(ParagraphBlock), "paragraph")]
[JsonDerivedType(typeof(PreformattedBlock), "preformatted")]
[JsonDerivedType(typeof(ListBlock), "list")]
[JsonDerivedType(typeof(TableBlock), "table")]
[JsonDerivedType(typeof(LinksBlock), "links")]
[JsonDerivedType(typeof(TilesBlock), "tiles")]
[JsonDerivedType(typeof(ChartBlock), "chart")]
public abstract record PageBlock;

public sealed record HeadingBlock(int Level, string Text) : PageBlock;

public sealed record ParagraphBlock(string Text, string? Class) : PageBlock;

public sealed record PreformattedBlock(string Text) : PageBlock;

public sealed record ListBlock(IReadOnlyList<string> Items, string? Class) : PageBlock;

/// <summary>A table: numeric columns align right, flagged cells (row, column) are highlighted, folded above <paramref name="FoldAbove"/> rows.</summary>
public sealed record TableBlock(IReadOnlyList<string> Headers, IReadOnlyList<IReadOnlyList<string>> Rows, IReadOnlyList<int> NumericColumns, IReadOnlyList<int[]> FlaggedCells, int? FoldAbove, string Summary) : PageBlock;

public sealed record LinksBlock(string Text, IReadOnlyList<string> Items) : PageBlock;

/// <param name="Names">What each tile is, the Markdown table's first column ("variant", "core count"); the page shows each tile's name alone.</param>
public sealed record TilesBlock(IReadOnlyList<ReportTile> Tiles, [property: JsonIgnore] string Names) : PageBlock;

/// <summary>An interactive chart: <c>Charts[kind]</c> of <c>Assets/charts.js</c> draws <paramref name="Model"/>, or the page's summary where it has none (a summary's chart with a model reads both).</summary>
public sealed record ChartBlock([property: JsonPropertyName("chart")] string ChartKind, object? Model) : PageBlock;
