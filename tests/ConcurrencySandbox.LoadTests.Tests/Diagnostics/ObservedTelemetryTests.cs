using System.Diagnostics;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

public sealed class ObservedTelemetryTests
{
    private static RuntimeSample At(long timestamp, double completed, double allocated, double threads) => new(timestamp, (double)timestamp / Stopwatch.Frequency, new Dictionary<string, double>
    {
        [RuntimeObserver.CompletedItems] = completed,
        [RuntimeObserver.AllocationBytes] = allocated,
        [RuntimeObserver.ThreadCount] = threads,
        [RuntimeObserver.HeapSizeMb] = 2.5,
    });

    [Fact]
    public void PerSecondCountersBecomeRunningTotalsAndSamplesBeforeTheVariantAreLeftOut()
    {
        var second = Stopwatch.Frequency;
        RuntimeSample[] samples = [At(0, 10, 100, 2), At(second, 20, 200, 3), At(2 * second, 30, 300, 5)];

        var rows = ObservedTelemetry.Rows(new VariantKey("sync"), startedTimestamp: second, samples, processorCount: 2);

        Assert.Equal([0.0, 1.0], rows.Select(r => r.ElapsedSeconds));
        Assert.Equal([30L, 60L], rows.Select(r => r.Snapshot.ThreadPool.CompletedWorkItemCount));
        Assert.Equal([300L, 600L], rows.Select(r => r.Snapshot.GC.TotalAllocatedBytes));
        Assert.Equal([3, 5], rows.Select(r => r.Snapshot.ThreadPool.ThreadCount));
        Assert.Equal([1.0, 2.0], rows.Select(r => r.Snapshot.UptimeSeconds));
        Assert.All(rows, r => Assert.Equal(2_500_000, r.Snapshot.GC.HeapSizeBytes));
    }

    /// <summary>
    /// Seconds the runtime wrote on time and a busy runner read 1.2-3 s apart (<see cref="SeededCounters.ReadLate"/>): the
    /// rows are placed where the runtime wrote them and each reading counts over its own interval, so they are the on-time
    /// series' rows, and their CPU is each second's reading over its second (read over the arrival gaps, or refused for
    /// samples over 1.5 s apart, before).
    /// </summary>
    [Fact]
    public void SecondsReadLateGiveTheRowsAndTheCpuOfSecondsReadOnTime()
    {
        var onTime = SeededCounters.Run("sync", SeededCounters.OnTime());
        var readLate = SeededCounters.Run("sync", SeededCounters.ReadLate());

        // Every field but the wall-clock stamp, which is taken as the rows are built.
        static TelemetryRow Unstamped(TelemetryRow row) => row with { Snapshot = row.Snapshot with { Timestamp = default } };
        Assert.Equal(onTime.Telemetry.Select(Unstamped), readLate.Telemetry.Select(Unstamped));
        Assert.Equal(Enumerable.Range(0, 11).Select(t => (double)t), readLate.Telemetry.Select(r => Math.Round(r.ElapsedSeconds, 9)));
        var span = readLate.CountedSpan();
        Assert.NotNull(span);
        Assert.Equal(SeededCounters.CpuMs, span.Growth(s => s.Process.CpuTimeMs), 6);
        Assert.Equal(SeededCounters.CpuMs / 200, span.PerRequest(s => s.Process.CpuTimeMs), 9);
    }

    /// <summary>
    /// The pool's adjustments come on the same session as the counters, so a busy runner reads them late too: each is
    /// placed where the runtime wrote it, on the rows' clock, so an injection falls between the samples it came between.
    /// </summary>
    [Fact]
    public void AdjustmentsReadLateArePlacedWhereTheRuntimeWroteThemBetweenTheirRows()
    {
        var second = Stopwatch.Frequency;
        ThreadAdjustment[] adjustments = [new((long)(5.4 * second), 3.5, 5, "Starvation"), new((long)(9.1 * second), 8.2, 6, "ClimbingMove")];

        var marks = ObservedTelemetry.Marks(startedTimestamp: 2 * second, SeededCounters.ReadLate(), adjustments);

        Assert.Equal([new AdjustmentMark(1.5, 5, "Starvation"), new AdjustmentMark(6.2, 6, "ClimbingMove")], marks.Select(m => m with { ElapsedSeconds = Math.Round(m.ElapsedSeconds, 9) }));
        Assert.Empty(ObservedTelemetry.Marks(0, [], adjustments));
    }

