using ConcurrencySandbox.Contracts.ThreadPools;

namespace ConcurrencySandbox.Experiments.ThreadPools;

/// <summary>Where the pool's limits are read and set: the CLR ThreadPool itself, or a stand-in in tests.</summary>
public interface IThreadPoolSettings
{
    ThreadPoolLimits Read();

    /// <summary>False when the runtime refuses, as ThreadPool.SetMinThreads does.</summary>
    bool TrySetMin(int workerThreads, int ioThreads);

    /// <summary>False when the runtime refuses, as ThreadPool.SetMaxThreads does.</summary>
    bool TrySetMax(int workerThreads, int ioThreads);
}

/// <summary>The process-wide CLR ThreadPool.</summary>
public sealed class ClrThreadPoolSettings : IThreadPoolSettings
{
    public static ClrThreadPoolSettings Instance { get; } = new();

    public ThreadPoolLimits Read() => ThreadPoolLimits.Read();

    public bool TrySetMin(int workerThreads, int ioThreads) => ThreadPool.SetMinThreads(workerThreads, ioThreads);

    public bool TrySetMax(int workerThreads, int ioThreads) => ThreadPool.SetMaxThreads(workerThreads, ioThreads);
}
