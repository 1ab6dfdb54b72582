using System.CommandLine;
using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Runs;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>
/// <c>report PATH/summary.json</c>: renders a report folder again from its one result (summary.md, report.html, the
/// CSVs and charts, the closing lines) without running anything, its derived sentences worded by this build
/// (<see cref="RunAnalysis.Reworded"/>). <c>report PATH/matrix.json</c> renders every page of a matrix folder (and its
/// fan-outs' reports) through the matrix command's own <see cref="MatrixReport.Write"/>; <c>report</c> of a
/// <c>--runs</c> folder renders each run-N and then runs.md; of an <c>all</c> folder, each experiment's folder in the
/// order <c>all</c> runs them (an <c>all --runs</c> folder: each run-N that way, then runs.md). A file of another version
/// or one that is not a runner's is refused with one line naming the version this runner reads (exit 2).
/// </summary>
internal static class ReportCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var summaryPath = new Argument<string>("summary") { Description = "A report's summary.json, a matrix's matrix.json, or the folder that holds one (an 'all' folder: every experiment's; a --runs folder: every run-N and runs.md)." };
        var outFolder = new Option<string?>("--out") { Description = "Where the rendered files go (default: the folder of the summary.json or matrix.json)." };
        var command = new Command("report", "Render a report again from its summary.json (or a matrix from its matrix.json): every page, the CSVs and charts, without running anything.")
        {
            summaryPath, outFolder,
        };
        command.SetAction(async parse =>
        {
            var given = parse.GetValue(summaryPath)!;
            var clock = Stopwatch.StartNew();
            string read;
            try
            {
                read = Render(given, parse.GetValue(outFolder), output);
            }
            catch (InvalidDataException e)
            {
                await error.WriteLineAsync($"error: {e.Message}");
                return CommandLine.ExitUsage;
            }
            await output.WriteLineAsync(FormattableString.Invariant($"rendered from {read} in {clock.Elapsed.TotalSeconds:0.00} s, nothing run"));
            return CommandLine.ExitOk;
        });
        return command;
    }

    /// <summary>
    /// Renders what <paramref name="given"/> names into <paramref name="outFolder"/> (default: where it is) and prints its
    /// closing lines; what it read. Throws <see cref="InvalidDataException"/> with one line when it is no runner's result.
    /// </summary>
    private static string Render(string given, string? outFolder, TextWriter output)
    {
        if (IsRunsFolder(given))
        {
            var target = outFolder ?? given;
            var runs = Enumerable.Range(1, RepeatedRuns.MaxRuns).Select(RepeatedRuns.RunFolder).TakeWhile(run => Directory.Exists(Path.Combine(given, run))).ToList();
            var results = runs.Select(run => RenderOne(Path.Combine(given, run), Path.Combine(target, run), output).Result).ToList();
            RepeatedRuns.Write(target, results);
            return $"{Path.GetFullPath(given)} ({string.Join(", ", runs)})";
        }
        var (path, _) = RenderOne(given, outFolder, output);
        return path;
    }

    /// <summary>The experiments' folders of an <c>all</c> folder (no result of its own), in the order <c>all</c> runs them; empty for any other path.</summary>
    private static IReadOnlyList<string> ExperimentFolders(string given) =>
        !Directory.Exists(given) || File.Exists(Path.Combine(given, ReportWriter.SummaryFileName)) || File.Exists(Path.Combine(given, MatrixFile.FileName))
            ? []
            : [.. ExperimentList.Names.Where(name => File.Exists(Path.Combine(given, name, ReportWriter.SummaryFileName)))];

    /// <summary>A <c>--runs</c> folder: run-1 and no result of its own.</summary>
    private static bool IsRunsFolder(string given) =>
        Directory.Exists(Path.Combine(given, RepeatedRuns.RunFolder(1)))
        && !File.Exists(Path.Combine(given, ReportWriter.SummaryFileName)) && !File.Exists(Path.Combine(given, MatrixFile.FileName));

    /// <summary>
    /// Renders one summary.json or matrix.json (or the folder holding it), or an <c>all</c> folder (one folder per
    /// experiment, in the order <c>all</c> runs them); the path read and what <c>--runs</c> compares of it.
    /// </summary>
    private static (string Path, RunResult Result) RenderOne(string given, string? outFolder, TextWriter output)
    {
        if (ExperimentFolders(given) is { Count: > 0 } experiments)
        {
            var results = experiments.Select(name => RenderOne(Path.Combine(given, name), Path.Combine(outFolder ?? given, name), output).Result).ToList();
            return ($"{Path.GetFullPath(given)} ({string.Join(", ", experiments)})", RunResult.Combine(results));
        }
        var path = !Directory.Exists(given) ? given
            : File.Exists(Path.Combine(given, MatrixFile.FileName)) ? Path.Combine(given, MatrixFile.FileName)
            : Path.Combine(given, ReportWriter.SummaryFileName);
        if (!File.Exists(path))
        {
            throw new InvalidDataException($"'{given}' is neither a summary.json nor a matrix.json nor a report folder holding one");
        }
        var folder = outFolder ?? Path.GetDirectoryName(Path.GetFullPath(path))!;
        if (Path.GetFileName(path) == MatrixFile.FileName)
        {
            var matrix = MatrixFile.Render(path, $"'{given}'", folder);
            foreach (var verdict in matrix.Verdicts)
            {
                output.WriteLine($"== {verdict.Name}: {verdict.Text}");
            }
            return (Path.GetFullPath(path), matrix);
        }
        // Today's words for what the summary's own fields say, written back so summary.json and the pages agree.
        var summary = RunAnalysis.Reworded(ReportFolder.ReadSummary(path, $"'{given}'"));
        ReportWriter.Write(folder, summary);
        ReportWriter.PrintOutcome(summary, folder, output);
        return (Path.GetFullPath(path), RunResult.Of(summary));
    }
}
