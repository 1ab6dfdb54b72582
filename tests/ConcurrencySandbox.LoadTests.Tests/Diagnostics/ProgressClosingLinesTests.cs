using System.Globalization;
using System.Text.RegularExpressions;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// One step, one p99 (issue 37, issue 39 items 4 and 5): the console's last word on each step of a <c>run --url</c> is
/// the summary's figure (every request in the step it was sent in), the one the headline reads, not the running figure
/// the step's live line printed as it closed.
/// </summary>
public sealed partial class ProgressClosingLinesTests
{
    // A step line of the console, live or closing: its load and start, the requests it counts, its p99.
    [GeneratedRegex(@"^\s*url/target step users=(?<load>[\d.]+) (?<from>[\d.]+)-[\d.]+s .*?\b(?:sent|ended)=(?<requests>\d+) .*?\bp99=(?<p99>\S+)")]
    private static partial Regex StepLine();

    [FactOnLinux]
    [Trait("Category", "Slow")]
    public async Task TheConsolesLastLineForEachStepReadsTheSummarysFigures()
    {
        // 700 ms a request in 2-s steps of 1-s intervals: every step closes with requests it sent still in flight, so a
        // step's running count is short of its final one. Steps of two intervals, not the smoke profile's one: a step is
        // cut by its intervals' loads (IntervalSeries), and an interval closed late spans two of a 1-s shape's steps, read
        // at its midpoint's load, so one step leaves no row (the clean-clone CI of 6dae860, 2026-11-30: "2 steps" of the
        // smoke run's 3, with three test processes starting at once; passed 3 of 3 by name after).
        await using var service = await SampleServiceProcess.StartAsync();
        var folder = Directory.CreateTempSubdirectory("closing-lines-").FullName;
        try
        {
            var config = Path.Combine(folder, "shape.json");
            await File.WriteAllTextAsync(config, """
                { "ReportingInterval": "00:00:01", "LoadSimulationsSettings": [
                  { "KeepConstant": [2, "00:00:02"] }, { "KeepConstant": [4, "00:00:02"] }, { "KeepConstant": [6, "00:00:02"] } ] }
                """);
            var (output, error) = (new StringWriter(), new StringWriter());
            var code = await CommandLine.InvokeAsync(
                ["run", "--url", $"{service.BaseAddress}orders/1?delayMs=700", "--config", config, "--no-observer", "--out", Path.Combine(folder, "report")],
                output, error, (_, _) => throw new InvalidOperationException("run --url has its own action"));
            Assert.True(code is CommandLine.ExitOk or CommandLine.ExitThresholdFailed, $"exit {code}: {error}");
            var summary = RunSummary.Parse(File.ReadAllText(Path.Combine(folder, "report", "summary.json")));

            // The last line the console printed for each step, by its load and start.
            var last = output.ToString().Split('\n').Select(l => StepLine().Match(l)).Where(m => m.Success)
                .GroupBy(m => (m.Groups["load"].Value, m.Groups["from"].Value)).ToDictionary(g => g.Key, g => g.Last());
            var steps = summary.Variants[0].Steps;
            // The steps are the runs of one load among the full intervals (IntervalSeries), however late a tick came: the
            // mechanism, not a count the timer decides; and more than one, so the lines below are read for several steps.
            var intervals = summary.Variants[0].Intervals;
            var loads = intervals.Where(i => !i.Tail && i.Load > 0).Select(i => i.Load).ToList();
            var runs = loads.Where((load, i) => i == 0 || load != loads[i - 1]);
            var described = $"{steps.Count} steps; intervals (end s, users): {string.Join(", ", intervals.Select(i => $"{i.ElapsedSeconds:0.00} {i.Load}"))}";
            Assert.True(runs.SequenceEqual(steps.Select(s => s.Load)), described);
            Assert.True(steps.Count >= 2, described);
            foreach (var step in steps)
            {
                var line = last[(Invariant(step.Load, "0.#"), Invariant(step.FromSeconds, "0.0"))];
                Assert.Equal(step.Outcomes.Requests, long.Parse(line.Groups["requests"].Value, CultureInfo.InvariantCulture));
                // A step none of whose requests was answered (a busy machine's last step, its requests ended by the load's end)
                // has no p99: "n/a", never the summary's 0 (CI, 2026-11-30, load about 20).
                Assert.Equal(step.NoAnswer is true ? "n/a" : $"{(step.LowerBounds?.Contains("p99Ms") == true ? "\u2265" : "")}{Invariant(step.P99Ms, "0.#")}ms", line.Groups["p99"].Value);
            }
            // Where the headline names the break's p99, the console's line of that step prints the same figure.
            if (summary.HeadlineFigures?.FirstOrDefault(f => f.Name == "p99 at the break") is { } broke)
            {
                Assert.Contains(steps, s => last[(Invariant(s.Load, "0.#"), Invariant(s.FromSeconds, "0.0"))].Groups["p99"].Value.TrimStart('\u2265') == Invariant(broke.Value, "0.#") + "ms");
            }
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    private static string Invariant(double value, string format) => value.ToString(format, CultureInfo.InvariantCulture);
}
