using ConcurrencySandbox.Contracts.ThreadPools;

namespace ConcurrencySandbox.Contracts.FanOut;

/// <summary>How a third-party call ended.</summary>
public enum CallOutcome
{
    Ok,
    Failed,
    TimedOut,
}

/// <summary>What kind of thread started a call.</summary>
public enum CallThread
{
    Pool,
    Dedicated,
    Other,
}

/// <summary>
/// One third-party call: how long it waited in a queue before it started, how long it took, how it ended,
/// and which thread started it.
/// </summary>
public sealed record CallRecord(
    int Index,
    double QueueWaitMs,
    double DurationMs,
    CallOutcome Outcome,
    string? Error,
    int ThreadId,
    CallThread Thread);

/// <summary>The largest and the mean of a set of times.</summary>
public sealed record MsSummary(double Max, double Mean)
{
    public static MsSummary Of(IReadOnlyCollection<double> values) =>
        values.Count == 0 ? new MsSummary(0, 0) : new MsSummary(values.Max(), values.Average());
}

/// <summary>The API's <c>GET /api/fanout</c> answer: one fan-out request's result: every call, their summaries, and the pool before and after.</summary>
public sealed record FanOutReport(
    string Strategy,
    int Calls,
    double ElapsedMs,
    IReadOnlyList<CallRecord> Results,
    MsSummary QueueWaitMs,
    MsSummary DurationMs,
    int OkCount,
    int FailedCount,
    int TimedOutCount,
    int DistinctThreads,
    ThreadPoolSnapshot ThreadPoolBefore,
    ThreadPoolSnapshot ThreadPoolAfter);
