namespace ConcurrencySandbox.Contracts.ThreadPools;

/// <summary>The CLR ThreadPool's settings and load at one instant, read from the runtime's own counters.</summary>
public sealed record ThreadPoolSnapshot(
    int ThreadCount,
    long PendingWorkItemCount,
    long CompletedWorkItemCount,
    int MinWorkerThreads,
    int MinIoThreads,
    int MaxWorkerThreads,
    int MaxIoThreads,
    int AvailableWorkerThreads,
    int AvailableIoThreads)
{
    public static ThreadPoolSnapshot Capture()
    {
        ThreadPool.GetMinThreads(out var minWorker, out var minIo);
        ThreadPool.GetMaxThreads(out var maxWorker, out var maxIo);
        ThreadPool.GetAvailableThreads(out var availableWorker, out var availableIo);
        return new ThreadPoolSnapshot(
            ThreadPool.ThreadCount,
            ThreadPool.PendingWorkItemCount,
            ThreadPool.CompletedWorkItemCount,
            minWorker,
            minIo,
            maxWorker,
            maxIo,
            availableWorker,
            availableIo);
    }
}
