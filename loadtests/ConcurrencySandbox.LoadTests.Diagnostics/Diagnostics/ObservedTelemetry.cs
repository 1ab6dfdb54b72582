using System.Diagnostics;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// The observer's counters as the report's telemetry rows, so the charts and telemetry.csv read them as they read the
/// API's own samples. Per-second counters (completed items, contentions, collections, allocations, CPU) are summed
/// from the first sample into running totals; what the counters do not carry (the pool's minimum and maximum, OS threads, the sandbox meter) is 0.
/// </summary>
internal static class ObservedTelemetry
{
    private const double BytesPerMegabyte = 1_000_000;

    public static IReadOnlyList<TelemetryRow> Rows(VariantKey variant, long startedTimestamp, IReadOnlyList<RuntimeSample> samples, int processorCount)
    {
        var rows = new List<TelemetryRow>();
        double completed = 0, contentions = 0, gen0 = 0, gen1 = 0, gen2 = 0, allocated = 0, cpuMs = 0, pausedMs = 0;
        long? previous = null;
        foreach (var sample in samples)
        {
            var intervalSeconds = previous is { } p ? Stopwatch.GetElapsedTime(p, sample.Timestamp).TotalSeconds : 1;
            previous = sample.Timestamp;
            completed += sample[RuntimeObserver.CompletedItems] ?? 0;
            contentions += sample[RuntimeObserver.LockContentions] ?? 0;
            gen0 += sample[RuntimeObserver.Gen0Collections] ?? 0;
            gen1 += sample[RuntimeObserver.Gen1Collections] ?? 0;
            gen2 += sample[RuntimeObserver.Gen2Collections] ?? 0;
            allocated += sample[RuntimeObserver.AllocationBytes] ?? 0;
            pausedMs += sample[RuntimeObserver.GcPauseMs] ?? 0;
            // cpu-usage is a share of all the process's processors.
            var cpuPercent = sample[RuntimeObserver.CpuPercent] ?? 0;
            cpuMs += cpuPercent / 100 * processorCount * intervalSeconds * 1000;
            if (sample.Timestamp < startedTimestamp)
            {
                continue;
            }
            var elapsedSeconds = Stopwatch.GetElapsedTime(startedTimestamp, sample.Timestamp).TotalSeconds;
            var snapshot = new RuntimeSnapshot(
                DateTimeOffset.UtcNow - Stopwatch.GetElapsedTime(sample.Timestamp),
                // Since the observer's first sample, not the process's start: readers use the span between two rows.
                Stopwatch.GetElapsedTime(samples[0].Timestamp, sample.Timestamp).TotalSeconds,
                processorCount,
                new ThreadPoolTelemetry((int)(sample[RuntimeObserver.ThreadCount] ?? 0), (long)(sample[RuntimeObserver.QueueLength] ?? 0), (long)completed, 0, 0),
                new GCTelemetry((int)gen0, (int)gen1, (int)gen2, (long)allocated, (long)((sample[RuntimeObserver.HeapSizeMb] ?? 0) * BytesPerMegabyte), pausedMs),
                new ProcessTelemetry(cpuMs, cpuPercent, (long)((sample[RuntimeObserver.WorkingSetMb] ?? 0) * BytesPerMegabyte), 0),
                (long)contentions,
                (long)(sample[RuntimeObserver.CurrentRequests] ?? 0),
                (long)(sample[RuntimeObserver.TotalRequests] ?? 0),
                default(SandboxTelemetry));
            rows.Add(new TelemetryRow(variant, elapsedSeconds, snapshot));
        }
        return rows;
    }
}
