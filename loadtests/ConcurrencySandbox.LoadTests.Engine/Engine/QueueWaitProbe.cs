using System.Text.Json;
using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.LoadTests.ApiClient;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>Reads something from a successful response's body (the load client drains the rest).</summary>
public interface IResponseProbe
{
    Task ObserveAsync(Stream body, CancellationToken cancellationToken);
}

/// <summary>How the runner's own load clients hand an answer's body to its probe.</summary>
internal static class ResponseProbes
{
    /// <summary>Hands <paramref name="body"/> (the whole answer's) to <paramref name="probe"/> when the answer was ok; a body it cannot read fails the request.</summary>
    public static async Task<RequestOutcome> ObserveAsync(IResponseProbe probe, MemoryStream body, RequestOutcome outcome, CancellationToken cancellationToken)
    {
        if (outcome.End != RequestEnd.Ok)
        {
            return outcome;
        }

        body.Position = 0;
        try
        {
            await probe.ObserveAsync(body, cancellationToken);
            return outcome;
        }
        catch (JsonException e) when (!cancellationToken.IsCancellationRequested)
        {
            return RequestOutcome.Failed($"unreadable body: {e.Message}");
        }
    }
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
