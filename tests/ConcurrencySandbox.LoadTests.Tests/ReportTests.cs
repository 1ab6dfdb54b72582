using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Experiments.Streaming;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

public sealed class ReportTests : IDisposable
{
    private readonly string _out = Path.Combine(Path.GetTempPath(), "loadtests-report-" + Guid.NewGuid().ToString("N"));

    [Fact]
    public void ExperimentsOwnFiguresAndTheOutcomeReachTheSummaries()
    {
        var stats = TestStats.Uniform(10, 5);
        var variant = new VariantResult(new VariantKey("pooled", Cpus: 2), "/api/receive/pooled", "users", 1, [], [], stats)
        {
            Figures = [new VariantFigure("CPU per request", 1.25, "ms")],
        };
        var report = new ExperimentReport("receive", "002", "smoke", "KeepConstant(2, 1 s)", "a fresh API child per variant", DateTimeOffset.UnixEpoch,
            MachineFacts.Current(), [variant], new Finding(Outcome.NotReproduced, [], "pooled buffers cost as much CPU."), []);

        ReportWriter.Write(_out, report, RunnerCommandLine.Format(["receive", "--profile", "smoke"]));

        Assert.Contains("| pooled@2cpu | CPU per request | 1.25 ms |", File.ReadAllText(Path.Combine(_out, "summary.md")));
        var summary = RunSummary.Parse(File.ReadAllText(Path.Combine(_out, "summary.json")));
        Assert.Equal("NotReproduced", summary.Outcome);
        Assert.Equal("Not reproduced: pooled buffers cost as much CPU.", summary.Verdict);
        var written = Assert.Single(summary.Variants);
        Assert.Equal("pooled@2cpu", written.Name);
        Assert.Equal([new SummaryFigure("CPU per request", 1.25, "ms")], written.Figures);
    }

    [Fact]
    public void TimedOutRequestsAreCountedInEverySummaryAndNeverAsLatencies()
    {
        // threadpool's requests sent after 10 s take 90 s, so they time out at 60 s; async's all answer in 100 ms.
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 ? 90_000 : 100) with
        {
            ExpectedToFail = ["threadpool"],
        };
        var threadpool = report.Variants[0];

        ReportWriter.Write(_out, report, RunnerCommandLine.Format(["fanout", "--profile", "quick"]));

