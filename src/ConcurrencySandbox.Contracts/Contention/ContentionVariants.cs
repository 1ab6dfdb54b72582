namespace ConcurrencySandbox.Contracts.Contention;

/// <summary>The contention variants as the route names them (<c>/api/contention/{variant}</c>), and the hold the API accepts.</summary>
public static class ContentionVariants
{
    /// <summary>C# lock (Monitor) around a blocking wait.</summary>
    public const string MonitorLock = "lock";

    /// <summary>SemaphoreSlim(1).WaitAsync around Task.Delay.</summary>
    public const string SemaphoreAsync = "semaphore-async";

    public const int MinHoldMs = 1;

    /// <summary>The longest hold one request may ask for: bounded, so a queue of waiters always drains.</summary>
    public const int MaxHoldMs = 10_000;

    public const int DefaultHoldMs = 20;

    /// <summary>The variants' names, in the order the API maps and the runner runs them.</summary>
    public static IReadOnlyList<string> Names { get; } = [MonitorLock, SemaphoreAsync];
}
