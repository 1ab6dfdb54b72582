using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Runs;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// Issue 39's "done when", on the committed results (docs/results) as a reader opens them: the matrix's first sentence
/// reads only figures its files hold (each run's report has its own check, <see cref="FirstScreenTests"/>), each core
/// count's report is there and linked, and every page is what <c>report</c> renders (its charts' axes and points:
/// <see cref="BrowserTests"/>).
/// </summary>
public sealed class CommittedResultsTests
{
    private static string Results => Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results");

    /// <summary>Every committed matrix folder (one with matrix.json), relative to docs/results.</summary>
    public static TheoryData<string> CommittedMatrices() =>
        [.. Directory.GetFiles(Results, "matrix.json", SearchOption.AllDirectories).Select(file => Path.GetRelativePath(Results, Path.GetDirectoryName(file)!)).Order(StringComparer.Ordinal)];

    [Theory]
    [MemberData(nameof(CommittedMatrices))]
    public void EveryNumberInACommittedMatrixsFirstSentenceIsAFigureOfItsFiles(string folder)
    {
        var path = Path.Combine(Results, folder);
        var answer = FirstSentence(File.ReadAllText(Path.Combine(path, "matrix.md")));
        var summaries = Directory.GetFiles(path, ReportWriter.SummaryFileName, SearchOption.AllDirectories).Select(file => RunSummary.Parse(File.ReadAllText(file))).ToList();

        // The seeds are introduced in words (their numbers and years); each fan-out's variants are named.
        var quoted = summaries.SelectMany(s => new[] { SeedReports.Introduce(s.Seed), $"seed {s.Seed}" }.Concat(s.Variants.Select(v => v.Name)))
            .Append(SeedReports.Introduce("004")).Append("seed 004").Append(MatrixRunner.Hypothesis3Name).OfType<string>().Distinct().OrderByDescending(words => words.Length);
        var fields = summaries.SelectMany(s => FirstScreenTests.FieldsOf(s)).Concat(FirstScreenTests.FieldsOfJson(File.ReadAllText(Path.Combine(path, "matrix.json")))).ToList();

        Assert.StartsWith("Task.Run against synchronous CPU work (seed 004) and ways to fan out blocking calls (seed 003), with the API on ", answer, StringComparison.Ordinal);
        Assert.InRange(MatrixTests.SentencesOf(answer).Count, 1, 4);
        FirstScreenTests.AssertEveryNumberIsAField(folder, quoted.Aggregate(answer, (text, words) => text.Replace(words, "", StringComparison.Ordinal)), fields);
    }

    [Theory]
    [MemberData(nameof(CommittedMatrices))]
    public void EachCoreCountsOwnReportIsCommittedAndLinkedFromTheMatrixsPages(string folder)
    {
        var path = Path.Combine(Results, folder);
        var reports = Directory.GetDirectories(path, "fanout-*").Select(d => $"{Path.GetFileName(d)}/report.html").Order(StringComparer.Ordinal).ToList();
        var markdown = File.ReadAllText(Path.Combine(path, "matrix.md"));

        Assert.NotEmpty(reports);
        Assert.All(reports, report =>
        {
            Assert.True(File.Exists(Path.Combine(path, report)), $"{folder}: {report} is not committed");
            Assert.Contains($"[{report}]({report})", markdown, StringComparison.Ordinal);
            Assert.Contains($"a {report}", RenderedPage.LinesOf(Path.Combine(path, "report.html")));
        });
    }

    /// <summary>Every committed --runs folder (one with runs.md), relative to docs/results.</summary>
    public static TheoryData<string> CommittedRunSeries() =>
        [.. Directory.GetFiles(Results, RepeatedRuns.FileName, SearchOption.AllDirectories).Select(file => Path.GetRelativePath(Results, Path.GetDirectoryName(file)!)).Order(StringComparer.Ordinal)];

    [Theory]
    [MemberData(nameof(CommittedMatrices))]
    public async Task EveryCommittedMatrixPageIsWhatReportRendersFromItsMatrixJson(string folder)
    {
        // So they cannot go stale again: a change to the matrix's words fails here until `report` has rendered them anew.
        await AssertReportRendersTheCommittedFilesAsync(folder);
    }

    [Theory]
    [MemberData(nameof(CommittedRunSeries))]
    public async Task EveryCommittedRunSeriesRunsMdIsWhatReportRendersFromItsRuns(string folder)
    {
        await AssertReportRendersTheCommittedFilesAsync(folder);
    }

    [Theory]
    [MemberData(nameof(CommittedRunSeries))]
    public void NoCommittedMatrixPageOrRunsMdPutsAnSInBracketsOnANoun(string folder)
    {
        // "1 core(s)", "request(s)": every count takes its noun in its number (CountText). The pages the matrix and the
        // series render themselves; a fan-out's own report keeps the sentences its run stored (its target, its verdict).
        var path = Path.Combine(Results, folder);
        var matrices = Directory.GetFiles(path, MatrixFile.FileName, SearchOption.AllDirectories).Select(Path.GetDirectoryName).OfType<string>().ToList();
        var pages = matrices.Select(m => Path.Combine(m, "matrix.md")).Append(Path.Combine(path, RepeatedRuns.FileName))
            .Select(file => (File: file, Text: File.ReadAllText(file)))
            .Concat(matrices.Select(m => Path.Combine(m, "report.html")).Select(file => (File: file, Text: string.Join("\n", RenderedPage.LinesOf(file)))));

        Assert.NotEmpty(matrices);
        Assert.All(pages, page => Assert.False(CountTextTests.WordWithS().IsMatch(page.Text),
            $"{Path.GetRelativePath(Results, page.File)} says \"{CountTextTests.WordWithS().Match(page.Text).Value}\": {page.Text.Split('\n').FirstOrDefault(line => CountTextTests.WordWithS().IsMatch(line))}"));
    }

    /// <summary>`report` of the committed <paramref name="folder"/> into a fresh folder writes every file it writes as committed, to the byte.</summary>
    private static async Task AssertReportRendersTheCommittedFilesAsync(string folder)
    {
        var committed = Path.Combine(Results, folder);
        var rendered = Path.Combine(Path.GetTempPath(), "committed-render-" + Guid.NewGuid().ToString("N"));
        try
        {
            using var output = new StringWriter();
            using var error = new StringWriter();
            var code = await CommandLine.InvokeAsync(["report", committed, "--out", rendered], output, error, (_, _) => throw new InvalidOperationException("report must not start a run"));

            Assert.True(code == CommandLine.ExitOk, $"report {folder}: exit {code}: {error}");
            var files = Directory.GetFiles(rendered, "*", SearchOption.AllDirectories).Select(file => Path.GetRelativePath(rendered, file)).Order(StringComparer.Ordinal).ToList();
            Assert.NotEmpty(files);
            Assert.All(files, file =>
            {
                Assert.True(File.Exists(Path.Combine(committed, file)), $"{folder}/{file} is rendered but not committed");
                Assert.True(File.ReadAllText(Path.Combine(committed, file)) == File.ReadAllText(Path.Combine(rendered, file)),
                    $"{folder}/{file} is not what `report {folder}` renders: run it and commit the folder");
            });
        }
        finally
        {
            if (Directory.Exists(rendered))
            {
                Directory.Delete(rendered, recursive: true);
            }
        }
    }

    /// <summary>The first bold paragraph of a page in Markdown: its plain answer.</summary>
    private static string FirstSentence(string markdown) =>
        markdown.Split('\n').First(line => line.StartsWith("**", StringComparison.Ordinal) && !line.StartsWith("**PARTIAL", StringComparison.Ordinal)).Trim('*');
}
