using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.LoadTests.Runs;

/// <summary>One verdict of a run: what it is about ("fanout", "hypothesis 3"), its outcome word and the sentence printed.</summary>
internal sealed record RunVerdict(string Name, string Outcome, string Text);

/// <summary>One headline figure of a run ("fanout: seed ratio"), as printed and as a number when it starts with one.</summary>
internal sealed record HeadlineFigure(string Name, string Text)
{
    /// <summary>The leading number of <see cref="Text"/> ("4.5 x (120 ms)" gives 4.5), or null.</summary>
    public double? Value => LeadingNumber(Text);

    public static double? LeadingNumber(string text)
    {
        var number = new string([.. text.TrimStart().TakeWhile(c => char.IsAsciiDigit(c) || c is '.' or '-' or ',')]).Replace(",", "", StringComparison.Ordinal);
        return double.TryParse(number, NumberStyles.Float, CultureInfo.InvariantCulture, out var value) ? value : null;
    }
}

/// <summary>A run stopped (Ctrl+C, SIGTERM): its report up to there is in <paramref name="Folder"/>, marked <paramref name="Partial"/>.</summary>
internal sealed record RunStopped(string Partial, string Folder);

/// <summary>What one whole run said: whether its thresholds passed, its verdicts and its headline figures, and where it stopped if it was stopped.</summary>
internal sealed record RunResult(bool Passed, IReadOnlyList<RunVerdict> Verdicts, IReadOnlyList<HeadlineFigure> Figures)
{
    /// <summary>Set when the run was stopped before it finished; null for a finished run.</summary>
    public RunStopped? Stopped { get; init; }

    /// <summary>An experiment's verdict (its outcome) and the seed figures it compared, today's side.</summary>
    public static RunResult Of(RunSummary summary, string? prefix = null)
    {
        var name = prefix is null ? summary.Experiment : $"{prefix} {summary.Experiment}";
        return new RunResult(
            summary.Passed,
            [new RunVerdict(name, summary.Outcome, summary.Verdict)],
            [.. summary.Comparisons.Select(c => new HeadlineFigure($"{name}: {c.Figure}", c.Today))]);
    }

    /// <summary>Several results as one (the experiments of <c>all</c>, the core counts of a matrix).</summary>
    public static RunResult Combine(IEnumerable<RunResult> results)
    {
        var list = results.ToList();
        return new RunResult(list.All(r => r.Passed), [.. list.SelectMany(r => r.Verdicts)], [.. list.SelectMany(r => r.Figures)]) { Stopped = list.Select(r => r.Stopped).LastOrDefault(s => s is not null) };
    }
}

/// <summary>
/// <c>--runs N</c>: the whole command run N times, each into its own folder (run-1, run-2, ...), then one page saying
/// whether the verdicts agreed and how far each headline figure spread across the runs.
/// </summary>
internal static class RepeatedRuns
{
    public const int MaxRuns = 20;

    public const string FileName = "runs.md";

    /// <summary>
    /// Runs <paramref name="runOnce"/> (given its folder) <paramref name="runs"/> times and writes <see cref="FileName"/>;
    /// passed when every run passed its thresholds (disagreeing verdicts are reported, not failed). A stopped run ends
    /// the series: its result is returned, and no <see cref="FileName"/> compares part of a series.
    /// </summary>
    public static async Task<RunResult> RunAsync(int runs, string outputFolder, Func<string, Task<RunResult>> runOnce, TextWriter console)
    {
        var results = new List<RunResult>(runs);
        for (var i = 1; i <= runs; i++)
        {
            console.WriteLine($"== run {i} of {runs}");
            var result = await runOnce(Path.Combine(outputFolder, RunFolder(i)));
            if (result.Stopped is not null)
            {
                return result;
            }
            results.Add(result);
        }

        var disagreements = Write(outputFolder, results);
        console.WriteLine(disagreements.Count == 0
            ? $"== runs: the verdicts of all {runs} runs agree ({Path.Combine(outputFolder, FileName)})"
            : $"== runs: the verdicts disagree on {string.Join(", ", disagreements)} ({Path.Combine(outputFolder, FileName)})");
        return RunResult.Combine(results);
    }

    /// <summary>Writes <see cref="FileName"/> of <paramref name="results"/> (run 1 first, each in its run-N folder) into <paramref name="outputFolder"/>; the verdicts they disagree on.</summary>
    public static IReadOnlyList<string> Write(string outputFolder, IReadOnlyList<RunResult> results)
    {
        Directory.CreateDirectory(outputFolder);
        File.WriteAllText(Path.Combine(outputFolder, FileName), Markdown(results, [.. Enumerable.Range(1, results.Count).Select(i => ReportsIn(outputFolder, RunFolder(i)))]));
        return Disagreements(results);
    }

