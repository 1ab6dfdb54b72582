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
    [Fact]
    [Trait("Category", "Slow")]
    public void TheRampFindsWhereTheBlockingEndpointBreaksAndNamesPoolStarvation() => search.Folder.Check(() =>
    {
        Assert.True(search.Code == CommandLine.ExitOk, $"exit {search.Code}: {search.Error}");
        // Several rounds of one user give "the median round's p99", one round "the unloaded p99" (UnloadedBaseline.Describe).
        Assert.Matches(@"-- find-capacity: SLO p99 1200 ms \(given by --slo-p99-ms; the (unloaded|median round's) p99 of ", search.Output);
        var headline = search.Json.RootElement.GetProperty("headline").GetString()!;
        var details = search.Json.RootElement.GetProperty("headlineDetails").GetString()!;
        Assert.True(headline.Contains(" users, by pool starvation: p99 ", StringComparison.Ordinal), headline);
        // /quotes blocks in two methods a request (Orders.Quote's wait for the queued call, Orders.SupplierPrice's sleep): the
        // sample names one when it dominates, both when their shares are comparable (BlockingSitesSharedTests), never one
        // method twice.
        Assert.True(headline.Contains("Fix: make it async", StringComparison.Ordinal) || headline.Contains("Fix: make them async", StringComparison.Ordinal), headline);
        Assert.DoesNotMatch(@"(`[^`]+` \([^)]*\)) \d+ % and \1", headline);
        Assert.True(details.Contains("): pool starvation (queue peaked at", StringComparison.Ordinal) || details.Contains("): pool starvation (the queue was empty", StringComparison.Ordinal), details);
        // The call site depends on the stack sample catching the peak (RuntimeObserverTests checks it); the fix is said either way.
        Assert.True(details.Contains("Fix: make ", StringComparison.Ordinal) && details.Contains("ThreadPool__MinWorkerThreads=", StringComparison.Ordinal), details);
        // summary.md opens with the plain sentence (what was tested and what held), the tiles right under it and their
        // legend, then the headline.
        var opening = search.SummaryMd.Split('\n');
        Assert.Equal($"**{search.Json.RootElement.GetProperty("answer").GetString()}**", opening[2]);
        Assert.StartsWith("| variant |", opening[4]);
        var legend = Array.FindIndex(opening, l => l.StartsWith("In the tiles: ", StringComparison.Ordinal));
        var headlineAt = Array.FindIndex(opening, l => l.StartsWith(headline, StringComparison.Ordinal));
        Assert.True(legend > 4 && headlineAt > legend, $"tiles' legend at line {legend}, headline at {headlineAt}:\n{search.SummaryMd}");
        // Under --launch every step ran on a fresh process, warmed first, and climbed to its load before its hold; the report says both.
        Assert.All(search.Summary.Capacity!.Steps!, s => Assert.StartsWith($"a fresh process, warmed by {FreshProcessSteps.WarmRequests} requests", s.StartedFrom!.State));
        Assert.Contains("Each step ran on a fresh process (--launch)", details);
        Assert.Contains("Each step ramped from 1 user at the quick profile's pace", details);
    });

    [Fact]
    [Trait("Category", "Slow")]
    public void VerifyFixStartsTheLaunchedServiceAgainWithTheSizedMinimumAndMeasuresItsCapacityBesideThePrediction() => search.Folder.Check(() =>
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
    });

    /// <summary>
    /// The one run both tests read. /quotes asks two suppliers at once, one call made on the request's thread and the other
    /// queued to the pool, each sleeping 500 ms, and the request waits on an event for the queued one: every user needs two
    /// pool threads, and neither wait tells the pool it blocks. The runtime adds a thread for starvation only when no work
    /// item has started for 500 ms (on a busy machine, a second per thread), which happens only once every thread is a
    /// request waiting for its queued call, and otherwise by hill climbing; with N users on N + s threads the s spare ones
    /// run the N queued calls, so a step holds the SLO (2.4 x the sleep) only on more than 1.4 N threads. The pool reaches
    /// about N + 1 while the users climb at the quick profile's pace, so the break does not depend on the pool lagging by
    /// luck (Thread.Sleep alone, one thread per user, the pool kept up with: see the capfix note in
    /// docs/notebook/diagnostics.md). Since each climb settles for an interval before its hold (CapacityOptions.ClimbThenSettle),
    /// the pool catches up a little more before each hold: a lost branch measured 6 users held (p99 1,007.6 ms of 23
    /// requests, SLO 1,200), so the ramp goes to 8 users (--max-load 8: 15 s a step at --step-s 3, within the 90 s), where
    /// 2 threads a user outrun the pool again. --bisect-steps 0 keeps the two ramps short (neither test reads how
    /// narrow the break is; each narrowing step is another launch, and this fixture, invisible in the tests' durations,
    /// ended clean-clone CI's LoadTests alone for about two minutes, 2026-11-30). The run's folder (summary.json, the report,
    /// console.txt) is kept when a test fails, its path in the failure (a run once broke at 2 users "by the upstream",
    /// not reproduced, and nothing was left to read), and deleted when both pass.
    /// </summary>
    public sealed class LaunchedSearch : IAsyncLifetime
    {
        public FolderKeptOnFailure Folder { get; } = new("find-capacity-");

        public int Code { get; private set; }

        public string Output { get; private set; } = "";

        public string Error { get; private set; } = "";

        public JsonDocument Json { get; private set; } = JsonDocument.Parse("{}");

        public RunSummary Summary { get; private set; } = null!;

        public string SummaryMd { get; private set; } = "";

        public async Task InitializeAsync()
        {
            var sample = Path.Combine(AppContext.BaseDirectory, "sample", "ConcurrencySandbox.SampleService.dll");
            (Code, Output, Error) = await FindCapacityTests.RunAsync($"http://127.0.0.1:{FindCapacityTests.FreePort()}/quotes/1?delayMs=500", "--launch", sample, "--find-capacity", "--verify-fix", "--slo-p99-ms", "1200", "--step-s", "3", "--max-load", "8", "--max-duration-s", "90", "--bisect-steps", "0", "--out", Folder.Path);
            Folder.KeepConsole(Code, Output, Error);
            var summary = Path.Combine(Folder.Path, "summary.json");
            // A summary that does not read fails the fixture with the folder kept, as a failed test would.
            Folder.Check(() =>
            {
                if (File.Exists(summary))
                {
                    var text = File.ReadAllText(summary);
                    Json = JsonDocument.Parse(text);
                    Summary = RunSummary.Parse(text);
                    SummaryMd = File.ReadAllText(Path.Combine(Folder.Path, "summary.md"));
                }
            });
        }

        public Task DisposeAsync()
        {
            Json.Dispose();
            Folder.Dispose();
            return Task.CompletedTask;
        }
    }
}
