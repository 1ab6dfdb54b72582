using ConcurrencySandbox.Experiments.Streaming;

namespace ConcurrencySandbox.LoadTests.ApiContract;

/// <summary>The API's <c>GET /api/streaming</c> answer, as far as the runner reads it; the server's counters are the library's own record.</summary>
public sealed record StreamingStatus(bool Enabled, int? Port, StreamingServerCounters? Server, StreamingProcess? Process);

/// <summary>The API process since its streaming server started (counts) and now (sizes).</summary>
public sealed record StreamingProcess(
    long AllocatedBytes, int Gen0Collections, int Gen1Collections, int Gen2Collections, double CpuTimeMs, long HeapSizeBytes, long WorkingSetBytes, int OsThreads);
