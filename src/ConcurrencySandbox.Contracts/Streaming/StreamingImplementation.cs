namespace ConcurrencySandbox.Contracts.Streaming;

/// <summary>How the server sends; one per process so each variant starts fresh.</summary>
public enum StreamingImplementation
{
    /// <summary>Seed 001's allocation-heavy pattern in today's idiom: a new buffer and a new task per message.</summary>
    Allocating = 1,

    /// <summary>Seed 001's pool: SocketAsyncEventArgs over one pre-allocated block sliced per connection.</summary>
    SaeaPooled = 2,

    /// <summary>Today's path: a System.IO.Pipelines pipe per connection, drained with Socket.SendAsync(ReadOnlyMemory).</summary>
    Pipelines = 3,
}

public static class StreamingImplementations
{
    private static readonly (string Name, StreamingImplementation Value)[] All =
    [
        ("allocating", StreamingImplementation.Allocating),
        ("saea-pooled", StreamingImplementation.SaeaPooled),
        ("pipelines", StreamingImplementation.Pipelines),
    ];

    public static IReadOnlyList<string> Names { get; } = [.. All.Select(entry => entry.Name)];

    public static string NameOf(StreamingImplementation implementation) => All.First(entry => entry.Value == implementation).Name;

    /// <summary>Parses a name such as "saea-pooled" (case-insensitive).</summary>
    public static bool TryParse(string? name, out StreamingImplementation implementation)
    {
        foreach (var entry in All)
        {
            if (string.Equals(entry.Name, name, StringComparison.OrdinalIgnoreCase))
            {
                implementation = entry.Value;
                return true;
            }
        }

        implementation = default;
        return false;
    }
}
