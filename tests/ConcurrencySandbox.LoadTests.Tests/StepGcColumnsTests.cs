using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>Issue 38 item 3: the GC read per step (pause share, bytes per request, peak heap) as columns of the step tables, from the summary's fields.</summary>
public sealed class StepGcColumnsTests
{
    // Every second: 20 ms of GC pauses (2 % of the time) and 1 MB allocated; the heap grows 1 MB a second.
    private static RuntimeSnapshot Snapshot(int second) => new(
        DateTimeOffset.UnixEpoch, second, 2, new ThreadPoolTelemetry(4, 0, 100, 2, 32767),
        new GCTelemetry(second, 0, 0, 1_000_000L * second, 10_000_000 + (1_000_000L * second), 20.0 * second), new ProcessTelemetry(0, 0, 0, 4), 0, 0, 0, default(SandboxTelemetry));

    /// <summary>The synthetic stepped run (5 requests a second) with a GC reading a second, the samples of <paramref name="missing"/> seconds lost.</summary>
    private static ExperimentReport Observed(Func<double, bool> missing)
    {
        var run = SyntheticReports.LoadRun("fanout", ["async"], 20, 5, (_, _) => 100);
        var v = run.Variants[0];
        return run with { Variants = [v with { Telemetry = [.. Enumerable.Range(0, (int)v.ElapsedSeconds + 1).Where(s => !missing(s)).Select(s => new TelemetryRow(v.Key, s, Snapshot(s)))] }] };
    }

    [Fact]
    public void TheStepTablesGcColumnsAreTheSummarysFieldsOfEachStep()
    {
        var summary = Observed(_ => false).Analysed();

        var table = ReportWriter.StepTable(summary)!;
        var steps = summary.Variants[0].Steps;
        Assert.Equal(["time in GC pauses", "allocated per request", "peak heap"], table.Headers.TakeLast(3));
        Assert.Equal(steps.Count, table.Rows.Count);
        for (var i = 0; i < steps.Count; i++)
        {
            var gc = steps[i].Gc!;
            Assert.Null(gc.NotReadBecause);
            // The counters' growth over the step: 2 % paused, 1 MB a second over the requests that ended in it.
            Assert.Equal(0.02, gc.PauseShare!.Value, 6);
            Assert.InRange(gc.AllocatedBytesPerRequest!.Value, 150_000, 250_000);
            Assert.Equal(ReportWriter.GcCells(gc), table.Rows[i].TakeLast(3));
        }
        Assert.Equal("2 %", table.Rows[0][^3]);
        // Each step's own peak heap, not the run's.
        Assert.True(steps[^1].Gc!.PeakHeapBytes > steps[0].Gc!.PeakHeapBytes);
    }

    [Fact]
    public void AStepWhoseCountersWereLostReadsNotAvailableWithWhyNeverZero()
    {
        // The second step's samples (seconds 3-4) lost: its span has one sample a second too few or a gap.
        var summary = Observed(s => s is > 2 and < 6).Analysed();

        var step = summary.Variants[0].Steps[1];
        Assert.Null(step.Gc!.PauseShare);
        Assert.NotNull(step.Gc.NotReadBecause);
        var row = ReportWriter.StepTable(summary)!.Rows[1];
        Assert.Equal([$"n/a ({step.Gc.NotReadBecause})", "n/a", "n/a"], row.TakeLast(3));
        Assert.Equal(ReportWriter.GcCells(step.Gc), row.TakeLast(3));
    }

    [Fact]
    public void ARunNotObservedHasNoGcColumns()
    {
        var run = SyntheticReports.LoadRun("fanout", ["async"], 20, 5, (_, _) => 100);
        var summary = (run with { Variants = [run.Variants[0] with { Telemetry = [] }] }).Analysed();

        Assert.All(summary.Variants[0].Steps, s => Assert.Null(s.Gc));
        Assert.DoesNotContain("time in GC pauses", ReportWriter.StepTable(summary)!.Headers);
    }

