using System.Diagnostics;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>The real runner, as a process, stopped by SIGINT mid-run: what it writes of the run so far and how it exits.</summary>
[Trait("Category", "Slow")]
public sealed class StoppedRunEndToEndTests : EndToEndRun
{
    [Fact]
    public async Task SigintMidRunWritesTheReportUpToThereMarkedPartialAndExits()
    {
        using var runner = StartRunner("sleep", "--profile", "smoke", "--milliseconds", "20", "--live", "0", "--out", Out);
        using var http = new HttpClient { Timeout = TimeSpan.FromMinutes(3) };
        try
        {
            var (first, ended) = await WatchLivePageAsync(runner, http);
            // Mid-way: sync has finished and taskrun has closed a step.
            var (code, output, error) = await CommandRun.InterruptAfterAsync(runner, line => line.StartsWith("sleep/taskrun step ", StringComparison.Ordinal), first);

            Assert.True(code == CommandLine.ExitCancelled, $"exit {code}: {error}\n{output}");
            Assert.Contains("== PARTIAL REPORT: partial: stopped after variant taskrun step ", output);
            var summary = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(Out, "summary.json")));
            Assert.StartsWith("partial: stopped after variant taskrun step ", summary.Partial);
            Assert.EndsWith("finished before it: sync", summary.Partial);
            Assert.Equal(["sync", "taskrun"], summary.Variants.Select(v => v.Name));
            Assert.NotEmpty(summary.Variants[1].Steps);
            Assert.Equal("NotAssessed", summary.Outcome);
            Assert.Contains("**PARTIAL REPORT: partial: stopped after variant taskrun", await File.ReadAllTextAsync(Path.Combine(Out, "summary.md")));
            Assert.StartsWith("p.verdict partial PARTIAL REPORT: partial: stopped after variant taskrun", RenderedPage.LinesOf(Path.Combine(Out, "report.html"))[1]);
            // The live page is told too: its end event says the run was stopped and where the partial report is.
            var end = await ended;
            Assert.Contains("\"outcome\":\"cancelled\"", end, StringComparison.Ordinal);
            Assert.Contains("marked partial: stopped after variant taskrun step ", end, StringComparison.Ordinal);
        }
        finally
        {
            KillIfRunning(runner);
        }
    }

    [Fact]
    public async Task SigintMidMatrixWritesTheMatrixReportOfWhatRanMarkedPartialWithNoVerdict()
    {
        using var runner = StartRunner("matrix", "--cpus", "1", "--matrix-experiments", "sweep,fanout", "--sweep-to", "1000", "--sweep-repeat", "1", "--sweep-budget-s", "4",
            "--profile", "smoke", "--strategies", "threadpool,async", "--calls", "2", "--delay-ms", "50", "--live", "0", "--out", Out);
        using var http = new HttpClient { Timeout = TimeSpan.FromMinutes(3) };
        try
        {
            var (first, ended) = await WatchLivePageAsync(runner, http);
            // After the sweep and the first step of the fan-out's first variant.
            var (code, output, error) = await CommandRun.InterruptAfterAsync(runner, line => line.StartsWith("fanout/threadpool@1cpu step ", StringComparison.Ordinal), first);

            Assert.True(code == CommandLine.ExitCancelled, $"exit {code}: {error}\n{output}");
            const string where = "partial: stopped in the fan-out on 1 core, after variant threadpool@1cpu step ";
            Assert.Contains($"== PARTIAL REPORT: {where}", output);
            Assert.Contains("finished before it: the compute sweep on 1 core", output);
            // No verdict from part of a matrix: hypothesis 3 and the fan-out are not judged, and no experiment's verdict line is printed.
            Assert.Contains("== matrix: " + Matrix.MatrixRunner.Hypothesis3Name + " not judged: ", output);
            Assert.DoesNotContain("== fanout: ", output);
            var matrix = await File.ReadAllTextAsync(Path.Combine(Out, "matrix.md"));
            Assert.StartsWith("# Core-count matrix, PARTIAL", matrix);
            Assert.Contains($"**PARTIAL REPORT: {where}", matrix);
            Assert.Contains("| 1 core: Sync |", matrix);
            Assert.Contains("| threadpool@1cpu |", matrix);
            Assert.DoesNotContain(" confirmed: ", matrix);
            Assert.DoesNotContain(" refuted: ", matrix);
            using (var json = System.Text.Json.JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(Out, "matrix.json"))))
            {
                Assert.StartsWith(where, json.RootElement.GetProperty("partial").GetString());
            }
            Assert.StartsWith($"p.verdict partial PARTIAL REPORT: {where}", RenderedPage.LinesOf(Path.Combine(Out, "report.html"))[1]);
            // The stopped fan-out's own report holds its closed step, marked partial, not assessed.
            var fanOut = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(Out, "fanout-1cpu", "summary.json")));
            Assert.StartsWith("partial: stopped after variant threadpool@1cpu step ", fanOut.Partial);
            Assert.NotEmpty(fanOut.Variants[0].Steps);
            Assert.Equal("NotAssessed", fanOut.Outcome);
            var end = await ended;
            Assert.Contains("\"outcome\":\"cancelled\"", end, StringComparison.Ordinal);
            Assert.Contains($"marked {where}", end, StringComparison.Ordinal);
        }
        finally
        {
            KillIfRunning(runner);
        }
    }

    [Fact]
    public async Task SigintMidFindCapacityWritesTheStepsDoneMarkedPartialAndClaimsNoCapacity()
    {
        await using var service = await Diagnostics.SampleServiceProcess.StartAsync();
        using var runner = StartRunner("run", "--url", $"{service.BaseAddress}orders/1?delayMs=20", "--find-capacity", "--slo-p99-ms", "1500", "--step-s", "1", "--settle-s", "1", "--max-duration-s", "120", "--out", Out);
        try
        {
            // Once the ramp's second step has started: the unloaded measure and the first step are done.
            var (code, output, error) = await CommandRun.InterruptAfterAsync(runner, line => line.StartsWith("-- url/4-users: ", StringComparison.Ordinal));

            Assert.True(code == CommandLine.ExitCancelled, $"exit {code}: {error}\n{output}");
            Assert.Contains("== PARTIAL REPORT: partial: stopped after variant ", output);
            Assert.Contains("== Capacity not found: stopped (Ctrl+C or SIGTERM)", output);
            Assert.DoesNotContain("Held ", output);
            var summary = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(Out, "summary.json")));
            // Stopped during the 4-users step's climb (1, 2, 3 users), its settling interval or its hold: the step of its shape it reached.
            Assert.Matches(@"^partial: stopped after variant 4-users step \d of 5 ", summary.Partial);
            Assert.EndsWith("finished before it: unloaded-1-user, 2-users", summary.Partial);
            Assert.StartsWith("Capacity not found: stopped", summary.Headline);
            Assert.Equal(["unloaded-1-user", "2-users"], summary.Variants.Take(2).Select(v => v.Name));
            Assert.Equal("NotAssessed", summary.Outcome);
            Assert.Contains("**PARTIAL REPORT: partial: stopped after variant ", await File.ReadAllTextAsync(Path.Combine(Out, "summary.md")));
            Assert.StartsWith("p.verdict partial PARTIAL REPORT: ", RenderedPage.LinesOf(Path.Combine(Out, "report.html"))[1]);
        }
        finally
        {
            KillIfRunning(runner);
        }
    }

    [Fact]
    public async Task SigintMidUrlRunWritesItsReportMarkedPartial()
    {
        await using var service = await Diagnostics.SampleServiceProcess.StartAsync();
        using var runner = StartRunner("run", "--url", $"{service.BaseAddress}orders/1?delayMs=20", "--profile", "smoke", "--out", Out);
        try
        {
            var (code, output, error) = await CommandRun.InterruptAfterAsync(runner, line => line.StartsWith("url/target step ", StringComparison.Ordinal));

            Assert.True(code == CommandLine.ExitCancelled, $"exit {code}: {error}\n{output}");
            var summary = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(Out, "summary.json")));
            Assert.StartsWith("partial: stopped after variant target step ", summary.Partial);
            Assert.NotEmpty(summary.Variants[0].Steps);
            Assert.Null(summary.Headline);
            Assert.Equal("NotAssessed", summary.Outcome);
        }
        finally
        {
            KillIfRunning(runner);
        }
    }

    private static Process StartRunner(params string[] args) => CommandRun.Start("dotnet", [typeof(Runner).Assembly.Location, .. args]);

    private static void KillIfRunning(Process runner)
    {
        if (!runner.HasExited)
        {
            runner.Kill(entireProcessTree: true);
        }
    }

    /// <summary>Reads the runner's first line (the live page's address) and starts following the page's events to the run's end.</summary>
    private static async Task<(string First, Task<string> Ended)> WatchLivePageAsync(Process runner, HttpClient http)
    {
        var first = await runner.StandardOutput.ReadLineAsync();
        Assert.StartsWith("live: http://127.0.0.1:", first);
        return (first!, LiveEndAsync(http, new Uri(first!["live: ".Length..].Split(' ')[0])));
    }

    /// <summary>Reads the live page's event stream as a page would, until the run's end event; then loads the report, as the page does, so the runner need not wait for it.</summary>
    private static async Task<string> LiveEndAsync(HttpClient http, Uri page)
    {
        using var events = await http.GetAsync(new Uri(page, "/events"), HttpCompletionOption.ResponseHeadersRead);
        using var reader = new StreamReader(await events.Content.ReadAsStreamAsync());
        while (await reader.ReadLineAsync() is { } line)
        {
            if (line.StartsWith("data: ", StringComparison.Ordinal) && line.Contains("\"outcome\":", StringComparison.Ordinal))
            {
                await http.GetStringAsync(new Uri(page, "/report"));
                return line;
            }
        }
        return "";
    }
}
