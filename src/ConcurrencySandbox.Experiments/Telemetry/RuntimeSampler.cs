using System.Diagnostics;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Contracts.ThreadPools;

namespace ConcurrencySandbox.Experiments.Telemetry;

/// <summary>
/// Reads the ThreadPool, GC and process counters the runtime keeps; cheap enough to call every second, and allocates
/// nothing in steady state, so the instrument does not add to the allocation it watches. The CPU share is measured
/// between consecutive snapshots, whoever asked for them. The sandbox's own activity comes from the
/// <see cref="SandboxMeter"/> counts, the values its instruments publish.
/// </summary>
public sealed class RuntimeSampler(TimeProvider timeProvider, Func<RequestCounts> requests)
{
    private static readonly DateTime ProcessStartUtc = ReadProcessStartUtc();

    private readonly Lock _gate = new();

    // The first snapshot measures CPU use since the process started.
    private (long Timestamp, TimeSpan CpuTime) _previous = (
        timeProvider.GetTimestamp() - (long)((DateTime.UtcNow - ProcessStartUtc).TotalSeconds * timeProvider.TimestampFrequency), TimeSpan.Zero);

    // GC.GetGCMemoryInfo allocates its answer, which describes the last collection: read it again only after one.
    private (int Collections, long HeapSizeBytes) _lastGC = (-1, 0);

    public RuntimeSnapshot Sample()
    {
        lock (_gate)
        {
            var cpuTime = Environment.CpuUsage.TotalTime;
            var timestamp = timeProvider.GetTimestamp();
            var cpuPercent = CpuPercent(cpuTime - _previous.CpuTime, timeProvider.GetElapsedTime(_previous.Timestamp, timestamp), Environment.ProcessorCount);
            _previous = (timestamp, cpuTime);

            var collections = GC.CollectionCount(0) + GC.CollectionCount(2);
            if (collections != _lastGC.Collections)
            {
                _lastGC = (collections, GC.GetGCMemoryInfo().HeapSizeBytes);
            }

            var process = ProcessStat.Read();
            var (inFlight, started) = requests();
            ThreadPool.GetMinThreads(out var minWorkerThreads, out _);
            ThreadPool.GetMaxThreads(out var maxWorkerThreads, out _);
            return new RuntimeSnapshot(
                timeProvider.GetUtcNow(),
                (DateTime.UtcNow - ProcessStartUtc).TotalSeconds,
                Environment.ProcessorCount,
                new ThreadPoolTelemetry(
                    ThreadPool.ThreadCount, ThreadPool.PendingWorkItemCount, ThreadPool.CompletedWorkItemCount, minWorkerThreads, maxWorkerThreads),
                new GCTelemetry(
                    GC.CollectionCount(0),
                    GC.CollectionCount(1),
                    GC.CollectionCount(2),
                    GC.GetTotalAllocatedBytes(),
                    _lastGC.HeapSizeBytes,
                    GC.GetTotalPauseDuration().TotalMilliseconds),
                new ProcessTelemetry(cpuTime.TotalMilliseconds, cpuPercent, process.WorkingSetBytes, process.OsThreadCount),
                Monitor.LockContentionCount,
                inFlight,
                started,
                SandboxMeter.Read());
        }
    }

    /// <summary>
    /// CPU time over wall time times processors, in percent. The kernel accounts CPU time in scheduler ticks, so
    /// a window of a few milliseconds can overshoot; the result is kept within 0..100.
    /// </summary>
    public static double CpuPercent(TimeSpan cpuTime, TimeSpan wallTime, int processorCount) =>
        wallTime <= TimeSpan.Zero ? 0 : Math.Clamp(cpuTime / (wallTime * processorCount) * 100, 0, 100);

    private static DateTime ReadProcessStartUtc()
    {
        using var process = Process.GetCurrentProcess();
        return process.StartTime.ToUniversalTime();
    }
}
