namespace ConcurrencySandbox.Contracts.Telemetry;

public readonly record struct ThreadPoolTelemetry(
    int ThreadCount, long PendingWorkItemCount, long CompletedWorkItemCount, int MinWorkerThreads, int MaxWorkerThreads);

public readonly record struct GCTelemetry(
    int Gen0Collections, int Gen1Collections, int Gen2Collections, long TotalAllocatedBytes, long HeapSizeBytes, double TotalPauseDurationMs);

/// <summary>
/// CPU use is the CPU time since the previous snapshot over the wall time times the processor count. <paramref name="OsThreadCount"/>
/// is null where the source has none: the runtime's counters read from outside the process (a service the runner observes).
/// </summary>
public readonly record struct ProcessTelemetry(double CpuTimeMs, double CpuPercent, long WorkingSetBytes, int? OsThreadCount);

/// <summary>The API port's requests: in flight now, and started since the process began (a server-side count that a
/// load tool's own figures can be checked against, and that gives any tool's throughput from the server's side).</summary>
public readonly record struct RequestCounts(long InFlight, long Started);

/// <summary>
/// One reading of the runtime's own counters: the API's <c>GET /api/telemetry</c> answer. Values all through (the sandbox
/// readings share their names list), so the sampler builds one and the recorder keeps it without allocating (the
/// instrument must not add to what it measures).
/// </summary>
public readonly record struct RuntimeSnapshot(
    DateTimeOffset Timestamp,
    double UptimeSeconds,
    int ProcessorCount,
    ThreadPoolTelemetry ThreadPool,
    GCTelemetry GC,
    ProcessTelemetry Process,
    long LockContentionCount,
    long InFlightRequests,
    long RequestsStarted,
    SandboxTelemetry Sandbox);

/// <summary>Samples recorded at a fixed interval, oldest first: the API's <c>GET /api/telemetry/history</c> answer.</summary>
public sealed record TelemetryHistory(double IntervalSeconds, IReadOnlyList<RuntimeSnapshot> Samples);
