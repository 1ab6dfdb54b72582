using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Issue 37's bad input "a service whose latency is random": tests/Targets/RandomLatency awaits a seeded log-normal
/// delay per request, so a p99 from few requests is noise. The quick run's response curve and --find-capacity's SLO say
/// how many requests the unloaded latency (the baseline) and any knee rest on, each count equal to the summary's field,
/// and no knee is stated at a step with fewer requests than <see cref="ResponseCurve.MinimumRequestsPerStep"/>.
/// </summary>
public sealed class RandomLatencyTests
{
    [Fact]
    [Trait("Category", "Slow")]
    public async Task TheBaselineAndAnyKneeSayHowManyRequestsTheyRestOn()
    {
        await using var service = await SampleServiceProcess.StartTargetAsync("RandomLatency");
        var url = $"{service.BaseAddress}quotes/1";

        // The smoke profile (2, 4, 6 users, 1 s each): at about 7 requests per user-second its first step has fewer than a knee needs.
        var profile = await RunAsync(["run", "--url", url, "--pid", $"{service.ProcessId}", "--profile", "smoke"]);
        var curve = Assert.Single(profile.Variants).Curve!;
        var points = curve.Points;
        long Measured(int i) => points[i].Answered + points[i].SentTimedOut;
        // A step's load and requests as every page prints them (ResponseCurve.LoadText, CountText): "1 user", "1,204 requests".
        string Load(int i) => ResponseCurve.LoadText(points[i].Load, "users");
        string At(int i) => $"{CountText.Of(Measured(i), "request")} at {Load(i)}";
        if (curve.Knee is { } knee)
        {
            Assert.All(new[] { knee.Point, knee.Point + 1 }, i => Assert.True(Measured(i) >= ResponseCurve.MinimumRequestsPerStep, curve.Line));
            Assert.Contains(At(knee.Point), curve.Line, StringComparison.Ordinal);
            Assert.Contains($"the unloaded p99 from {At(0)}", curve.Line, StringComparison.Ordinal);
        }
        else if (Measured(0) < ResponseCurve.MinimumRequestsPerStep)
        {
            Assert.Contains($"its first step ({Load(0)}) had {CountText.Of(Measured(0), "request")} with a latency, fewer than the {ResponseCurve.MinimumRequestsPerStep}", curve.Line, StringComparison.Ordinal);
        }
        else
        {
            Assert.Contains(At(0), curve.Line, StringComparison.Ordinal);
        }

        // --find-capacity's SLO rests on one user's requests: as many as the summary's baselineRequests, stated in its sentence.
        var capacity = (await RunAsync(["run", "--url", url, "--pid", $"{service.ProcessId}", "--find-capacity", "--step-s", "2", "--settle-s", "1", "--max-load", "4", "--max-duration-s", "40"])).Capacity!;
        Assert.NotNull(capacity.BaselineRequests);
        Assert.True(capacity.BaselineRequests > 0, capacity.Slo);
        Assert.Contains($"from {capacity.BaselineRequests} request", capacity.Slo, StringComparison.Ordinal);
    }

    private static async Task<RunSummary> RunAsync(string[] arguments)
    {
        var folder = Directory.CreateTempSubdirectory("random-latency-").FullName;
        try
        {
            var (output, error) = (new StringWriter(), new StringWriter());
            var code = await CommandLine.InvokeAsync([.. arguments, "--out", folder], output, error, (_, _) => throw new InvalidOperationException("run --url has its own action"));
            Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}");
            return RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(folder, "summary.json")));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }
}
