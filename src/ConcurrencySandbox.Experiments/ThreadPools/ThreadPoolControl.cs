using ConcurrencySandbox.Contracts.ThreadPools;

namespace ConcurrencySandbox.Experiments.ThreadPools;

/// <summary>Whether the runtime took a change, and if not, which call it refused.</summary>
public sealed record ThreadPoolApplyResult(bool Applied, string? Refusal)
{
    public static ThreadPoolApplyResult Success { get; } = new(true, null);
}

/// <summary>
/// Reads and changes the process-wide CLR ThreadPool settings, and remembers the start-up values so that
/// <see cref="Reset"/> can return to them.
/// </summary>
public sealed class ThreadPoolControl(IThreadPoolSettings settings)
{
    private readonly Lock _gate = new();

    public ThreadPoolControl()
        : this(ClrThreadPoolSettings.Instance)
    {
    }

    /// <summary>The limits when the app started (after its configured start-up settings).</summary>
    public ThreadPoolLimits StartupLimits { get; private set; } = settings.Read();

    public ThreadPoolLimits Current => settings.Read();

    /// <summary>Applies the configured start-up settings and remembers the result as what Reset returns to.</summary>
    public ThreadPoolApplyResult ApplyAtStartup(ThreadPoolChange change)
    {
        lock (_gate)
        {
            var result = Apply(change);
            StartupLimits = settings.Read();
            return result;
        }
    }

    /// <summary>
    /// Applies a change already validated. SetMinThreads and
    /// SetMaxThreads return false when the runtime refuses; then the previous limits are put back and the
    /// refusal is returned.
    /// </summary>
    public ThreadPoolApplyResult Apply(ThreadPoolChange change)
    {
        lock (_gate)
        {
            var current = settings.Read();
            var target = change.AppliedTo(current);
            if (target == current)
            {
                return ThreadPoolApplyResult.Success;
            }

            var result = SetInSafeOrder(current, target);
            if (!result.Applied)
            {
                SetInSafeOrder(settings.Read(), current);
            }

            return result;
        }
    }

    public ThreadPoolApplyResult Reset() => Apply(ThreadPoolChange.To(StartupLimits));

    // A minimum above the current maximum (or a maximum below the current minimum) is refused, so raise the
    // maximum first when it goes up and lower the minimum first when the maximum comes down.
    private ThreadPoolApplyResult SetInSafeOrder(ThreadPoolLimits current, ThreadPoolLimits target)
    {
        var maxFirst = target.MaxWorkerThreads >= current.MinWorkerThreads && target.MaxIoThreads >= current.MinIoThreads;
        return maxFirst
            ? SetMax(target) is { Applied: false } refusedMax ? refusedMax : SetMin(target)
            : SetMin(target) is { Applied: false } refusedMin ? refusedMin : SetMax(target);
    }

    private ThreadPoolApplyResult SetMin(ThreadPoolLimits target) =>
        settings.TrySetMin(target.MinWorkerThreads, target.MinIoThreads)
            ? ThreadPoolApplyResult.Success
            : Refused("SetMinThreads", target.MinWorkerThreads, target.MinIoThreads);

    private ThreadPoolApplyResult SetMax(ThreadPoolLimits target) =>
        settings.TrySetMax(target.MaxWorkerThreads, target.MaxIoThreads)
            ? ThreadPoolApplyResult.Success
            : Refused("SetMaxThreads", target.MaxWorkerThreads, target.MaxIoThreads);

    private static ThreadPoolApplyResult Refused(string call, int workerThreads, int ioThreads) => new(
        false,
        $"The runtime refused ThreadPool.{call}(workerThreads: {workerThreads}, completionPortThreads: {ioThreads}) " +
        "(for example a maximum forced by DOTNET_ThreadPool_ForceMaxWorkerThreads, or a concurrent change); nothing was changed.");
}
