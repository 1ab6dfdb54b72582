using System.Text.Json;
using System.Text.RegularExpressions;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// <c>run --url --launch --find-capacity --verify-fix</c> against the real sample service, run once for the class (the
/// Slow suite's longest run): the first ramp's break and its cause, then the second ramp with the pool minimum it sized.
/// </summary>
public sealed class FindCapacityLaunchedTests(FindCapacityLaunchedTests.LaunchedSearch search) : IClassFixture<FindCapacityLaunchedTests.LaunchedSearch>
{
    [Fact(Skip = "Marginal since every step climbs (issue 37 item 6): the sample service's pool often catches up with its Thread.Sleep requests during the climb to 6 users, so the search holds all 6 users and finds no break to name (3 of 5 runs by hand on 71a5e76, 2026-11-29 06:13-06:29 UTC, load average 24-46; the 5 runs after 564fc27, 06:31-06:44 UTC, all broke and passed, each with a queue caught). The other failure, a break called the upstream when no counter sample caught the queue, is fixed by 564fc27 (StarvedSpellTests); kept to be re-fitted: see the capfix note in docs/notebook/diagnostics.md")]
    [Trait("Category", "Slow")]
    public void TheRampFindsWhereTheBlockingEndpointBreaksAndNamesPoolStarvation()
    {
        Assert.True(search.Code == CommandLine.ExitOk, $"exit {search.Code}: {search.Error}");
        Assert.Contains("-- find-capacity: SLO p99 1200 ms (given by --slo-p99-ms; the unloaded p99 of ", search.Output);
        var headline = search.Json.RootElement.GetProperty("headline").GetString()!;
        var details = search.Json.RootElement.GetProperty("headlineDetails").GetString()!;
        Assert.True(headline.Contains(" users, by pool starvation: p99 ", StringComparison.Ordinal), headline);
        Assert.True(headline.Contains("Fix: make it async", StringComparison.Ordinal), headline);
        Assert.True(details.Contains("): pool starvation (queue peaked at", StringComparison.Ordinal) || details.Contains("): pool starvation (the queue was empty", StringComparison.Ordinal), details);
        // The call site depends on the stack sample catching the peak (RuntimeObserverTests checks it); the fix is said either way.
        Assert.True(details.Contains("Fix: make ", StringComparison.Ordinal) && details.Contains("ThreadPool__MinWorkerThreads=", StringComparison.Ordinal), details);
        // summary.md opens with the plain sentence (what was tested and what held), then the headline.
        var opening = search.SummaryMd.Split('\n');
        Assert.Equal($"**{search.Json.RootElement.GetProperty("answer").GetString()}**", opening[2]);
        Assert.StartsWith(headline, opening[4]);
        // Under --launch every step ran on a fresh process, warmed first, and climbed to its load before its hold; the report says both.
        Assert.All(search.Summary.Capacity!.Steps!, s => Assert.StartsWith($"a fresh process, warmed by {FreshProcessSteps.WarmRequests} requests", s.StartedFrom!.State));
        Assert.Contains("Each step ran on a fresh process (--launch)", details);
        Assert.Contains("Each step ramped from 1 user at the quick profile's pace", details);
    }

    [Fact(Skip = "Marginal since every step climbs (issue 37 item 6): the sample service's pool often catches up with its Thread.Sleep requests during the climb to 6 users, so the search holds all 6 users and finds no break to name (3 of 5 runs by hand on 71a5e76, 2026-11-29 06:13-06:29 UTC, load average 24-46; the 5 runs after 564fc27, 06:31-06:44 UTC, all broke and passed, each with a queue caught). The other failure, a break called the upstream when no counter sample caught the queue, is fixed by 564fc27 (StarvedSpellTests); kept to be re-fitted: see the capfix note in docs/notebook/diagnostics.md")]
    [Trait("Category", "Slow")]
    public void VerifyFixStartsTheLaunchedServiceAgainWithTheSizedMinimumAndMeasuresItsCapacityBesideThePrediction()
    {
        Assert.True(search.Code == CommandLine.ExitOk, $"exit {search.Code}: {search.Error}");
        Assert.Contains("-- verify-fix: starting ", search.Output);
        var details = search.Json.RootElement.GetProperty("headlineDetails").GetString()!;
        Assert.Matches(@"Fix verified \(--verify-fix, the service started again with DOTNET_ThreadPool_ForceMinWorkerThreads=0x[0-9A-F]+, (?<n>\d+) threads\): predicted about \d+ users with no wait; measured: held \d+ users", details);
        // The second ramp's steps are in the report beside the first's, named after the minimum.
        var minimum = Regex.Match(details, @"(?<n>\d+) threads\)").Groups["n"].Value;
        Assert.Contains(search.Json.RootElement.GetProperty("variants").EnumerateArray(), v => v.GetProperty("name").GetString()!.StartsWith($"min{minimum}-", StringComparison.Ordinal));
        // The same as figures, for scripts (scripts/diagnose-targets.sh): the minimum tried and the diagnosed step among the observations.
        var capacity = search.Summary.Capacity!;
        Assert.Equal(int.Parse(minimum, System.Globalization.CultureInfo.InvariantCulture), capacity.Fix!.MinimumThreads);
        Assert.Contains(capacity.DiagnosedVariant!, search.Json.RootElement.GetProperty("observations").EnumerateObject().Select(o => o.Name));
    }

    /// <summary>
    /// The one run both tests read. /reports sleeps its thread for 500 ms, which the runtime does not see as blocking (a
    /// .Result is: it adds a thread per wait), so the pool grows by hill climbing and falls behind a climb at the quick
    /// profile's pace within a few users (p99 1.4-1.7 s at 5-8 users on a fresh process, 2026-11-29). The SLO is 2.4 x the
    /// sleep: at 2 x, a busy machine's noise broke the ramp at 4 users (1042.9 ms) before the pool did; --max-load 6 keeps
    /// the two ramps short.
    /// </summary>
    public sealed class LaunchedSearch : IAsyncLifetime
    {
        private readonly string _folder = Directory.CreateTempSubdirectory("find-capacity-").FullName;

        public int Code { get; private set; }

        public string Output { get; private set; } = "";

        public string Error { get; private set; } = "";

        public JsonDocument Json { get; private set; } = JsonDocument.Parse("{}");

        public RunSummary Summary { get; private set; } = null!;

        public string SummaryMd { get; private set; } = "";

        public async Task InitializeAsync()
        {
            var sample = Path.Combine(AppContext.BaseDirectory, "sample", "ConcurrencySandbox.SampleService.dll");
            (Code, Output, Error) = await FindCapacityTests.RunAsync($"http://127.0.0.1:{FindCapacityTests.FreePort()}/reports/1?delayMs=500", "--launch", sample, "--find-capacity", "--verify-fix", "--slo-p99-ms", "1200", "--step-s", "3", "--max-load", "6", "--max-duration-s", "90", "--out", _folder);
            var summary = Path.Combine(_folder, "summary.json");
            if (File.Exists(summary))
            {
                var text = await File.ReadAllTextAsync(summary);
                Json = JsonDocument.Parse(text);
                Summary = RunSummary.Parse(text);
                SummaryMd = await File.ReadAllTextAsync(Path.Combine(_folder, "summary.md"));
            }
        }

        public Task DisposeAsync()
        {
            Json.Dispose();
            Directory.Delete(_folder, recursive: true);
            return Task.CompletedTask;
        }
    }
}