    /// <summary>Run <paramref name="run"/>'s folder in the series' folder: "run-1".</summary>
    public static string RunFolder(int run) => string.Create(CultureInfo.InvariantCulture, $"run-{run}");

    /// <summary>The verdicts whose outcome word was not the same in every run (a verdict missing from a run counts as differing).</summary>
    public static IReadOnlyList<string> Disagreements(IReadOnlyList<RunResult> results) =>
        [.. results.SelectMany(r => r.Verdicts.Select(v => v.Name)).Distinct()
            .Where(name => results.Select(r => r.Verdicts.FirstOrDefault(v => v.Name == name)?.Outcome).Distinct().Count() > 1)];

    /// <summary>A headline figure's values across the runs: median and 95 % CI (from 6 runs), min, max and (max - min) / median.</summary>
    public static string SpreadOf(IReadOnlyList<double> values)
    {
        var estimate = Estimates.Of(values);
        var spreadPercent = estimate.Median != 0 ? (values.Max() - values.Min()) / Math.Abs(estimate.Median) * 100 : 0;
        return string.Create(CultureInfo.InvariantCulture,
            $"median {estimate.Median:G4} {estimate.Interval("G4")}, min {values.Min():G4}, max {values.Max():G4}, spread {spreadPercent:0.#} % of the median");
    }

    /// <summary>A row per name (in first-seen order), a column per run with that run's text, and a last column from <paramref name="summarize"/>.</summary>
    private static TextTable PerRunTable(IReadOnlyList<RunResult> results, string nameHeader, string lastHeader,
        Func<RunResult, IEnumerable<(string Name, string Text)>> cells, Func<string, IReadOnlyList<string?>, string> summarize)
    {
        var perRun = results.Select(r => cells(r).ToList()).ToList();
        var names = perRun.SelectMany(run => run.Select(c => c.Name)).Distinct();
        return new TextTable(
            [nameHeader, .. results.Select((_, i) => $"run {i + 1}"), lastHeader],
            [.. names.Select(name =>
            {
                var texts = perRun.Select(run => run.FirstOrDefault(c => c.Name == name).Text).ToList();
                return (IReadOnlyList<string>)[name, .. texts.Select(t => t ?? "(missing)"), summarize(name, texts)];
            })],
            new HashSet<int>());
    }

    /// <summary>The report.html files a run wrote (its own, and a matrix's fan-outs or each experiment of <c>all</c>), relative to <paramref name="outputFolder"/>.</summary>
    private static IReadOnlyList<string> ReportsIn(string outputFolder, string runFolder)
    {
        var folder = Path.Combine(outputFolder, runFolder);
        return Directory.Exists(folder)
            ? [.. Directory.EnumerateFiles(folder, "report.html", SearchOption.AllDirectories).Select(f => Path.GetRelativePath(outputFolder, f).Replace('\\', '/')).Order(StringComparer.Ordinal)]
            : [];
    }

    /// <param name="reports">Per run, the report.html files it wrote, relative to runs.md's folder.</param>
    public static string Markdown(IReadOnlyList<RunResult> results, IReadOnlyList<IReadOnlyList<string>> reports)
    {
        var disagreements = Disagreements(results);
        return new HtmlPage(string.Create(CultureInfo.InvariantCulture, $"{results.Count} runs of the same command"))
            .Paragraph(disagreements.Count == 0 ? "The verdicts agree in every run." : $"The verdicts disagree on: {string.Join(", ", disagreements)}.")
            .Heading(2, "Verdicts per run")
            .Table(PerRunTable(results, "verdict", "agree", r => r.Verdicts.Select(v => (v.Name, v.Text)), (name, _) => disagreements.Contains(name) ? "no" : "yes"))
            .Heading(2, "Headline figures across runs")
            .Table(PerRunTable(results, "figure", "across runs", r => r.Figures.Select(f => (f.Name, f.Text)), (_, texts) =>
            {
                var values = texts.Select(t => t is null ? null : HeadlineFigure.LeadingNumber(t)).OfType<double>().ToList();
                return values.Count == texts.Count ? SpreadOf(values) : "not a number in every run";
            }))
            .Paragraph("A spread is (max - min) / median of the runs' values.")
            .Heading(2, "Each run's report")
            .List(reports.Select((files, i) => files.Count == 0
                ? string.Create(CultureInfo.InvariantCulture, $"run {i + 1}: no report.html was written")
                : string.Create(CultureInfo.InvariantCulture, $"run {i + 1}: {string.Join(", ", files.Select(f => $"[{f}]({f})"))}")))
            .ToMarkdown();
    }
}
