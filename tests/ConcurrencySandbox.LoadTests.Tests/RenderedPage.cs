using System.Text.Json;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// A page the runner wrote (report.html, compare.html, the matrix's), read back as its template draws it: the blocks
/// injected as JSON, one line per heading, paragraph, list item, table row, link and tile, so a test reads the page's text
/// without a browser ("h1 fanout: threadpool and async compared ...", "p.verdict partial PARTIAL REPORT: ...", "td threadpool | p99 (ms) | ...").
/// </summary>
internal static class RenderedPage
{
    private const string PageScript = "<script type=\"application/json\" id=\"page\">";

    public static IReadOnlyList<string> LinesOf(string path) => Lines(File.ReadAllText(path));

    public static IReadOnlyList<string> Lines(string html)
    {
        using var page = Json(html);
        var lines = new List<string> { $"h1 {page.RootElement.GetProperty("title").GetString()}" };
        foreach (var block in page.RootElement.GetProperty("blocks").EnumerateArray())
        {
            var text = block.TryGetProperty("text", out var t) ? t.GetString() : null;
            var css = block.TryGetProperty("class", out var c) ? $".{c.GetString()}" : "";
            switch (block.GetProperty("kind").GetString())
            {
                case "heading":
                    lines.Add($"h{block.GetProperty("level").GetInt32()} {text}");
                    break;
                case "paragraph":
                    lines.Add($"p{css} {text}");
                    break;
                case "preformatted":
                    lines.Add($"pre {text}");
                    break;
                case "list":
                    lines.AddRange(Strings(block.GetProperty("items")).Select(item => $"li{css} {item}"));
                    break;
                case "links":
                    lines.AddRange(Strings(block.GetProperty("items")).Select(file => $"a {file}"));
                    break;
                case "table":
                    lines.Add($"th {string.Join(" | ", Strings(block.GetProperty("headers")))}");
                    lines.AddRange(block.GetProperty("rows").EnumerateArray().Select(row => $"td {string.Join(" | ", Strings(row))}"));
                    break;
                case "tiles":
                    lines.AddRange(block.GetProperty("tiles").EnumerateArray().Select(tile => $"tile {tile.GetProperty("name").GetString()}: "
                        + string.Join("; ", tile.GetProperty("figures").EnumerateArray().Select(f => $"{f.GetProperty("label").GetString()} {f.GetProperty("value").GetString()}"))));
                    break;
                case "chart":
                    // A chart without a model draws from the page's summary.
                    lines.Add($"chart {block.GetProperty("chart").GetString()} {(block.TryGetProperty("model", out var model) ? model.GetRawText() : "summary")}");
                    break;
            }
        }
        return lines;
    }

    /// <summary>The page's blocks and title as injected.</summary>
    public static JsonDocument Json(string html)
    {
        var from = html.IndexOf(PageScript, StringComparison.Ordinal) + PageScript.Length;
        Assert.True(from >= PageScript.Length, "the page carries no #page blocks");
        return JsonDocument.Parse(html[from..html.IndexOf("</script>", from, StringComparison.Ordinal)]);
    }

    private static IEnumerable<string> Strings(JsonElement array) => array.EnumerateArray().Select(e => e.GetString() ?? "");
}
