using System.Text.Json;
using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.LoadTests.ApiClient;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>Reads something from a successful response's body (the load client drains the rest).</summary>
public interface IResponseProbe
{
    Task ObserveAsync(Stream body, CancellationToken cancellationToken);
}

/// <summary>
/// Keeps the longest per-call queue wait the fan-out endpoint reports (<c>queueWaitMs.max</c>): seed 003's
/// "waiting for up to 12 seconds for work to even start", measured by the server.
/// </summary>
internal sealed class QueueWaitProbe : IResponseProbe
{
    private long _maxMicroseconds = -1;

    /// <summary>The longest queue wait seen, or null when no response carried one.</summary>
    public double? MaxMs => Interlocked.Read(ref _maxMicroseconds) is var max and >= 0 ? max / 1000.0 : null;

    public async Task ObserveAsync(Stream body, CancellationToken cancellationToken)
    {
        if (await JsonSerializer.DeserializeAsync<FanOutReport>(body, SandboxClient.Json, cancellationToken) is { QueueWaitMs: { } wait })
        {
            var microseconds = (long)(wait.Max * 1000);
            for (var seen = Interlocked.Read(ref _maxMicroseconds); microseconds > seen; seen = Interlocked.Read(ref _maxMicroseconds))
            {
                if (Interlocked.CompareExchange(ref _maxMicroseconds, microseconds, seen) == seen)
                {
                    return;
                }
            }
        }
    }
}
