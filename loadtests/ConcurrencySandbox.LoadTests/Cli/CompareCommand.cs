using System.CommandLine;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary><c>compare &lt;reportA&gt; &lt;reportB&gt;</c>: prints two runs side by side and writes compare.md and compare.html.</summary>
internal static class CompareCommand
{
    public static Command Create(TextWriter output, TextWriter error)
    {
        var reportA = new Argument<string>("reportA") { Description = "The first report folder (the one with summary.json)." };
        var reportB = new Argument<string>("reportB") { Description = "The second report folder, of the same experiment." };
        var outFolder = new Option<string?>("--out") { Description = "Where compare.md and compare.html go (default: reports/<yyyyMMdd-HHmmss>-compare/)." };
        var command = new Command("compare", "Compare two report folders of the same experiment: mean, p99, RPS and peak threads per variant, with deltas and ratios.")
        {
            reportA, reportB, outFolder,
        };
        command.SetAction(async parse =>
        {
            ReportComparison comparison;
            try
            {
                comparison = ReportComparison.Of(parse.GetValue(reportA)!, parse.GetValue(reportB)!);
            }
            catch (InvalidDataException e)
            {
                await error.WriteLineAsync($"error: {e.Message}");
                return CommandLine.ExitUsage;
            }
            var folder = parse.GetValue(outFolder) ?? Path.Combine("reports", $"{DateTime.Now:yyyyMMdd-HHmmss}-compare");
            comparison.Write(folder);
            await output.WriteAsync(comparison.ToMarkdown());
            await output.WriteLineAsync($"compare: {Path.GetFullPath(folder)}");
            return CommandLine.ExitOk;
        });
        return command;
    }
}
