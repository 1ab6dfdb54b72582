using ConcurrencySandbox.Contracts.ThreadPools;

namespace ConcurrencySandbox.Experiments.ThreadPools;

/// <summary>The CLR ThreadPool's minimum and maximum worker and I/O completion threads.</summary>
public sealed record ThreadPoolLimits(int MinWorkerThreads, int MinIoThreads, int MaxWorkerThreads, int MaxIoThreads)
{
    /// <summary>The most threads the runtime accepts for any of the four settings.</summary>
    public const int MaxThreads = short.MaxValue;

    /// <summary>
    /// The lowest maximum (worker or I/O) the sandbox accepts: one thread per processor, and never fewer than two,
    /// so Kestrel keeps a thread to accept and dispatch with while an experiment blocks the others.
    /// </summary>
    public static int SafeMaxThreadsFloor => Math.Max(2, Environment.ProcessorCount);

    public static ThreadPoolLimits Read()
    {
        var snapshot = ThreadPoolSnapshot.Capture();
        return new(snapshot.MinWorkerThreads, snapshot.MinIoThreads, snapshot.MaxWorkerThreads, snapshot.MaxIoThreads);
    }
}

/// <summary>
/// A change to any of the four settings; those left null stay as they are. Values are as sent (long); the API
/// checks them against their declarations before applying.
/// </summary>
public sealed record ThreadPoolChange(long? MinWorkerThreads = null, long? MinIoThreads = null, long? MaxWorkerThreads = null, long? MaxIoThreads = null)
{
    public static ThreadPoolChange To(ThreadPoolLimits limits) =>
        new(limits.MinWorkerThreads, limits.MinIoThreads, limits.MaxWorkerThreads, limits.MaxIoThreads);

    public ThreadPoolLimits AppliedTo(ThreadPoolLimits current) => new(
        checked((int)(MinWorkerThreads ?? current.MinWorkerThreads)),
        checked((int)(MinIoThreads ?? current.MinIoThreads)),
        checked((int)(MaxWorkerThreads ?? current.MaxWorkerThreads)),
        checked((int)(MaxIoThreads ?? current.MaxIoThreads)));
}
