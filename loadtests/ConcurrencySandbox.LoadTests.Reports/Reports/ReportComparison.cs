using System.Globalization;
using System.Text;
using ConcurrencySandbox.LoadTests.Experiments;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// Two runs of the same experiment side by side: per variant the mean, p99, mean at peak load, RPS and peak pool
/// threads of each, B - A and B / A. Runs of different experiments, or without a variant in common, are not comparable.
/// </summary>
public sealed record ReportComparison(ReportFolder A, ReportFolder B)
{
    /// <summary>Reads both folders; throws <see cref="InvalidDataException"/> with one line when they cannot be compared.</summary>
    public static ReportComparison Of(string folderA, string folderB)
    {
        var (fileA, fileB) = (ReportFolder.Read(folderA), ReportFolder.Read(folderB));
        var (a, b) = (fileA.Summary, fileB.Summary);
        if (a.Experiment != b.Experiment)
        {
            throw new InvalidDataException($"not comparable: '{folderA}' ran {a.Experiment}, '{folderB}' ran {b.Experiment}");
        }
        if (!a.Variants.Any(v => b.Variants.Any(w => w.Name == v.Name)))
        {
            throw new InvalidDataException($"not comparable: no variant in common ({string.Join(", ", a.Variants.Select(v => v.Name))} vs {string.Join(", ", b.Variants.Select(v => v.Name))})");
        }
        return new ReportComparison(fileA, fileB);
    }

    public TextTable Table()
    {
        var names = A.Summary.Variants.Select(v => v.Name).Concat(B.Summary.Variants.Select(v => v.Name)).Distinct();
        var rows = new List<IReadOnlyList<string>>();
        foreach (var name in names)
        {
            var (a, b) = (A.Summary.Variants.FirstOrDefault(v => v.Name == name), B.Summary.Variants.FirstOrDefault(v => v.Name == name));
            rows.Add(Row(name, "mean (ms)", a?.MeanMs, b?.MeanMs, "0.#"));
            rows.Add(Row(name, "p99 (ms)", a?.P99Ms, b?.P99Ms, "0.#"));
            rows.Add(Row(name, "mean at peak load (ms)", a?.PeakLoadMeanMs, b?.PeakLoadMeanMs, "0.#"));
            rows.Add(Row(name, "RPS", a?.RequestsPerSecond, b?.RequestsPerSecond, "0.##"));
            rows.Add(Row(name, "peak threads", a?.PeakThreads, b?.PeakThreads, "0"));
        }
        return new TextTable(["variant", "figure", "A", "B", "B - A", "B / A"], rows, new HashSet<int> { 2, 3, 4, 5 });
    }

    private static IReadOnlyList<string> Row(string variant, string figure, double? a, double? b, string format) =>
    [
        variant,
        figure,
        a?.ToString(format, CultureInfo.InvariantCulture) ?? "n/a",
        b?.ToString(format, CultureInfo.InvariantCulture) ?? "n/a",
        a is { } x && b is { } y ? (y - x).ToString("+" + format + ";-" + format + ";0", CultureInfo.InvariantCulture) : "n/a",
        a is { } p && b is { } q && p != 0 ? (q / p).ToString("0.00", CultureInfo.InvariantCulture) + " x" : "n/a",
    ];

    private IEnumerable<string> Sides() =>
    [
        Side("A", A),
        Side("B", B),
        .. A.Machine != B.Machine ? ["The machines differ: the ratios mix the runtime's effect with the machine's."] : Array.Empty<string>(),
    ];

    private static string Side(string label, ReportFolder s) =>
        string.Create(CultureInfo.InvariantCulture, $"{label}: {s.Folder}, started {s.Summary.StartedAt:u}, profile {s.Summary.Profile}, {s.Machine}, `{s.Summary.CommandLine}`");

    public string Title => $"{A.Summary.Experiment}, run A beside run B{(SeedReports.Introduce(A.Summary.Seed) is { } seed ? $" ({seed})" : "")}";

    public string ToMarkdown()
    {
        var md = new StringBuilder();
        md.AppendLine($"# {Title}");
        md.AppendLine();
        foreach (var line in Sides())
        {
            md.AppendLine($"- {line}");
        }
        md.AppendLine();
        md.Append(Table().ToMarkdown());
        return md.ToString();
    }

    public string ToHtml() => new HtmlPage(Title).List(Sides()).Table(Table()).ToString();

    /// <summary>Writes compare.md and compare.html into <paramref name="folder"/>.</summary>
    public void Write(string folder)
    {
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "compare.md"), ToMarkdown());
        File.WriteAllText(Path.Combine(folder, "compare.html"), ToHtml());
    }
}
