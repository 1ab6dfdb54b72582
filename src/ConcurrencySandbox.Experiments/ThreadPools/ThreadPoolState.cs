namespace ConcurrencySandbox.Experiments.ThreadPools;

/// <summary>The pool's settings, free threads and work counters, with the facts that explain them.</summary>
public sealed record ThreadPoolState(
    int MinWorkerThreads,
    int MinIoThreads,
    int MaxWorkerThreads,
    int MaxIoThreads,
    int AvailableWorkerThreads,
    int AvailableIoThreads,
    int ThreadCount,
    long PendingWorkItemCount,
    long CompletedWorkItemCount,
    int ProcessorCount,
    bool IsServerGC,
    string GCMode)
{
    public static ThreadPoolState Read()
    {
        var limits = ThreadPoolLimits.Read();
        ThreadPool.GetAvailableThreads(out var availableWorkers, out var availableIo);
        return new ThreadPoolState(
            limits.MinWorkerThreads,
            limits.MinIoThreads,
            limits.MaxWorkerThreads,
            limits.MaxIoThreads,
            availableWorkers,
            availableIo,
            ThreadPool.ThreadCount,
            ThreadPool.PendingWorkItemCount,
            ThreadPool.CompletedWorkItemCount,
            RuntimeFacts.ProcessorCount,
            RuntimeFacts.IsServerGC,
            RuntimeFacts.GCMode);
    }
}
