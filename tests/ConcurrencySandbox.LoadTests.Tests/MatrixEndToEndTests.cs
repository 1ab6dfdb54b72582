using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>The real runner's matrix command, as a process: mechanisms, counts and exit codes only.</summary>
[Trait("Category", "Slow")]
public sealed class MatrixEndToEndTests : EndToEndRun
{
    [Fact]
    public async Task MatrixTakesTheObserverOptionsOfTheRunLikeEveryExperiment()
    {
        // The matrix runs in the same composition root as the experiments: --no-observer reaches its fan-out (it was ignored).
        var (code, output, error) = await RunRunnerAsync(
            "matrix", "--cpus", "1", "--matrix-experiments", "fanout", "--profile", "smoke", "--strategies", "async", "--calls", "2", "--delay-ms", "50", "--no-observer", "--out", Out);

        Assert.True(code is CommandLine.ExitOk or CommandLine.ExitThresholdFailed, $"exit {code}: {error}\n{output}");
        var summary = await File.ReadAllTextAsync(Path.Combine(Out, "fanout-1cpu", "summary.json"));
        Assert.Contains("(not observed: --no-observer)", summary);
    }

    [Fact]
    public async Task MatrixShortFormWritesTheSweepAndFanOutTablesPerCoreCount()
    {
        var (code, output, error) = await RunRunnerAsync(
            "matrix", "--cpus", "1,2", "--profile", "smoke", "--sweep-to", "1000", "--sweep-repeat", "1", "--sweep-budget-s", "4",
            "--strategies", "threadpool,async", "--calls", "2", "--delay-ms", "50", "--out", Out);

        // Exit 1 is possible: the default async p99 limit is a timing on two shared cores; the tables are what is checked.
        Assert.True(code is CommandLine.ExitOk or CommandLine.ExitThresholdFailed, $"exit {code}: {error}\n{output}");
        Assert.DoesNotContain("Not assessed", output);
        var matrix = await File.ReadAllTextAsync(Path.Combine(Out, "matrix.md"));
        Assert.Contains("## Compute sweep (seed 004's table) per core count", matrix);
        Assert.Contains("Hypothesis 3", matrix);
        foreach (var cpus in new[] { 1, 2 })
        {
            var measured = matrix.Contains($"| {CountText.Of(cpus, "core")}: Sync |", StringComparison.Ordinal)
                && matrix.Contains($"\n| {cpus} | {cpus} | threadpool@{cpus}cpu |", StringComparison.Ordinal);
            Assert.True(measured || matrix.Contains($"{CountText.Of(cpus, "core")}: skipped", StringComparison.Ordinal), $"{CountText.Of(cpus, "core")} neither measured nor skipped:\n{matrix}");
        }
        Assert.Contains("threadpool@1cpu", await File.ReadAllTextAsync(Path.Combine(Out, "curves.csv")));
    }
}
