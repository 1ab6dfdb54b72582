using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Api.ThreadPools;

/// <summary>
/// The four thread pool settings, declared once: the PUT body, the ThreadPool start-up section and Swagger all
/// read them through these declarations, so the range a user reads is the range enforced everywhere.
/// </summary>
public static class ThreadPoolSettings
{
    public static readonly IntegerParameter MinWorkerThreads = new(
        "minWorkerThreads", 1, ThreadPoolLimits.MaxThreads, null,
        "Worker threads the pool creates on demand without waiting (seed 000's fix: e.g. 400 during a burst of blocking work).");

    public static readonly IntegerParameter MinIoThreads = new(
        "minIoThreads", 1, ThreadPoolLimits.MaxThreads, null, "I/O completion threads the pool creates on demand without waiting.");

    public static readonly IntegerParameter MaxWorkerThreads = new(
        "maxWorkerThreads", ThreadPoolLimits.SafeMaxThreadsFloor, ThreadPoolLimits.MaxThreads, null,
        "The most worker threads; never below the processor count (at least 2), so the sandbox keeps a thread per core for its own server.");

    public static readonly IntegerParameter MaxIoThreads = new(
        "maxIoThreads", ThreadPoolLimits.SafeMaxThreadsFloor, ThreadPoolLimits.MaxThreads, null,
        "The most I/O completion threads; never below the processor count (at least 2).");

    public static IReadOnlyList<IntegerParameter> All { get; } = [MinWorkerThreads, MinIoThreads, MaxWorkerThreads, MaxIoThreads];

    /// <summary>
    /// Builds the change from the values read (each already checked against its declaration) and checks that each
    /// minimum stays at most its maximum once applied to <paramref name="current"/>.
    /// </summary>
    public static ThreadPoolChange Check(Func<IntegerParameter, long?> read, ThreadPoolLimits current, ValidationErrors errors, Func<IntegerParameter, string> nameOf)
    {
        var change = new ThreadPoolChange(read(MinWorkerThreads), read(MinIoThreads), read(MaxWorkerThreads), read(MaxIoThreads));
        if (!errors.IsValid)
        {
            return change;
        }

        var target = change.AppliedTo(current);
        (IntegerParameter Min, int MinValue, IntegerParameter Max, int MaxValue)[] pairs =
        [
            (MinWorkerThreads, target.MinWorkerThreads, MaxWorkerThreads, target.MaxWorkerThreads),
            (MinIoThreads, target.MinIoThreads, MaxIoThreads, target.MaxIoThreads),
        ];
        foreach (var (min, minValue, max, maxValue) in pairs.Where(pair => pair.MinValue > pair.MaxValue))
        {
            errors.Fail(nameOf(min), $"'{nameOf(min)}' ({minValue}) must be at most '{nameOf(max)}' ({maxValue}).");
        }

        return change;
    }
}
