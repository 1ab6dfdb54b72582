namespace ConcurrencySandbox.Contracts.ThreadPools;

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
