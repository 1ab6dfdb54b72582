using System.CommandLine;
using System.Diagnostics;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>
/// <c>report PATH/summary.json</c>: renders a report folder again from its one result (summary.md, report.html, the
/// CSVs and charts, the closing lines) without running anything, its derived sentences worded by this build
/// (<see cref="RunAnalysis.Reworded"/>); a summary of another version or a file that is not
/// one is refused with one line naming the version this runner reads (exit 2).
/// </summary>
internal static class ReportCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var summaryPath = new Argument<string>("summary") { Description = "A report's summary.json (or the report folder that holds it)." };
        var outFolder = new Option<string?>("--out") { Description = "Where the rendered files go (default: the folder of the summary.json)." };
        var command = new Command("report", "Render a report again from its summary.json: summary.md, report.html, the CSVs and charts, without running anything.")
        {
            summaryPath, outFolder,
        };
        command.SetAction(async parse =>
        {
            var given = parse.GetValue(summaryPath)!;
            var path = Directory.Exists(given) ? Path.Combine(given, ReportWriter.SummaryFileName) : given;
            if (!File.Exists(path))
            {
                await error.WriteLineAsync($"error: '{given}' is neither a summary.json nor a report folder holding one");
                return CommandLine.ExitUsage;
            }
            RunSummary summary;
            try
            {
                summary = ReportFolder.ReadSummary(path, $"'{given}'");
            }
            catch (InvalidDataException e)
            {
                await error.WriteLineAsync($"error: {e.Message}");
                return CommandLine.ExitUsage;
            }
            var folder = parse.GetValue(outFolder) ?? Path.GetDirectoryName(Path.GetFullPath(path))!;
            var clock = Stopwatch.StartNew();
            // Today's words for what the summary's own fields say, written back so summary.json and the pages agree.
            summary = RunAnalysis.Reworded(summary);
            ReportWriter.Write(folder, summary);
            ReportWriter.PrintOutcome(summary, folder, output);
            await output.WriteLineAsync(FormattableString.Invariant($"rendered from {Path.GetFullPath(path)} in {clock.Elapsed.TotalSeconds:0.00} s, nothing run"));
            return CommandLine.ExitOk;
        });
        return command;
    }
}
