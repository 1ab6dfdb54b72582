using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

public sealed class ObservedTelemetryTests
{
    private static RuntimeSample At(long timestamp, double completed, double allocated, double threads) => new(timestamp, new Dictionary<string, double>
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
}
