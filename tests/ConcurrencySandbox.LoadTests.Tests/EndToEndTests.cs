using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>The real runner, as a process, against the API child it starts itself: mechanisms, counts and exit codes only (the matrix, streaming and stopped runs in their own classes, so xUnit runs them beside these).</summary>
[Trait("Category", "Slow")]
public sealed class EndToEndTests : EndToEndRun
{
    [Fact]
    public async Task SmokeRunWritesTheReportAndAnImpossibleThresholdFailsTheRun()
    {
        var (code, output, _) = await RunRunnerAsync(
            "sleep", "--profile", "smoke", "--milliseconds", "20", "--out", Out, "--threshold", "*:p99<0.001");

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

        var summary = await File.ReadAllTextAsync(Path.Combine(Out, "summary.md"));
        Assert.All(variants, v => Assert.Contains($"| {v} |", summary));
        Assert.Contains("FAIL", summary);
        Assert.True(File.Exists(Path.Combine(Out, "summary.json")));
        Assert.Empty(Directory.GetFiles(Out, "*.svg"));
        var html = await File.ReadAllTextAsync(Path.Combine(Out, "report.html"));
        Assert.Contains($"chart {ConcurrencySandbox.LoadTests.Reports.SummaryCharts.VariantPanels} summary", RenderedPage.Lines(html));
        Assert.Contains(RenderedPage.Lines(html), line => line.StartsWith("p.verdict", StringComparison.Ordinal));
        // What ran, as it ran: the dotnet host with the runner's dll (RunnerCommandLine.LauncherOf), then the arguments.
        Assert.Contains("ConcurrencySandbox.LoadTests.dll sleep --profile smoke --milliseconds 20", html);
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
        var (code, output, error) = await RunRunnerAsync("receive", "--profile", "smoke", "--receive-messages", "200", "--out", Out);

        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        Assert.DoesNotContain("Not assessed", output);
        var summary = await File.ReadAllTextAsync(Path.Combine(Out, "summary.md"));
        Assert.Contains("4.9 x", summary);
        var observations = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(Out, "summary.json"))).Observations;

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
        var (code, output, error) = await RunRunnerAsync("contention", "--profile", "smoke", "--hold-ms", "20", "--out", Out);

        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        Assert.DoesNotContain("Not assessed", output);
        var summary = await File.ReadAllTextAsync(Path.Combine(Out, "summary.md"));
        Assert.All(new[] { "lock", "semaphore-async" }, v => Assert.Contains($"| {v} |", summary));
        Assert.Contains("requests queued for a pool thread at peak, lock vs semaphore-async", summary);
        var lockContentions = summary.Split('\n').Single(l => l.StartsWith("| lock | runtime lock contentions |", StringComparison.Ordinal));

        // Waiters on a Monitor count in the runtime's lock contention counter; the semaphore's never touch a Monitor of theirs.
        Assert.True(double.Parse(lockContentions.Split('|')[3].Trim().Split(' ')[0], CultureInfo.InvariantCulture) > 0, lockContentions);
    }
}
