using System.Text.Json;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary><c>run --url --find-capacity</c> against the real sample service, attached: a threshold on its steps, and what it refuses (the break, its cause and --verify-fix: <see cref="FindCapacityLaunchedTests"/>).</summary>
public sealed class FindCapacityTests
{
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
            // A 1-s wait for the pool to shrink back between steps: the steps that inherit a grown pool say so.
            var (code, output, error) = await RunAsync($"{service.BaseAddress}orders/1?delayMs=20", "--find-capacity", "--threshold", "*:p99<0.001", "--slo-p99-ms", "5000", "--step-s", "1", "--settle-s", "1", "--max-load", "2", "--max-duration-s", "30", "--out", folder);

            Assert.True(code == CommandLine.ExitThresholdFailed, $"exit {code}: {error}\n{output}");
            Assert.Contains("THRESHOLD FAILED: *:p99<0.001", output);
            using var summary = JsonDocument.Parse(File.ReadAllText(Path.Combine(folder, "summary.json")));
            Assert.False(summary.RootElement.GetProperty("passed").GetBoolean());
            // Attached (no --launch), every step says the state it started from: the pool's threads, back to its first size or inherited.
            var steps = RunSummary.Parse(File.ReadAllText(Path.Combine(folder, "summary.json"))).Capacity!.Steps!;
            Assert.All(steps, s => Assert.Matches(@"^(the pool at \d+ threads, (its size before the first step|back to its start size of \d+)|inherited a pool of \d+ threads grown by an earlier step)", s.StartedFrom!.State));
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

    /// <summary>run --url with <paramref name="arguments"/>: its exit code and what it wrote.</summary>
    internal static async Task<(int Code, string Output, string Error)> RunAsync(string url, params string[] arguments)
    {
        var (output, error) = (new StringWriter(), new StringWriter());
        var code = await CommandLine.InvokeAsync(["run", "--url", url, .. arguments], output, error, (_, _) => throw new InvalidOperationException("run --url has its own action"));
        return (code, output.ToString(), error.ToString());
    }
}
