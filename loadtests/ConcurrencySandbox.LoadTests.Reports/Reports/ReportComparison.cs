using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// Two runs of the same experiment side by side: per variant the mean, p99, p99 at peak load, RPS and peak pool
/// threads of each, B - A and B / A, and the rounds' verdict figure when both runs have one. Each side's figure carries
/// the 95 % CI its summary gives (over its rounds), and B - A is read by the one noise rule (<see cref="Noise"/>): "no
/// difference measured (within noise: ...)" when the intervals overlap, "not judged" where a side has no CI. Runs of
/// different experiments, or without a variant in common, are not comparable.
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

    /// <summary>
    /// A compared figure: its name, how it prints, its value in a variant, its latency member and the row that says whether
    /// it is a lower bound or no answer (the variant's totals, or its peak step), and its value in one round, when rounds measure it.
    /// </summary>
    private sealed record Figure(string Name, string Format, Func<SummaryVariant, double?> OfVariant, string? LatencyMember, Func<SummaryVariant, LatencyRow?>? RowOf, Func<SummaryRoundVariant, double?>? OfRound);

    /// <summary>A row's latency context: which of its latency members are lower bounds, and whether it has no latency at all.</summary>
    private sealed record LatencyRow(IReadOnlyList<string>? LowerBounds, bool NoAnswer);

    private static LatencyRow Totals(SummaryVariant v) => new(v.LowerBounds, v.Outcomes.NoAnswer);

    private static readonly Figure[] Figures =
    [
        new("mean (ms)", "0.#", v => v.MeanMs, "meanMs", Totals, r => r.MeanMs),
        new("p99 (ms)", "0.#", v => v.P99Ms, "p99Ms", Totals, r => r.P99Ms),
        new("p99 at peak load (ms)", "0.#", v => v.PeakStep is { Outcomes.NoAnswer: false } step ? step.P99Ms : null, "p99Ms",
            v => v.PeakStep is { } step ? new LatencyRow(step.LowerBounds, step.Outcomes.NoAnswer) : null, null),
        new("RPS", "0.##", v => v.RequestsPerSecond, null, null, r => r.RequestsPerSecond),
        new("peak threads", "0", v => v.PeakThreads, null, null, null),
    ];

    /// <summary>One side's figure as compared: its value, its cell, its 95 % CI when it has one, and whether it is a lower bound (requests timed out).</summary>
    private sealed record Measured(double? Value, string Cell, double? Low = null, double? High = null, bool Bound = false);

    /// <summary>What the table's B - A column means, said once under it.</summary>
    public const string DifferenceNote =
        "A figure with [low, high] is the median over the run's interleaved rounds with its 95 % CI (the report's per-variant table shows one round). " +
        "B - A is judged by its 95 % CI [B's low - A's high, B's high - A's low]: \"" + Noise.NoDifference + " (within noise: ...)\" when it reaches 0, which is when the two intervals overlap. " +
        "A figure has no CI in a run of fewer than 6 rounds, when it is a lower bound (\u2265: requests timed out), or when it is not measured per round (p99 at peak load, peak threads); " +
        "against a lower bound, B - A and B / A are bounds too (\u2264 when A's figure is one, \u2265 when B's is), and between two lower bounds there is none; " +
        "a difference with a side without one is printed but not judged: run both with --rounds 6 or more to judge it.";

    /// <summary>One row of the table: a figure of a variant (or of the run) in A and in B, and what B - A says.</summary>
    private sealed record Compared(string Variant, string Figure, Measured A, Measured B, string Format)
    {
        /// <summary>Both sides carry a 95 % CI and neither is a lower bound: B - A is judged by the noise rule.</summary>
        public bool Judged => A is { Value: not null, Low: not null, High: not null } && B is { Value: not null, Low: not null, High: not null };

        /// <summary>Judged, and its interval [B's low - A's high, B's high - A's low] clears 0.</summary>
        public bool Differs => Judged && !Noise.Reaches0(B.Low - A.High, B.High - A.Low);

        public IReadOnlyList<string> Cells => [Variant, Figure, A.Cell, B.Cell, Difference(A, B, Format), RatioCell(A, B)];
    }

    private IReadOnlyList<Compared> Rows()
    {
        var names = A.Summary.Variants.Select(v => v.Name).Concat(B.Summary.Variants.Select(v => v.Name)).Distinct();
        var rows = new List<Compared>();
        foreach (var name in names)
        {
            var (a, b) = (A.Summary.Variants.FirstOrDefault(v => v.Name == name), B.Summary.Variants.FirstOrDefault(v => v.Name == name));
            rows.AddRange(Figures.Select(f => new Compared(name, f.Name, Measure(A.Summary, a, f), Measure(B.Summary, b, f), f.Format)));
        }
        if (A.Summary.Rounds is { Figure: { } figure, Median: { } } roundsA && B.Summary.Rounds is { Median: { } } roundsB && roundsB.Figure == figure)
        {
            // At the format the run's pages print the figure at (SummaryRounds.Show), so compare and the pages read alike.
            var format = roundsA.Format ?? roundsB.Format ?? SummaryRounds.UnstatedFormat;
            rows.Add(new Compared("(the run)", figure, VerdictFigure(roundsA, format), VerdictFigure(roundsB, format), format));
        }
        return rows;
    }

    public TextTable Table() =>
        // B - A is words as often as a number ("no difference measured (within noise: ...)"): not a numeric column, so it wraps and the table fits the page.
        new(["variant", "figure", "A", "B", "B - A", "B / A"], [.. Rows().Select(r => r.Cells)], new HashSet<int> { 2, 3, 5 });

    /// <summary>
    /// The page's first sentence: which figures B moved beyond noise (each's B - A with its CI and B / A, as the table
    /// prints them), then how many the noise rule could not tell apart and how many it could not judge, and why.
    /// </summary>
    public string Answer()
    {
        var rows = Rows();
        var differs = rows.Where(r => r.Differs).ToList();
        var within = rows.Count(r => r.Judged && !r.Differs);
        var notJudged = rows.Count(r => !r.Judged);
        var moved = differs.Count == 0
            ? "no figure moved beyond noise"
            : $"{CountText.Of(differs.Count, "figure")} moved beyond noise (B - A with its 95 % CI, which clears 0, then B / A): "
                + string.Join("; ", differs.Select(r => $"{(r.Variant == "(the run)" ? "the run's" : r.Variant)} {r.Figure} {Difference(r.A, r.B, r.Format)} ({RatioCell(r.A, r.B)})"));
        var rest = new List<string>();
        if (within > 0)
        {
            rest.Add($"{CountText.Of(within, "figure")} within noise");
        }
        if (notJudged > 0)
        {
            rest.Add($"{CountText.Of(notJudged, "figure")} not judged (a side without a 95 % CI: fewer than 6 rounds, a lower bound, or not measured per round)");
        }
        return $"{A.Summary.Experiment}, run B against run A: {moved}{(rest.Count == 0 ? "" : "; " + string.Join("; ", rest))}.";
    }

    /// <summary>
    /// A variant's figure in one run: with rounds that measure it, their median and 95 % CI (<see cref="Estimates"/>, as
    /// the verdict takes it); else the variant's figure, without a CI (one round, fewer than 6, a lower bound, or not measured per round).
    /// </summary>
    private static Measured Measure(RunSummary run, SummaryVariant? v, Figure f)
    {
        if (v is null || f.OfVariant(v) is not { } value)
        {
            return new Measured(null, "n/a");
        }
        var row = f.RowOf?.Invoke(v);
        var bound = f.LatencyMember is { } member && row?.LowerBounds?.Contains(member) == true;
        var cell = f.LatencyMember is { } latency && row is not null ? ReportWriter.Cell(value, latency, row.LowerBounds, row.NoAnswer, f.Format) : value.ToString(f.Format, CultureInfo.InvariantCulture);
        double[] rounds = bound || f.OfRound is not { } perRound ? []
            : [.. (run.Rounds?.Rounds ?? []).SelectMany(r => r.Variants).Where(r => r.Variant == v.Name).Select(perRound).OfType<double>()];
        return rounds.Length > 0 && Estimates.Of(rounds) is { Low: { } low, High: { } high } estimate
            ? new Measured(estimate.Median, Interval(estimate.Median, low, high, f.Format), low, high)
            : new Measured(value, cell, Bound: bound);
    }

    /// <summary>The rounds' verdict figure as summary.json carries it: its median and 95 % CI, at the figure's format.</summary>
    private static Measured VerdictFigure(SummaryRounds rounds, string format) => rounds is { Median: { } median, Low: { } low, High: { } high }
        ? new Measured(median, Interval(median, low, high, format), low, high)
        : new Measured(rounds.Median, rounds.Median?.ToString(format, CultureInfo.InvariantCulture) ?? "n/a");

    private static string Interval(double median, double low, double high, string format) =>
        $"{median.ToString(format, CultureInfo.InvariantCulture)} [{low.ToString(format, CultureInfo.InvariantCulture)}, {high.ToString(format, CultureInfo.InvariantCulture)}]";

    /// <summary>B / A as the table prints it, with the mark a lower bound gives it; "n/a" without both figures or between two lower bounds.</summary>
    private static string RatioCell(Measured a, Measured b) =>
        a.Value is { } p && b.Value is { } q && p != 0 && BoundOf(a, b) is { } mark ? mark + Ratio(q / p) + " x" : "n/a";

    /// <summary>
    /// The mark B - A and B / A carry when a side is a lower bound: A at least its figure makes them at most ("≤ "), B
    /// at least its figure makes them at least ("≥ "); both lower bounds bound neither (null); no bound, no mark.
    /// </summary>
    private static string? BoundOf(Measured a, Measured b) => (a.Bound, b.Bound) switch
    {
        (true, true) => null,
        (true, false) => "\u2264 ",
        (false, true) => "\u2265 ",
        _ => "",
    };

    /// <summary>A ratio with the digits a small one needs to read as what it is (0.0033 x, never "0.00 x").</summary>
    private static string Ratio(double ratio) => ratio.ToString(Math.Abs(ratio) >= 0.1 ? "0.00" : "0.####", CultureInfo.InvariantCulture);

    /// <summary>B - A judged by the one noise rule when both sides have a CI; printed as "not judged", naming the side without one, when either has none.</summary>
    private static string Difference(Measured a, Measured b, string format)
    {
        if (a.Value is not { } x || b.Value is not { } y)
        {
            return "n/a";
        }
        if (BoundOf(a, b) is not { } mark)
        {
            return "n/a (both lower bounds: requests timed out in A and B)";
        }
        if (a is { Low: { } aLow, High: { } aHigh } && b is { Low: { } bLow, High: { } bHigh })
        {
            return Noise.Difference(x, aLow, aHigh, y, bLow, bHigh, format);
        }
        var without = string.Join(" and ", new[] { ("A", a.Low), ("B", b.Low) }.Where(s => s.Item2 is null).Select(s => s.Item1));
        return $"{mark}{Noise.Signed(y - x, format)} (not judged: no 95 % CI in {without})";
    }

    private IEnumerable<string> Sides() =>
    [
        Side("A", A),
        Side("B", B),
        .. A.Machine != B.Machine ? ["The machines differ: the ratios mix the runtime's effect with the machine's."] : Array.Empty<string>(),
    ];

    private static string Side(string label, ReportFolder s) =>
        string.Create(CultureInfo.InvariantCulture, $"{label}: {s.Folder}, started {s.Summary.StartedAt:u}, profile {s.Summary.Profile}, {(s.Summary.Rounds is { } r ? CountText.Of(r.Rounds.Count, "round") : "one round")}, {s.Machine}, `{s.Summary.CommandLine}`");

    public string Title => $"{A.Summary.Experiment}, run A beside run B{(SeedReports.Introduce(A.Summary.Seed) is { } seed ? $" ({seed})" : "")}";

    /// <summary>The page, compare.html's and compare.md's alike: the plain answer, the two runs, the table and what B - A means.</summary>
    private HtmlPage Page() => new HtmlPage(Title).Paragraph(Answer(), HtmlPage.AnswerClass).List(Sides()).Table(Table()).Paragraph(DifferenceNote);

    public string ToMarkdown() => Page().ToMarkdown();

    public string ToHtml() => Page().ToString();

    /// <summary>Writes compare.md and compare.html into <paramref name="folder"/>.</summary>
    public void Write(string folder)
    {
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "compare.md"), ToMarkdown());
        File.WriteAllText(Path.Combine(folder, "compare.html"), ToHtml());
    }
}
