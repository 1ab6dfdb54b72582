namespace ConcurrencySandbox.Contracts.Streaming;

/// <summary>The API's <c>GET /api/streaming</c> answer (seed 001): the server's settings, counters and the process's cost.</summary>
/// <param name="Enabled">False when Streaming:Port is 0 or absent.</param>
/// <param name="Endpoint">For example tcp://127.0.0.1:5081.</param>
/// <param name="FrameBytes">Bytes on the wire per message: 12 + messageBytes.</param>
public sealed record StreamingStatus(
    bool Enabled,
    string Implementation,
    string? Endpoint,
    int? Port,
    int MessageBytes,
    int FrameBytes,
    int IntervalMs,
    int QueueMessages,
    int MaxClients,
    StreamingServerCounters? Server,
    StreamingProcessFigures? Process);

/// <summary>The whole process since the streaming server started (counts) and now (sizes).</summary>
public sealed record StreamingProcessFigures(
    long AllocatedBytes,
    double AllocatedBytesPerMessage,
    int Gen0Collections,
    int Gen1Collections,
    int Gen2Collections,
    double CpuTimeMs,
    double CpuMicrosecondsPerMessage,
    long HeapSizeBytes,
    long WorkingSetBytes,
    int OsThreads);

/// <summary>The server's counters at one moment.</summary>
/// <param name="TickerAllocatedBytes">
/// What the ticking thread has allocated: every message is built and handed to its socket there (completions that
/// finish at once run there too), so its growth per message is the implementation's own allocation, free of the
/// process's other noise.
/// </param>
/// <param name="SendLatenessBuckets">
/// The send-lateness histogram's non-empty buckets; null when the reader asked without them (<c>?buckets=false</c>):
/// with a wide spread they are the answer's largest part, and the API's own garbage while it is measured.
/// </param>
/// <param name="TickerWakeUps">How often the ticking thread woke to send (once per phase while clients are connected; it sleeps while none is).</param>
public sealed record StreamingServerCounters(
    int ConnectedClients,
    long AcceptedClients,
    long DroppedSlowClients,
    long RefusedClients,
    long DisconnectedClients,
    long MessagesSent,
    long BytesSent,
    double SendLatenessP50Ms,
    double SendLatenessP99Ms,
    IReadOnlyList<LatenessBucket>? SendLatenessBuckets,
    long TickerAllocatedBytes,
    long TickerWakeUps);

/// <summary>How many records fell in one bucket of a lateness histogram (a value, so a list of them is one allocation).</summary>
public readonly record struct LatenessBucket(int Index, long Count);
