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

    /// <summary>The table without column <paramref name="index"/> (its one value said once above the table instead).</summary>
    public TextTable WithoutColumn(int index) => new(
        [.. Headers.Where((_, i) => i != index)],
        [.. Rows.Select(row => (IReadOnlyList<string>)[.. row.Where((_, i) => i != index)])],
        NumericColumns.Where(i => i != index).Select(i => i > index ? i - 1 : i).ToHashSet());

    /// <summary>The cells that carry a <see cref="FigureFlag.Mark"/>, as (row, column): the page highlights them.</summary>
    public IEnumerable<int[]> FlaggedCells() =>
        Rows.SelectMany((row, r) => row.Select((cell, c) => (cell, c)).Where(x => FigureFlag.AllMarks.Any(mark => x.cell.Contains(mark, StringComparison.Ordinal))).Select(x => new[] { r, x.c }));
}
