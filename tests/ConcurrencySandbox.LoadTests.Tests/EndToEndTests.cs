using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Experiments.Streaming;
using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>The real runner, as a process, against the API child it starts itself: mechanisms, counts and exit codes only.</summary>
[Trait("Category", "Slow")]
public sealed class EndToEndTests : IDisposable
{
    private readonly string _out = Path.Combine(Path.GetTempPath(), "loadtests-e2e-" + Guid.NewGuid().ToString("N"));

    [Fact]
    public async Task SmokeRunWritesTheReportAndAnImpossibleThresholdFailsTheRun()
    {
        var (code, output, _) = await RunRunnerAsync(
            "sleep", "--profile", "smoke", "--milliseconds", "20", "--out", _out, "--threshold", "*:p99<0.001");

        Assert.Equal(CommandLine.ExitThresholdFailed, code);
        Assert.Contains("THRESHOLD FAILED: *:p99<0.001", output);
        string[] variants = ["sync", "taskrun", "async"];

        var curves = ReadCsv("curves.csv");
        foreach (var variant in variants)
        {
            var rows = curves.Where(r => r["variant"] == variant).ToList();
            Assert.NotEmpty(rows);
            Assert.Contains(rows, r => double.Parse(r["rps"], CultureInfo.InvariantCulture) > 0 && long.Parse(r["ok"], CultureInfo.InvariantCulture) > 0);
        }

        var telemetry = ReadCsv("telemetry.csv");
        foreach (var variant in variants)
        {
            var completed = telemetry.Where(r => r["variant"] == variant).Select(r => long.Parse(r["completed_items"], CultureInfo.InvariantCulture)).ToList();
            Assert.True(completed.Count >= 2, $"{variant}: {completed.Count} telemetry samples");
            Assert.True(completed[^1] > completed[0], $"{variant}: the pool's completed work items did not move");
        }

        var summary = await File.ReadAllTextAsync(Path.Combine(_out, "summary.md"));
        Assert.All(variants, v => Assert.Contains($"| {v} |", summary));
        Assert.Contains("FAIL", summary);
        Assert.True(File.Exists(Path.Combine(_out, "summary.json")));
        Assert.StartsWith("<svg", await File.ReadAllTextAsync(Path.Combine(_out, "chart.svg")));
        var html = await File.ReadAllTextAsync(Path.Combine(_out, "report.html"));
        Assert.Contains(RenderedPage.Lines(html), line => line.StartsWith("p.verdict", StringComparison.Ordinal));
        // What ran, as it ran: the dotnet host with the runner's dll (RunnerCommandLine.LauncherOf), then the arguments.
        Assert.Contains("ConcurrencySandbox.LoadTests.dll sleep --profile smoke --milliseconds 20", html);
    }

    [Fact]
    public async Task MatrixTakesTheObserverOptionsOfTheRunLikeEveryExperiment()
    {
        // The matrix runs in the same composition root as the experiments: --no-observer reaches its fan-out (it was ignored).
        var (code, output, error) = await RunRunnerAsync(
            "matrix", "--cpus", "1", "--matrix-experiments", "fanout", "--profile", "smoke", "--strategies", "async", "--calls", "2", "--delay-ms", "50", "--no-observer", "--out", _out);

        Assert.True(code is CommandLine.ExitOk or CommandLine.ExitThresholdFailed, $"exit {code}: {error}\n{output}");
        var summary = await File.ReadAllTextAsync(Path.Combine(_out, "fanout-1cpu", "summary.json"));
        Assert.Contains("(not observed: --no-observer)", summary);
    }

