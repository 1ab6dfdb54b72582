namespace ConcurrencySandbox.LoadTests.ApiContract;

/// <summary>The API's <c>GET /api/telemetry</c> document (issue 3's contract), as far as the reports use it.</summary>
public sealed record TelemetrySnapshot(
    DateTimeOffset Timestamp,
    double UptimeSeconds,
    int ProcessorCount,
    ThreadPoolTelemetry ThreadPool,
    GcTelemetry Gc,
    ProcessTelemetry Process,
    long LockContentionCount,
    long InFlightRequests);

public sealed record ThreadPoolTelemetry(int ThreadCount, long PendingWorkItemCount, long CompletedWorkItemCount, int MinWorkerThreads, int MaxWorkerThreads);

public sealed record GcTelemetry(int Gen0Collections, int Gen1Collections, int Gen2Collections, long TotalAllocatedBytes, long HeapSizeBytes, double TotalPauseDurationMs);

public sealed record ProcessTelemetry(double CpuTimeMs, double CpuPercent, long WorkingSetBytes, int OsThreadCount);

/// <summary>The API's <c>GET /api/telemetry/history</c> document.</summary>
public sealed record TelemetryHistory(double IntervalSeconds, IReadOnlyList<TelemetrySnapshot> Samples);
