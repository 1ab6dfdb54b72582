using ConcurrencySandbox.Contracts.ThreadPools;

namespace ConcurrencySandbox.Experiments.ThreadPools;

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