    [Fact]
    public async Task MatrixShortFormWritesTheSweepAndFanOutTablesPerCoreCount()
    {
        var (code, output, error) = await RunRunnerAsync(
            "matrix", "--cpus", "1,2", "--profile", "smoke", "--sweep-to", "1000", "--sweep-repeat", "1", "--sweep-budget-s", "4",
            "--strategies", "threadpool,async", "--calls", "2", "--delay-ms", "50", "--out", _out);

        // Exit 1 is possible: the default async p99 limit is a timing on two shared cores; the tables are what is checked.
        Assert.True(code is CommandLine.ExitOk or CommandLine.ExitThresholdFailed, $"exit {code}: {error}\n{output}");
        Assert.DoesNotContain("Not assessed", output);
        var matrix = await File.ReadAllTextAsync(Path.Combine(_out, "matrix.md"));
        Assert.Contains("## Compute sweep (seed 004's table) per core count", matrix);
        Assert.Contains("Hypothesis 3", matrix);
        foreach (var cpus in new[] { 1, 2 })
        {
            var measured = matrix.Contains($"| {CountText.Of(cpus, "core")}: Sync |", StringComparison.Ordinal)
                && matrix.Contains($"\n| {cpus} | {cpus} | threadpool@{cpus}cpu |", StringComparison.Ordinal);
            Assert.True(measured || matrix.Contains($"{CountText.Of(cpus, "core")}: skipped", StringComparison.Ordinal), $"{CountText.Of(cpus, "core")} neither measured nor skipped:\n{matrix}");
        }
        Assert.Contains("threadpool@1cpu", await File.ReadAllTextAsync(Path.Combine(_out, "curves.csv")));
    }

