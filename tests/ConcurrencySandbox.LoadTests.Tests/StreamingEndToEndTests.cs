using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Experiments.Streaming;
using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>The real runner's streaming experiment, as a process, against the API child it starts itself: mechanisms, counts and exit codes only.</summary>
[Trait("Category", "Slow")]
public sealed class StreamingEndToEndTests : EndToEndRun
{
    [Fact]
    public async Task StreamingSmokeRunChecksEveryMessageOfEveryImplementationAndPrintsTheSeedBesideToday()
    {
        var (code, output, error) = await RunRunnerAsync(
            "streaming", "--profile", "smoke", "--clients", "4", "--connect-interval-ms", "5", "--interval-ms", "20", "--out", Out);

        // Exit 0: no message lost, corrupt or out of order (the default threshold); timings are not judged here.
        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        var curves = ReadCsv("curves.csv");
        foreach (var variant in new[] { "allocating", "saea-pooled", "pipelines" })
        {
            Assert.Contains(curves, r => r["variant"] == variant && long.Parse(r["ok"], CultureInfo.InvariantCulture) > 0);
        }

        var summary = await File.ReadAllTextAsync(Path.Combine(Out, "summary.md"));
        Assert.Contains("| saea-pooled | allocated per message, net of idle |", summary);
        Assert.Contains("| saea-pooled | client process CPU |", summary);
        Assert.Contains("310,188 allocations", summary);

        // Streaming measures the API's own allocations: no observer, no telemetry request while a variant runs.
        Assert.Contains("not attached (streaming measures the API's own allocations", output);
        Assert.Contains("GET /api/telemetry/history once after the variant", summary);

        // The pinning this machine gets by default (apart on 2+ cpus, or why not) is in the report's load shape.
        var pinning = StreamingPinning.Resolve(null, null, CpuSet.OfThisProcess(), CpuSet.CanPin).Describe();
        var json = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(Out, "summary.json")));
        Assert.Contains(pinning, json.LoadShape);
        Assert.Contains(pinning, summary);
    }

    [Fact]
    public async Task StreamingFindCapacityRampsEveryImplementationAndGivesACapacityAndAVerdict()
    {
        var (code, output, error) = await RunRunnerAsync(
            "streaming", "--find-capacity", "--capacity-from", "2", "--capacity-to", "3", "--capacity-step-s", "1", "--interval-ms", "50", "--out", Out);

        // Whether a step holds is a timing on two shared cores; the ramp, the figures and a verdict are what is checked.
        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        var summary = await File.ReadAllTextAsync(Path.Combine(Out, "summary.md"));
        foreach (var variant in new[] { "allocating", "saea-pooled", "pipelines" })
        {
            Assert.Contains($"| {variant} | clients held on time (capacity) |", summary);
            Assert.Contains($"| {variant} | step 2 clients (", summary);
        }

        Assert.Matches("(confirmed|refuted|inconclusive): ", summary);
        Assert.Contains("about double", summary);
    }
}
