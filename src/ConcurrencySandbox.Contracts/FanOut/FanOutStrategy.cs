namespace ConcurrencySandbox.Contracts.FanOut;

/// <summary>How a request runs its third-party calls.</summary>
public enum FanOutStrategy
{
    /// <summary>Each call queued on the CLR ThreadPool, blocking its thread (seed 003's original).</summary>
    ThreadPool,

    /// <summary>Each call queued on the CLR ThreadPool, blocking on an asynchronous call's Task.</summary>
    SyncOverAsync,

    /// <summary>Each blocking call on a thread of the app's own pool (seed 003's fix).</summary>
    Dedicated,

    /// <summary>Awaited all the way: no thread held while waiting.</summary>
    Async,
}

/// <summary>The strategies' names as users type them.</summary>
public static class FanOutStrategies
{
    private static readonly Dictionary<string, FanOutStrategy> ByName = new(StringComparer.OrdinalIgnoreCase)
    {
        ["threadpool"] = FanOutStrategy.ThreadPool,
        ["sync-over-async"] = FanOutStrategy.SyncOverAsync,
        ["dedicated"] = FanOutStrategy.Dedicated,
        ["async"] = FanOutStrategy.Async,
    };

    public static IReadOnlyCollection<string> Names => ByName.Keys;

    public static string Name(this FanOutStrategy strategy) => ByName.First(pair => pair.Value == strategy).Key;

    public static FanOutStrategy Parse(string name) =>
        ByName.TryGetValue(name, out var strategy)
            ? strategy
            : throw new ArgumentException($"Unknown fan-out strategy '{name}'; one of: {string.Join(", ", Names)}.", nameof(name));
}