    [Fact]
    public void ACapacitySearchsStepTableShowsTheFiguresTheGcFindingReads()
    {
        var observed = Observed(_ => false);
        var step = observed.Variants[0];
        var report = observed with
        {
            Capacity = new SummaryCapacity("users", 500, "p99 <= 500 ms (given)", 4, null, null, null, null, null),
            StepJudgements = new Dictionary<string, StepJudgement> { [step.Key.Label] = new StepJudgement(StepJudgement.Held, null) },
        };

        var summary = report.Analysed();
        var gc = summary.Capacity!.Steps![0].Gc!;
        var finding = GcFigures.Of(step, eventsLost: 0)!;
        Assert.Equal((finding.PauseShare, finding.BytesPerRequest, finding.PeakHeapBytes), (gc.PauseShare!.Value, gc.AllocatedBytesPerRequest!.Value, gc.PeakHeapBytes!.Value));
        var table = ReportWriter.CapacityStepTable(summary)!;
        Assert.Equal(ReportWriter.GcCells(gc), table.Rows[0].TakeLast(3));
        Assert.Equal("held", table.Rows[0][4]);
        var markdown = ReportWriter.SummaryMarkdown(summary);
        Assert.Contains(table.ToMarkdown(), markdown, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(38)]
    [InlineData(39)]
    [InlineData(2026)]
    public void ACapacitySearchsStepTableShowsEachCallsAttemptsOnTheWireWhereTheyWereReadAndNothingWhereNot(int seed)
    {
        // Issue 38's attempts (a retrying handler's 503s behind its 200s) were in summary.json but on no page. Seeded: each
        // step's calls traced or not (not observed, trace not read, no call), each call's attempts read or not, retried or not.
        var random = new Random(seed);
        var steps = Enumerable.Range(0, 6).Select(i => new SummaryCapacityStep($"{4 * (i + 1)}-users", "search", 4 * (i + 1), 90, 120, 30, 300, 300, 0, null)
        {
            Upstream = random.Next(5) switch
            {
                0 => null,
                1 => new SummaryStepUpstream(null, [], "the trace was lost"),
                2 => new SummaryStepUpstream(10, [], null),
                _ => new SummaryStepUpstream(10, [.. Enumerable.Range(0, random.Next(1, 4)).Select(Call)], null),
            },
        }).ToList();
        SummaryUpstreamCall Call(int index)
        {
            var requests = random.Next(1, 3_000);
            var busy = random.Next(2) == 0 ? 0 : random.Next(1, requests);
            var call = new SummaryUpstreamCall($"pricing:5001/quotes-{index}/{{id}}", requests, 20, 18, 20 + random.Next(500), 0);
            return random.Next(3) == 0 ? call : call with { Attempts = requests + busy, AttemptStatuses = busy == 0 ? new Dictionary<int, int> { [200] = requests } : new Dictionary<int, int> { [200] = requests, [503] = busy } };
        }
        var run = SyntheticReports.LoadRun("run", ["GET /api/orders"], 10, 5, (_, _) => 100).Analysed();
        var summary = run with { Capacity = new SummaryCapacity("users", 500, "p99 <= 500 ms (given)", 24, null, null, null, null, null) { Steps = steps } };

        var table = ReportWriter.CapacityStepTable(summary)!;

        var column = table.Headers.ToList().IndexOf(ReportWriter.CallsColumn);
        Assert.Equal(steps.Any(s => s.Upstream is not null), column >= 0);
        foreach (var (step, row) in steps.Zip(table.Rows).Where(_ => column >= 0))
        {
            var cell = row[column];
            var calls = step.Upstream?.Calls ?? [];
            Assert.Equal(step.Upstream switch { null => "n/a (the runtime was not observed)", { NotReadBecause: { } why } => $"n/a ({why})", _ => cell }, cell);
            Assert.Equal(step.Upstream is { NotReadBecause: null, Calls.Count: 0 }, cell == "none");
            foreach (var call in calls)
            {
                var described = cell.Split("; ").Single(part => part.StartsWith($"{call.Call}: ", StringComparison.Ordinal));
                Assert.StartsWith($"{call.Call}: {CountText.Of(call.Requests, "call")}", described, StringComparison.Ordinal);
                Assert.Equal(call.Attempts is not null, described.Contains(" on the wire", StringComparison.Ordinal));
                if (call.Attempts is { } attempts)
                {
                    // Most answers first: the 200s, then the 503s the handler retried.
                    var busy = call.AttemptStatuses!.GetValueOrDefault(503);
                    Assert.Contains($", {CountText.Of(attempts, "attempt")} on the wire (200 x {call.Requests}{(busy > 0 ? $", 503 x {busy}" : "")}), p99 ", described, StringComparison.Ordinal);
                }
            }
            Assert.DoesNotContain(" 0 attempts", cell, StringComparison.Ordinal);
        }
        var unobserved = run with { Capacity = summary.Capacity! with { Steps = [.. steps.Select(s => s with { Upstream = null })] } };
        Assert.DoesNotContain(ReportWriter.CallsColumn, ReportWriter.CapacityStepTable(unobserved)!.Headers);
    }
}
