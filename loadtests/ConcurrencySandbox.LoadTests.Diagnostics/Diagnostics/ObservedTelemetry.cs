using System.Diagnostics;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// The observer's counters as the report's telemetry rows, so the charts and telemetry.csv read them as they read the
/// API's own samples. Per-second counters (completed items, contentions, collections, allocations, CPU) are summed
/// from the first sample into running totals; what the counters do not carry (the pool's minimum and maximum, OS threads, the sandbox meter) is 0.
/// </summary>
/// <remarks>
/// Each row is placed where the runtime wrote its sample, not where the runner read it: the runtime's clock
/// (<see cref="RuntimeSample.WrittenSeconds"/>) put on the runner's by the least delay any sample was read with, so a
/// second read late (the runner's threads busy) moves no row and the requests counted between two rows are those of the
/// seconds the counters measured. The CPU time is each cpu-usage reading over its own IntervalSec
/// (<see cref="RuntimeSample.CpuIntervalSeconds"/>), and the seconds those intervals cover are kept beside it
/// (<see cref="TelemetryRow.CpuCoveredSeconds"/>), so a span missing a payload says so (<see cref="VariantResult.CountedSpanBetween"/>).
/// </remarks>
internal static class ObservedTelemetry
{
    private const double BytesPerMegabyte = 1_000_000;

    public static IReadOnlyList<TelemetryRow> Rows(VariantKey variant, long startedTimestamp, IReadOnlyList<RuntimeSample> samples, int processorCount)
    {
        var rows = new List<TelemetryRow>();
        if (ClockZero(samples) is not { } clockZero)
        {
            return rows;
        }
        double completed = 0, contentions = 0, gen0 = 0, gen1 = 0, gen2 = 0, allocated = 0, cpuMs = 0, pausedMs = 0, coveredSeconds = 0;
        foreach (var sample in samples)
        {
            completed += sample[RuntimeObserver.CompletedItems] ?? 0;
            contentions += sample[RuntimeObserver.LockContentions] ?? 0;
            gen0 += sample[RuntimeObserver.Gen0Collections] ?? 0;
            gen1 += sample[RuntimeObserver.Gen1Collections] ?? 0;
            gen2 += sample[RuntimeObserver.Gen2Collections] ?? 0;
            allocated += sample[RuntimeObserver.AllocationBytes] ?? 0;
            pausedMs += sample[RuntimeObserver.GcPauseMs] ?? 0;
            // cpu-usage is a share of all the process's processors over its payload's interval; a missing payload adds
            // neither CPU nor covered seconds.
            var cpuPercent = sample[RuntimeObserver.CpuPercent] ?? 0;
            var intervalSeconds = sample.CpuIntervalSeconds ?? 0;
            cpuMs += cpuPercent / 100 * processorCount * intervalSeconds * 1000;
            coveredSeconds += intervalSeconds;
            var written = clockZero + Ticks(sample.WrittenSeconds);
            if (written < startedTimestamp)
            {
                continue;
            }
            var snapshot = new RuntimeSnapshot(
                DateTimeOffset.UtcNow - Stopwatch.GetElapsedTime(written),
                // Since the observer's first sample, not the process's start: readers use the span between two rows.
                sample.WrittenSeconds - samples[0].WrittenSeconds,
                processorCount,
                new ThreadPoolTelemetry((int)(sample[RuntimeObserver.ThreadCount] ?? 0), (long)(sample[RuntimeObserver.QueueLength] ?? 0), (long)completed, 0, 0),
                new GCTelemetry((int)gen0, (int)gen1, (int)gen2, (long)allocated, (long)((sample[RuntimeObserver.HeapSizeMb] ?? 0) * BytesPerMegabyte), pausedMs),
                new ProcessTelemetry(cpuMs, cpuPercent, (long)((sample[RuntimeObserver.WorkingSetMb] ?? 0) * BytesPerMegabyte), OsThreadCount: null),
                (long)contentions,
                (long)(sample[RuntimeObserver.CurrentRequests] ?? 0),
                (long)(sample[RuntimeObserver.TotalRequests] ?? 0),
                default(SandboxTelemetry));
            rows.Add(new TelemetryRow(variant, Stopwatch.GetElapsedTime(startedTimestamp, written).TotalSeconds, snapshot) { CpuCoveredSeconds = coveredSeconds });
        }
        return rows;
    }

    /// <summary>The pool's adjustments since <paramref name="startedTimestamp"/>, placed as the rows are: where the runtime wrote them, on the samples' clock; none before the first sample.</summary>
    public static IReadOnlyList<AdjustmentMark> Marks(long startedTimestamp, IReadOnlyList<RuntimeSample> samples, IReadOnlyList<ThreadAdjustment> adjustments) =>
        ClockZero(samples) is not { } clockZero
            ? []
            : [.. adjustments
                .Select(a => (Adjustment: a, Written: clockZero + Ticks(a.WrittenSeconds)))
                .Where(a => a.Written >= startedTimestamp)
                .Select(a => new AdjustmentMark(Stopwatch.GetElapsedTime(startedTimestamp, a.Written).TotalSeconds, a.Adjustment.NewWorkerThreadCount, a.Adjustment.Reason))];

    /// <summary>
    /// The runner's <see cref="Stopwatch"/> timestamp of the runtime's clock's zero: each sample was read at least as long
    /// after it was written as the one read soonest. Null before the first sample.
    /// </summary>
    private static long? ClockZero(IReadOnlyList<RuntimeSample> samples) => samples.Count == 0 ? null : samples.Min(s => s.Timestamp - Ticks(s.WrittenSeconds));

    private static long Ticks(double seconds) => (long)Math.Round(seconds * Stopwatch.Frequency);
}
