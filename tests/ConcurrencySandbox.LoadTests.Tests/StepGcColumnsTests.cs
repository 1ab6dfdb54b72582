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
}
