using System.Diagnostics;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Contracts.ThreadPools;

namespace ConcurrencySandbox.Experiments.Telemetry;

/// <summary>
/// Reads the ThreadPool, GC and process counters the runtime keeps; cheap enough to call every second.
/// The CPU share is measured between consecutive snapshots, whoever asked for them. The sandbox's own
/// activity comes from the <see cref="SandboxMeter"/> instruments, read through a meter listener.
/// </summary>
public sealed class RuntimeSampler(TimeProvider timeProvider, Func<long> inFlightRequests) : IDisposable
{
    private readonly Lock _gate = new();
    private readonly SandboxMeterReader _sandboxMeter = new();

    // The first snapshot measures CPU use since the process started.
    private (long Timestamp, TimeSpan CpuTime) _previous = (
        timeProvider.GetTimestamp() - (long)(ReadProcess().Uptime.TotalSeconds * timeProvider.TimestampFrequency), TimeSpan.Zero);

    public RuntimeSnapshot Sample()
    {
        double cpuPercent;
        TimeSpan cpuTime;
        lock (_gate)
        {
            cpuTime = Environment.CpuUsage.TotalTime;
            var timestamp = timeProvider.GetTimestamp();
            cpuPercent = CpuPercent(cpuTime - _previous.CpuTime, timeProvider.GetElapsedTime(_previous.Timestamp, timestamp), Environment.ProcessorCount);
            _previous = (timestamp, cpuTime);
        }

        var (uptime, osThreadCount) = ReadProcess();
        var pool = ThreadPoolSnapshot.Capture();
        return new RuntimeSnapshot(
            timeProvider.GetUtcNow(),
            uptime.TotalSeconds,
            Environment.ProcessorCount,
            new ThreadPoolTelemetry(
                pool.ThreadCount, pool.PendingWorkItemCount, pool.CompletedWorkItemCount, pool.MinWorkerThreads, pool.MaxWorkerThreads),
            new GCTelemetry(
                GC.CollectionCount(0),
                GC.CollectionCount(1),
                GC.CollectionCount(2),
                GC.GetTotalAllocatedBytes(),
                GC.GetGCMemoryInfo().HeapSizeBytes,
                GC.GetTotalPauseDuration().TotalMilliseconds),
            new ProcessTelemetry(cpuTime.TotalMilliseconds, cpuPercent, Environment.WorkingSet, osThreadCount),
            Monitor.LockContentionCount,
            inFlightRequests(),
            _sandboxMeter.Read());
    }

    public void Dispose() => _sandboxMeter.Dispose();

    /// <summary>
    /// CPU time over wall time times processors, in percent. The kernel accounts CPU time in scheduler ticks, so
    /// a window of a few milliseconds can overshoot; the result is kept within 0..100.
    /// </summary>
    public static double CpuPercent(TimeSpan cpuTime, TimeSpan wallTime, int processorCount) =>
        wallTime <= TimeSpan.Zero ? 0 : Math.Clamp(cpuTime / (wallTime * processorCount) * 100, 0, 100);

    private static (TimeSpan Uptime, int OsThreadCount) ReadProcess()
    {
        using var process = Process.GetCurrentProcess();
        return (DateTime.Now - process.StartTime, process.Threads.Count);
    }
}