    /// <summary>The runtime's timer late (<see cref="SeededCounters.WrittenLate"/>): the next reading's longer interval carries the late second's CPU.</summary>
    [Fact]
    public void ALateTimersSecondIsInTheNextReadingsIntervalNotLost()
    {
        var run = SeededCounters.Run("sync", SeededCounters.WrittenLate());

        var (span, why) = run.CountedSpanBetween(double.NegativeInfinity, run.ElapsedSeconds);

        Assert.Null(why);
        Assert.Equal(SeededCounters.CpuMs, span!.Growth(s => s.Process.CpuTimeMs), 6);
        Assert.Equal(10, span.Growth(s => s.GC.TotalAllocatedBytes) / 1_000_000, 9);
    }

    /// <summary>
    /// One figure, one definition: a row's CPU percent (what the live page and "process CPU at the peak" show) is the
    /// reading its CPU time (what CPU per request is read from) grew by over the time since the row before, on the
    /// observer's processors, however late the rows were read.
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void ARowsCpuPercentIsTheReadingItsCpuTimeGrewByOverTheTimeSinceTheRowBefore(bool writtenLate)
    {
        var rows = SeededCounters.Run("sync", writtenLate ? SeededCounters.WrittenLate() : SeededCounters.ReadLate()).Telemetry;

        Assert.All(rows.Zip(rows.Skip(1)), pair => Assert.Equal(
            pair.Second.Snapshot.Process.CpuPercent / 100 * SeededCounters.ProcessorCount * 1000 * (pair.Second.ElapsedSeconds - pair.First.ElapsedSeconds),
            pair.Second.Snapshot.Process.CpuTimeMs - pair.First.Snapshot.Process.CpuTimeMs, 6));
    }

    /// <summary>A second lost whole, or its cpu-usage payload lost: the readings cover 9 s of the 10 between the rows, and the counted span says so rather than count the second as idle.</summary>
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void ACountedSpanMissingAPayloadIsRefusedAndSaysWhy(bool wholeSecond)
    {
        var run = SeededCounters.Run("sync", wholeSecond ? SeededCounters.SecondLost() : SeededCounters.CpuPayloadLost());

        var (span, why) = run.CountedSpanBetween(double.NegativeInfinity, run.ElapsedSeconds);

        Assert.Null(span);
        Assert.Equal("the runtime's CPU readings cover 9 s of the 10 s between its counter samples: a payload was lost", why);
        // The seconds either side of the lost one still count.
        Assert.NotNull(run.CountedSpanBetween(6, 10).Span);
    }

    [Theory]
    [InlineData(null, 0, "complete")]
    [InlineData(null, 35, "INCOMPLETE: 35 runtime events lost (the session's buffers were full), so the per-second sums miss those seconds")]
    [InlineData("the process exited", 35, "ENDED EARLY: the process exited")]
    public void TheSeriesIsCompleteOnlyWhenTheProcessStayedAndNoEventWasLost(string? lostReason, int eventsLost, string expected)
    {
        var observation = new VariantObservation("pid 1", 5, 1, [], null, null, null, lostReason) { EventsLost = eventsLost };

        Assert.Equal(expected, observation.Series);
        Assert.Equal(expected == "complete", observation.Complete);
    }

    /// <summary>
    /// The runtime's counters carry no OS thread count, so a service the runner observes has none in summary.json and
    /// telemetry.csv, where every row read 0 (issue 37's walk on a controller service); a row the API served keeps its own.
    /// </summary>
    [Fact]
    public void AnObservedServiceHasNoOsThreadCountWhereTheApiKeepsItsOwn()
    {
        var served = SyntheticReports.LoadRun("url", ["target"], seconds: 10, requestsPerSecond: 20, (_, _) => 50);
        var observedRows = SeededCounters.Run("target", SeededCounters.OnTime()).Telemetry;
        var observed = served with { Variants = [served.Variants[0] with { Telemetry = observedRows }] };

        Assert.All(served.Analysed().Variants[0].Telemetry, t => Assert.True(t.OsThreads > 0));
        var summary = observed.Analysed();
        Assert.Equal(observedRows.Count, summary.Variants[0].Telemetry.Count);
        Assert.All(summary.Variants[0].Telemetry, t => Assert.Null(t.OsThreads));
        Assert.Equal(summary.ToJson(), RunSummary.Parse(summary.ToJson()).ToJson());

        var folder = Directory.CreateTempSubdirectory("observed-telemetry-");
        try
        {
            ReportWriter.Write(folder.FullName, summary);
            var lines = File.ReadAllLines(Path.Combine(folder.FullName, "telemetry.csv"));
            var column = Array.IndexOf(lines[0].Split(','), "os_threads");
            Assert.All(lines.Skip(1), line => Assert.Equal("", line.Split(',')[column]));
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }
}