        Assert.Equal(50, threadpool.Total.TimedOut);
        // The timed-out requests rank at their 60 s timeout: the max is a lower bound there, never an answer's 100 ms.
        Assert.True(threadpool.Total.Max.IsLowerBound);
        Assert.Equal(60_000, threadpool.Total.MaxMs, 0);
        var markdown = File.ReadAllText(Path.Combine(_out, "summary.md"));
        Assert.Contains("Requests: threadpool 50 of 101 failed (50 timed out) (expected to fail); async all 101 ok.", markdown);
        Assert.Contains("| threadpool | timed out (the client's timeout) | 50 |", markdown);
        // The note under the table says what its "\u2265" figures are, never that timed-out requests are left out of them.
        Assert.Contains("a figure whose rank falls among the timed-out requests is a lower bound, marked \u2265", markdown);
        Assert.DoesNotContain("never averaged as latencies", markdown);
        Assert.Contains("threadpool (expected to fail)", File.ReadAllText(Path.Combine(_out, "report.html")));
        var summary = RunSummary.Parse(File.ReadAllText(Path.Combine(_out, "summary.json")));
        Assert.Equal(new SummaryOutcomes(51, 0, 50, 0, Requests: 101, Failed: 50, Completed: 51, NotCompleted: 50, FailedPercent: 100.0 * 50 / 101), summary.Variants[0].Outcomes);
        Assert.True(summary.Variants[0].ExpectedToFail);
        Assert.False(summary.Variants[1].ExpectedToFail);
    }

    [Fact]
    public void AVariantExpectedToFailThatDidNotSaysSoWhereverTheExpectationIsPrinted()
    {
        // The live smoke run printed "sync all 160 ok (expected to fail)": sync was answered every time at smoke's load.
        var report = SyntheticReports.LoadRun("sleep", ["sync", "taskrun", "async"], 20, 5, (name, t) => name == "taskrun" && t >= 10 ? 90_000 : 100) with
        {
            ExpectedToFail = ["sync", "taskrun"],
        };

        var summary = ReportWriter.Write(_out, report, RunnerCommandLine.Format(["sleep", "--profile", "smoke"]));

        var sync = $"sync (expected to fail, but all {summary.Variants[0].Requests} were answered)";
        Assert.Contains($"sync all {summary.Variants[0].Requests} ok (expected to fail, but all {summary.Variants[0].Requests} were answered);", ReportWriter.OutcomeLine(summary));
        // taskrun timed out as expected: the bare mark stays.
        Assert.Contains("failed (50 timed out) (expected to fail); async all", ReportWriter.OutcomeLine(summary));
        var markdown = File.ReadAllText(Path.Combine(_out, "summary.md"));
        Assert.Contains($"| {sync} |", markdown);
        Assert.Contains($"Expected to fail, as the effect shown: sync (but all {summary.Variants[0].Requests} were answered), taskrun.", markdown);
        Assert.Contains(sync, File.ReadAllText(Path.Combine(_out, "report.html")));
        Assert.DoesNotContain("ok (expected to fail)", markdown);
    }

    [Theory]
    [InlineData(0, 160, "expected to fail, but all 160 were answered")]
    [InlineData(1, 160, "expected to fail, but only 1 of 160 failed (0.6 %, within the 1 % limit)")]
    [InlineData(40, 160, "expected to fail")]
    [InlineData(0, 0, "expected to fail, but it sent none")]
    public void AnExpectationToFailIsMetOnlyPastTheLimitTheOtherVariantsAreHeldTo(long failed, long requests, string expected)
    {
        var variant = SyntheticReports.LoadRun("sleep", ["sync"], 3, 5, (_, _) => 100).Analysed().Variants[0] with
        {
            ExpectedToFail = true,
            Requests = requests,
            Failed = failed,
            Outcomes = new SummaryOutcomes(requests - failed, 0, failed, 0, requests, failed, requests - failed, failed, requests == 0 ? 0 : 100.0 * failed / requests),
        };

        Assert.Equal(expected, ReportWriter.Expectation(variant));
        Assert.Null(ReportWriter.Expectation(variant with { ExpectedToFail = false }));
    }

    [Fact]
    public void EachLoadAgentsRowReachesSummaryJsonAndASingleRunnersVariantHasNone()
    {
        var stats = TestStats.Uniform(10, 5);
        var key = new VariantKey("async");
        var merged = new VariantResult(key, "/api/fanout/async", "users", 4, [
            new IntervalRow(key, 1, "users", 3, 30, stats),
            new IntervalRow(key, 2, "users", 3, 20, stats) { MissingAgents = [1] },
            new IntervalRow(key, 3, "users", 3, 20, stats) { MissingAgents = [1] },
        ], [], stats)
        {
            Agents =
            [
                new AgentRow(0, "node-a", 60, 3.8, 4, 1, null),
                new AgentRow(1, "node-b", 10, 0.5, 1.2, 2, "died mid-run after 1 interval (t = 1.0 s); its own log holds what it measured"),
            ],
        };
        var single = new VariantResult(new VariantKey("threadpool"), "/api/fanout/threadpool", "users", 4, [], [], stats);
        var report = new ExperimentReport("fanout", "003", "smoke", "KeepConstant(3, 4 s)", "a fresh API child per variant", DateTimeOffset.UnixEpoch,
            MachineFacts.Current(), [merged, single], new Finding(Outcome.NotAssessed, [], "two agents."), []);

        ReportWriter.Write(_out, report, RunnerCommandLine.Format(["fanout", "--profile", "smoke", "--agents", "2"]));

        var json = File.ReadAllText(Path.Combine(_out, "summary.json"));
        var summary = RunSummary.Parse(json);
        Assert.Equivalent(
            new[]
            {
                new SummaryAgent(0, "node-a", 60, 3.8, 4, 1, merged.Agents[0].CpuPercent, ClientBound: true, null, []),
                new SummaryAgent(1, "node-b", 10, 0.5, 1.2, 2, merged.Agents[1].CpuPercent, ClientBound: false, merged.Agents[1].Fault, [2, 3]),
            },
            summary.Variants[0].Agents,
            strict: true);
        Assert.Null(summary.Variants[1].Agents);
        Assert.Single(System.Text.Json.Nodes.JsonNode.Parse(json)!["variants"]!.AsArray(), v => v!.AsObject().ContainsKey("agents"));
        Assert.True(System.Text.Json.Nodes.JsonNode.DeepEquals(System.Text.Json.Nodes.JsonNode.Parse(json), System.Text.Json.Nodes.JsonNode.Parse(summary.ToJson())));
    }

    [Theory]
    // The dll run by the dotnet host, as the notebook's timings run it: the report says so, not "dotnet run".
    [InlineData("/usr/share/dotnet/dotnet", "/work/repo/loadtests/R/bin/Release/net10.0/R.dll", "dotnet loadtests/R/bin/Release/net10.0/R.dll")]
    // dotnet run starts the runner's own executable: that is what ran.
    [InlineData("/work/repo/loadtests/R/bin/Release/net10.0/R", "/work/repo/loadtests/R/bin/Release/net10.0/R.dll", "loadtests/R/bin/Release/net10.0/R")]
    [InlineData("/opt/runner/R", "/opt/runner/R.dll", "/opt/runner/R")]
    [InlineData("/work/repo/R", "/work/repo/R.dll", "./R")]
    public void TheReportsCommandLineSaysWhatWasRun(string processPath, string entryPath, string expected) =>
        Assert.Equal(expected, RunnerCommandLine.LauncherOf(processPath, entryPath, "/work/repo"));

    [Fact]
    public void AStoppedRunsReportSaysPartialAndWhereItStoppedInEveryForm()
    {
        var partial = PartialRun.Describe("taskrun", 2, 5, ["sync"]);
        var report = SyntheticReports.LoadRun("sleep", ["sync", "taskrun"], 10, 5, (_, _) => 20) with { Partial = partial };

        ReportWriter.Write(_out, report, RunnerCommandLine.Format(["sleep", "--profile", "smoke"]));
        using var console = new StringWriter();
        ReportWriter.PrintOutcome(report.Analysed(), _out, console);

        Assert.Equal("partial: stopped after variant taskrun step 2 of 5 (Ctrl+C or SIGTERM); finished before it: sync", partial);
        var markdown = File.ReadAllLines(Path.Combine(_out, "summary.md"));
        Assert.Equal($"# {ReportWriter.PageTitle(report.Analysed())}", markdown[0]);
        Assert.EndsWith(", PARTIAL", markdown[0]);
        Assert.Equal($"**PARTIAL REPORT: {partial}. The figures cover only what ran before the stop.**", markdown[2]);
        Assert.Equal(partial, RunSummary.Parse(File.ReadAllText(Path.Combine(_out, "summary.json"))).Partial);
        Assert.StartsWith($"p.verdict partial PARTIAL REPORT: {partial}.", RenderedPage.LinesOf(Path.Combine(_out, "report.html"))[1]);
        Assert.StartsWith($"== PARTIAL REPORT: {partial}.", console.ToString());
    }

    [Fact]
    public void AFinishedRunsSummaryJsonHasNoPartialMember()
    {
        ReportWriter.Write(_out, SyntheticReports.LoadRun("sleep", ["sync"], 4, 5, (_, _) => 20), "sleep");

        Assert.DoesNotContain("\"partial\"", File.ReadAllText(Path.Combine(_out, "summary.json")));
    }

    [Fact]
    public void AStreamingReportCountsMessagesAndSaysWhichLatenessEachP99Is()
    {
        var report = SyntheticReports.LoadRun("streaming", ["allocating", "pipelines"], 20, 5, (_, _) => 1.5) with { Words = ReportWords.Messages };

        ReportWriter.Write(_out, report, RunnerCommandLine.Format(["streaming", "--find-capacity"]));

        var markdown = File.ReadAllText(Path.Combine(_out, "summary.md"));
        Assert.Contains("Messages: allocating all ", markdown);
        Assert.Contains("| allocating | delivered intact | ", markdown);
        Assert.Contains("| variant | stream | messages | failed | timed out | arrival lateness mean (ms) |", markdown);
        Assert.Contains("| variant | load | seconds | messages | messages/s | arrival lateness p50 (ms) | arrival lateness p99 (ms) |", markdown);
        foreach (var requestWord in new[] { "RPS", "ok (2xx)", "Requests:", "| requests |" })
        {
            Assert.DoesNotContain(requestWord, markdown, StringComparison.Ordinal);
        }
        // The step table's p99 (clients' arrival lateness, whole step) and a capacity step's (server's send lateness,
        // measured hold) are two figures: each is named for what it measures, and the note says why they differ.
        Assert.Contains("server send lateness", StreamingCapacity.StepLateness, StringComparison.Ordinal);
        Assert.Contains("measured hold", StreamingCapacity.StepLateness, StringComparison.Ordinal);
        Assert.Contains("not the server's send lateness", markdown, StringComparison.Ordinal);
        Assert.Contains("covers only its measured hold", markdown, StringComparison.Ordinal);
    }

    [Fact]
    public void RunnerDoesNotLinkTheApiAssembly()
    {
        Assert.DoesNotContain(typeof(Runner).Assembly.GetReferencedAssemblies(), a => a.Name == "ConcurrencySandbox.Api");
    }

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }
}