    [Fact]
    public async Task StreamingSmokeRunChecksEveryMessageOfEveryImplementationAndPrintsTheSeedBesideToday()
    {
        var (code, output, error) = await RunRunnerAsync(
            "streaming", "--profile", "smoke", "--clients", "4", "--connect-interval-ms", "5", "--interval-ms", "20", "--out", _out);

        // Exit 0: no message lost, corrupt or out of order (the default threshold); timings are not judged here.
        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        var curves = ReadCsv("curves.csv");
        foreach (var variant in new[] { "allocating", "saea-pooled", "pipelines" })
        {
            Assert.Contains(curves, r => r["variant"] == variant && long.Parse(r["ok"], CultureInfo.InvariantCulture) > 0);
        }

        var summary = await File.ReadAllTextAsync(Path.Combine(_out, "summary.md"));
        Assert.Contains("| saea-pooled | allocated per message, net of idle |", summary);
        Assert.Contains("| saea-pooled | client process CPU |", summary);
        Assert.Contains("310,188 allocations", summary);

        // Streaming measures the API's own allocations: no observer, no telemetry request while a variant runs.
        Assert.Contains("not attached (streaming measures the API's own allocations", output);
        Assert.Contains("GET /api/telemetry/history once after the variant", summary);

        // The pinning this machine gets by default (apart on 2+ cpus, or why not) is in the report's load shape.
        var pinning = StreamingPinning.Resolve(null, null, CpuSet.OfThisProcess(), CpuSet.CanPin).Describe();
        var json = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "summary.json")));
        Assert.Contains(pinning, json.LoadShape);
        Assert.Contains(pinning, summary);
    }

    [Fact]
    public async Task StreamingFindCapacityRampsEveryImplementationAndGivesACapacityAndAVerdict()
    {
        var (code, output, error) = await RunRunnerAsync(
            "streaming", "--find-capacity", "--capacity-from", "2", "--capacity-to", "3", "--capacity-step-s", "1", "--interval-ms", "50", "--out", _out);

        // Whether a step holds is a timing on two shared cores; the ramp, the figures and a verdict are what is checked.
        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        var summary = await File.ReadAllTextAsync(Path.Combine(_out, "summary.md"));
        foreach (var variant in new[] { "allocating", "saea-pooled", "pipelines" })
        {
            Assert.Contains($"| {variant} | clients held on time (capacity) |", summary);
            Assert.Contains($"| {variant} | step 2 clients (", summary);
        }

        Assert.Matches("(confirmed|refuted|inconclusive): ", summary);
        Assert.Contains("about double", summary);
    }

    [Fact]
    public async Task SigintMidRunWritesTheReportUpToThereMarkedPartialAndExits()
    {
        using var runner = StartRunner("sleep", "--profile", "smoke", "--milliseconds", "20", "--live", "0", "--out", _out);
        using var http = new HttpClient { Timeout = TimeSpan.FromMinutes(3) };
        try
        {
            var (first, ended) = await WatchLivePageAsync(runner, http);
            // Mid-way: sync has finished and taskrun has closed a step.
            var (code, output, error) = await CommandRun.InterruptAfterAsync(runner, line => line.StartsWith("sleep/taskrun step ", StringComparison.Ordinal), first);

            Assert.True(code == CommandLine.ExitCancelled, $"exit {code}: {error}\n{output}");
            Assert.Contains("== PARTIAL REPORT: partial: stopped after variant taskrun step ", output);
            var summary = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "summary.json")));
            Assert.StartsWith("partial: stopped after variant taskrun step ", summary.Partial);
            Assert.EndsWith("finished before it: sync", summary.Partial);
            Assert.Equal(["sync", "taskrun"], summary.Variants.Select(v => v.Name));
            Assert.NotEmpty(summary.Variants[1].Steps);
            Assert.Equal("NotAssessed", summary.Outcome);
            Assert.Contains("**PARTIAL REPORT: partial: stopped after variant taskrun", await File.ReadAllTextAsync(Path.Combine(_out, "summary.md")));
            Assert.StartsWith("p.verdict partial PARTIAL REPORT: partial: stopped after variant taskrun", RenderedPage.LinesOf(Path.Combine(_out, "report.html"))[1]);
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
            "--profile", "smoke", "--strategies", "threadpool,async", "--calls", "2", "--delay-ms", "50", "--live", "0", "--out", _out);
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
            var matrix = await File.ReadAllTextAsync(Path.Combine(_out, "matrix.md"));
            Assert.StartsWith("# Core-count matrix, PARTIAL", matrix);
            Assert.Contains($"**PARTIAL REPORT: {where}", matrix);
            Assert.Contains("| 1 core: Sync |", matrix);
            Assert.Contains("| threadpool@1cpu |", matrix);
            Assert.DoesNotContain(" confirmed: ", matrix);
            Assert.DoesNotContain(" refuted: ", matrix);
            using (var json = System.Text.Json.JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "matrix.json"))))
            {
                Assert.StartsWith(where, json.RootElement.GetProperty("partial").GetString());
            }
            Assert.StartsWith($"p.verdict partial PARTIAL REPORT: {where}", RenderedPage.LinesOf(Path.Combine(_out, "report.html"))[1]);
            // The stopped fan-out's own report holds its closed step, marked partial, not assessed.
            var fanOut = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "fanout-1cpu", "summary.json")));
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
        using var runner = StartRunner("run", "--url", $"{service.BaseAddress}orders/1?delayMs=20", "--find-capacity", "--slo-p99-ms", "1500", "--step-s", "1", "--settle-s", "1", "--max-duration-s", "120", "--out", _out);
        try
        {
            // Once the ramp's second step has started: the unloaded measure and the first step are done.
            var (code, output, error) = await CommandRun.InterruptAfterAsync(runner, line => line.StartsWith("-- url/4-users: ", StringComparison.Ordinal));

            Assert.True(code == CommandLine.ExitCancelled, $"exit {code}: {error}\n{output}");
            Assert.Contains("== PARTIAL REPORT: partial: stopped after variant ", output);
            Assert.Contains("== Capacity not found: stopped (Ctrl+C or SIGTERM)", output);
            Assert.DoesNotContain("Held ", output);
            var summary = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "summary.json")));
            // Stopped during the 4-users step's climb (1, 2, 3 users) or its hold: the step of its shape it reached.
            Assert.Matches(@"^partial: stopped after variant 4-users step \d of 4 ", summary.Partial);
            Assert.EndsWith("finished before it: unloaded-1-user, 2-users", summary.Partial);
            Assert.StartsWith("Capacity not found: stopped", summary.Headline);
            Assert.Equal(["unloaded-1-user", "2-users"], summary.Variants.Take(2).Select(v => v.Name));
            Assert.Equal("NotAssessed", summary.Outcome);
            Assert.Contains("**PARTIAL REPORT: partial: stopped after variant ", await File.ReadAllTextAsync(Path.Combine(_out, "summary.md")));
            Assert.StartsWith("p.verdict partial PARTIAL REPORT: ", RenderedPage.LinesOf(Path.Combine(_out, "report.html"))[1]);
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
        using var runner = StartRunner("run", "--url", $"{service.BaseAddress}orders/1?delayMs=20", "--profile", "smoke", "--out", _out);
        try
        {
            var (code, output, error) = await CommandRun.InterruptAfterAsync(runner, line => line.StartsWith("url/target step ", StringComparison.Ordinal));

            Assert.True(code == CommandLine.ExitCancelled, $"exit {code}: {error}\n{output}");
            var summary = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "summary.json")));
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

    [Fact]
    public async Task BadOptionExitsWithCode2WithoutAStackTrace()
    {
        var (code, _, error) = await RunRunnerAsync("fanout", "--profile", "forever");

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.StartsWith("error: ", error);
        Assert.DoesNotContain("   at ", error);
    }

    [Fact]
    public async Task ReceiveSmokeRunReportsCpuAndAllocationPerReceiveBesideSeed002()
    {
        var (code, output, error) = await RunRunnerAsync("receive", "--profile", "smoke", "--receive-messages", "200", "--out", _out);

        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        Assert.DoesNotContain("Not assessed", output);
        var summary = await File.ReadAllTextAsync(Path.Combine(_out, "summary.md"));
        Assert.Contains("4.9 x", summary);
        var observations = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "summary.json"))).Observations;

        // A thread per request (about 1,000 a second) writes events from that many threads: the observer's session keeps
        // them all, so no second of the counters the figures are summed from is missing (a 16 MB session lost some).
        Assert.Equal(4, observations.Count);
        Assert.All(observations, o => Assert.Equal(0, o.Value.EventsLost));

        var allocated = new Dictionary<string, double>();
        foreach (var variant in new[] { "per-call", "preallocated", "allocating", "spinning" })
        {
            // With no event lost every variant has its figures, however late the busy runner read its counter samples
            // (each CPU reading counts over its own interval; CI's allocating had none on 2026-11-29, samples over 1.5 s apart).
            var seen = observations[variant];
            Assert.True(summary.Contains($"| {variant} | CPU per receive |", StringComparison.Ordinal),
                $"no CPU per receive for {variant}: {seen.Samples} counter samples, longest gap {seen.LongestGapSeconds:0.##} s, lost: {seen.LostReason ?? "no"}");
            var line = summary.Split('\n').Single(l => l.StartsWith($"| {variant} | allocated per receive |", StringComparison.Ordinal));
            allocated[variant] = double.Parse(line.Split('|')[3].Trim().Split(' ')[0], CultureInfo.InvariantCulture);
        }

        // A new message object and buffer per receive shows in the process's allocation counter; a reused buffer does not.
        Assert.True(allocated["per-call"] > allocated["preallocated"], $"per-call {allocated["per-call"]} B vs preallocated {allocated["preallocated"]} B per receive");
        Assert.True(allocated["allocating"] > allocated["preallocated"], $"allocating {allocated["allocating"]} B vs preallocated {allocated["preallocated"]} B per receive");
    }

    [Fact]
    public async Task ContentionSmokeRunJudgesTheLockAgainstTheSemaphoreFromTheirTelemetry()
    {
        var (code, output, error) = await RunRunnerAsync("contention", "--profile", "smoke", "--hold-ms", "20", "--out", _out);

        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        Assert.DoesNotContain("Not assessed", output);
        var summary = await File.ReadAllTextAsync(Path.Combine(_out, "summary.md"));
        Assert.All(new[] { "lock", "semaphore-async" }, v => Assert.Contains($"| {v} |", summary));
        Assert.Contains("requests queued for a pool thread at peak, lock vs semaphore-async", summary);
        var lockContentions = summary.Split('\n').Single(l => l.StartsWith("| lock | runtime lock contentions |", StringComparison.Ordinal));

        // Waiters on a Monitor count in the runtime's lock contention counter; the semaphore's never touch a Monitor of theirs.
        Assert.True(double.Parse(lockContentions.Split('|')[3].Trim().Split(' ')[0], CultureInfo.InvariantCulture) > 0, lockContentions);
    }

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }

    private List<Dictionary<string, string>> ReadCsv(string name)
    {
        var lines = File.ReadAllLines(Path.Combine(_out, name));
        var header = lines[0].Split(',');
        return [.. lines.Skip(1).Select(line => header.Zip(line.Split(',')).ToDictionary(p => p.First, p => p.Second))];
    }

    private static Task<(int Code, string Output, string Error)> RunRunnerAsync(params string[] args) =>
        CommandRun.RunAsync("dotnet", [typeof(Runner).Assembly.Location, .. args]);
}
