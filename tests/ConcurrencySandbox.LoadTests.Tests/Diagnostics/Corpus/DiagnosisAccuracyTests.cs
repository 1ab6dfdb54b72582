using System.Globalization;
using ConcurrencySandbox.LoadTests.Diagnostics;
using Xunit.Abstractions;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics.Corpus;

/// <summary>
/// Issue 37 item 5: services nobody hand-picked, composed from the shapes of item 4 with a seed, built and diagnosed by
/// <c>run --url</c>; every diagnosis right or honestly unsure, never wrong, and at least 90 % right. CI runs a small
/// seeded sample; scripts/diagnosis-benchmark.sh runs the whole benchmark (DIAGNOSIS_BENCHMARK_COUNT services, the
/// table written to DIAGNOSIS_BENCHMARK_REPORT).
/// </summary>
public sealed class DiagnosisAccuracyTests(ITestOutputHelper output)
{
    private const int Seed = 37;
    private const int CiSample = 3;
    private const double RightShare = 0.9;

    [Fact]
    [Trait("Category", "Slow")]
    public async Task GeneratedServicesAreNamedRightOrHonestlyUnsureNeverWrong()
    {
        var count = int.TryParse(Environment.GetEnvironmentVariable("DIAGNOSIS_BENCHMARK_COUNT"), CultureInfo.InvariantCulture, out var n) ? n : CiSample;
        var seed = int.TryParse(Environment.GetEnvironmentVariable("DIAGNOSIS_BENCHMARK_SEED"), CultureInfo.InvariantCulture, out var s) ? s : Seed;
        // The whole benchmark's report file gets each service's line as it is scored (a run cut short keeps them), then the table.
        var report = Environment.GetEnvironmentVariable("DIAGNOSIS_BENCHMARK_REPORT") is { Length: > 0 } path ? path : null;
        void Log(string line)
        {
            output.WriteLine(line);
            if (report is not null)
            {
                File.AppendAllText(report, line + "\n");
            }
        }

        Log($"seed {seed}, {count} services");
        var scored = await DiagnosisBenchmark.RunAsync(ServiceGenerator.Compose(seed, count), Log);

        Log($"\n{DiagnosisBenchmark.Table(scored)}");
        Assert.DoesNotContain(scored, x => x.Verdict == Verdict.Wrong);
        Assert.True(scored.Count(x => x.Verdict == Verdict.Right) >= RightShare * scored.Count, DiagnosisBenchmark.Table(scored));
    }

    /// <summary>The generator's own promise: every shape x wait pair, each service's expected line holding its blocking statement and its path served by its route.</summary>
    [Fact]
    public void EveryGeneratedServiceSaysWhereItBlocksAndWhichPathItServes()
    {
        var services = ServiceGenerator.Compose(Seed, Enum.GetValues<Entry>().Length * Enum.GetValues<Wait>().Length);

        Assert.Equal(services.Count, services.Select(x => (x.Shape.Entry, x.Shape.Wait)).Distinct().Count());
        foreach (var service in services)
        {
            var line = service.Files[service.Expected.File].Split('\n')[service.Expected.Line - 1];
            Assert.True(line.Contains("Slow.", StringComparison.Ordinal) || line.Contains("Upstream.", StringComparison.Ordinal) || line.Contains("ReadExactly", StringComparison.Ordinal), $"{service.Shape.Name}: {line}");
            if (service.Expected.Route is { } route)
            {
                Assert.NotNull(RouteTemplates.Match(route.Split(' ')[1], service.RequestPath));
            }
        }
    }
}
