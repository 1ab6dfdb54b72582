using System.Text.Json;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary><c>run --url --find-capacity</c> against the real sample service: the break and its cause, and what it refuses.</summary>
public sealed class FindCapacityTests
{
    [Fact]
    [Trait("Category", "Slow")]
    public async Task TheRampFindsWhereTheBlockingEndpointBreaksAndNamesPoolStarvation()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        var folder = Directory.CreateTempSubdirectory("find-capacity-").FullName;
        try
        {
            // An SLO far above the 100 ms wait, so a busy machine's noise does not break the ramp before the pool does.
            // A short wait for the pool to shrink back between steps: the steps that inherit a grown pool say so.
            var (code, output, error) = await RunAsync($"{service.BaseAddress}orders/1?delayMs=100", "--find-capacity", "--slo-p99-ms", "1500", "--step-s", "3", "--settle-s", "3", "--max-load", "512", "--max-duration-s", "150", "--out", folder);

            Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}");
            Assert.Contains("-- find-capacity: SLO p99 1500 ms (given by --slo-p99-ms; the unloaded p99 of ", output);
            using var summary = JsonDocument.Parse(File.ReadAllText(Path.Combine(folder, "summary.json")));
            var headline = summary.RootElement.GetProperty("headline").GetString()!;
            var details = summary.RootElement.GetProperty("headlineDetails").GetString()!;
            Assert.True(headline.Contains(" users, by pool starvation: p99 ", StringComparison.Ordinal), headline);
            Assert.True(headline.Contains("Fix: make it async", StringComparison.Ordinal), headline);
            Assert.True(details.Contains("): pool starvation (queue peaked at", StringComparison.Ordinal) || details.Contains("): pool starvation (the queue was empty", StringComparison.Ordinal), details);
            // The call site depends on the stack sample catching the peak (RuntimeObserverTests checks it); the fix is said either way.
            Assert.True(details.Contains("Fix: make ", StringComparison.Ordinal) && details.Contains("ThreadPool__MinWorkerThreads=", StringComparison.Ordinal), details);
            // summary.md opens with the plain sentence (what was tested and what held), then the headline.
            var opening = File.ReadAllText(Path.Combine(folder, "summary.md")).Split('\n');
            Assert.Equal($"**{summary.RootElement.GetProperty("answer").GetString()}**", opening[2]);
            Assert.StartsWith(headline, opening[4]);
            // Every step says the state it started from: the pool's threads, back to its first size or inherited.
            var steps = RunSummary.Parse(File.ReadAllText(Path.Combine(folder, "summary.json"))).Capacity!.Steps!;
            Assert.All(steps, s => Assert.Matches(@"^(the pool at \d+ threads, (its size before the first step|back to its start size of \d+)|inherited a pool of \d+ threads grown by an earlier step)", s.StartedFrom!.State));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task VerifyFixStartsTheLaunchedServiceAgainWithTheSizedMinimumAndMeasuresItsCapacityBesideThePrediction()
    {
        var folder = Directory.CreateTempSubdirectory("find-capacity-").FullName;
        try
        {
            var sample = Path.Combine(AppContext.BaseDirectory, "sample", "ConcurrencySandbox.SampleService.dll");
            var (code, output, error) = await RunAsync($"http://127.0.0.1:{FreePort()}/orders/1?delayMs=100", "--launch", sample, "--find-capacity", "--verify-fix", "--slo-p99-ms", "1500", "--step-s", "3", "--max-load", "256", "--max-duration-s", "120", "--out", folder);

            Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}");
            Assert.Contains("-- verify-fix: starting ", output);
            using var summary = JsonDocument.Parse(File.ReadAllText(Path.Combine(folder, "summary.json")));
            var headline = summary.RootElement.GetProperty("headlineDetails").GetString()!;
            Assert.Matches(@"Fix verified \(--verify-fix, the service started again with DOTNET_ThreadPool_ForceMinWorkerThreads=0x[0-9A-F]+, (?<n>\d+) threads\): predicted about \d+ users with no wait; measured: held \d+ users", headline);
            // The second ramp's steps are in the report beside the first's, named after the minimum.
            var minimum = System.Text.RegularExpressions.Regex.Match(headline, @"(?<n>\d+) threads\)").Groups["n"].Value;
            Assert.Contains(summary.RootElement.GetProperty("variants").EnumerateArray(), v => v.GetProperty("name").GetString()!.StartsWith($"min{minimum}-", StringComparison.Ordinal));
            // The same as figures, for scripts (scripts/diagnose-targets.sh): the minimum tried and the diagnosed step among the observations.
            var capacity = RunSummary.Parse(File.ReadAllText(Path.Combine(folder, "summary.json"))).Capacity!;
            Assert.Equal(int.Parse(minimum, System.Globalization.CultureInfo.InvariantCulture), capacity.Fix!.MinimumThreads);
            Assert.Contains(capacity.DiagnosedVariant!, summary.RootElement.GetProperty("observations").EnumerateObject().Select(o => o.Name));
            // Under --launch every step ran on a fresh process, warmed first.
            Assert.All(capacity.Steps!, s => Assert.StartsWith($"a fresh process, warmed by {FreshProcessSteps.WarmRequests} requests", s.StartedFrom!.State));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task AServiceThatFailsEveryRequestEndsWithItsStatusesAndClaimsNoCapacity()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        var folder = Directory.CreateTempSubdirectory("find-capacity-").FullName;
        try
        {
            var (code, output, error) = await RunAsync($"{service.BaseAddress}no-such-route", "--find-capacity", "--step-s", "1", "--out", folder);

            Assert.Equal(CommandLine.ExitUsage, code);
            Assert.Matches(@"^error: every request failed \(HTTP 404 x \d+\); no capacity claimed\s*$", error);
            Assert.DoesNotContain("-- find-capacity: SLO p99", output);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task AnSloBelowTheUnloadedLatencyIsRefused()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        var folder = Directory.CreateTempSubdirectory("find-capacity-").FullName;
        try
        {
            var (code, _, error) = await RunAsync($"{service.BaseAddress}orders/1?delayMs=100", "--find-capacity", "--slo-p99-ms", "5", "--step-s", "1", "--out", folder);

            Assert.Equal(CommandLine.ExitUsage, code);
            Assert.Matches(@"^error: --slo-p99-ms 5 is below the unloaded p99 of \d+(\.\d)? ms \(one user\): no load can meet it\s*$", error);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task AThresholdHoldsEveryStepThatHeldTheSlo()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        var folder = Directory.CreateTempSubdirectory("find-capacity-").FullName;
        try
        {
            // A p99 no step can keep: the steps that held the SLO fail it, so the search ends as a failed threshold (exit 1).
            var (code, output, error) = await RunAsync($"{service.BaseAddress}orders/1?delayMs=20", "--find-capacity", "--threshold", "*:p99<0.001", "--slo-p99-ms", "5000", "--step-s", "1", "--max-load", "4", "--max-duration-s", "30", "--out", folder);

            Assert.True(code == CommandLine.ExitThresholdFailed, $"exit {code}: {error}\n{output}");
            Assert.Contains("THRESHOLD FAILED: *:p99<0.001", output);
            using var summary = JsonDocument.Parse(File.ReadAllText(Path.Combine(folder, "summary.json")));
            Assert.False(summary.RootElement.GetProperty("passed").GetBoolean());
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Theory]
    [InlineData("--agents", "2", "which cannot be split over agents")]
    [InlineData("--threshold", "target:p99<5", "name the variant *")]
    public async Task WhatTheSearchCannotTakeIsRefusedInOneLine(string option, string value, string cause)
    {
        var (code, _, error) = await RunAsync("http://127.0.0.1:9/orders", "--find-capacity", option, value);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains(cause, error);
        Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    [Theory]
    [InlineData("http://10.1.2.3:8080/orders", "is not a loopback address")]
    [InlineData("http://127.0.0.1:1/orders", "nothing answered GET")]
    public async Task ATargetItCannotLoadIsRefusedBeforeTheRamp(string url, string cause)
    {
        var (code, _, error) = await RunAsync(url, "--find-capacity");

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains(cause, error);
        Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    /// <summary>A loopback port free now, for a service --launch starts.</summary>
    internal static int FreePort()
    {
        using var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        return ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
    }

    private static async Task<(int Code, string Output, string Error)> RunAsync(string url, params string[] arguments)
    {
        var (output, error) = (new StringWriter(), new StringWriter());
        var code = await CommandLine.InvokeAsync(["run", "--url", url, .. arguments], output, error, (_, _) => throw new InvalidOperationException("run --url has its own action"));
        return (code, output.ToString(), error.ToString());
    }
}
