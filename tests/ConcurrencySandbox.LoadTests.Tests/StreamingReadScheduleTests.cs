using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.LoadTests.Experiments.Streaming;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// Which readings of the streaming API ask for the lateness histogram's buckets: each one is garbage in the process
/// whose allocations are measured, so only the readings the steady-state figures use carry them.
/// </summary>
public sealed class StreamingReadScheduleTests
{
    private const int Clients = 50;

    [Fact]
    public async Task TheMeasuredWindowAsksForBucketsUntilEveryClientIsConnectedAndAtItsLastReadingOnly()
    {
        // All clients connected from the third reading on: the steady state starts there.
        var asked = new List<bool>();
        using var timer = new PeriodicTimer(TimeSpan.FromMilliseconds(1));

        var samples = await StreamingRun.SampleAsync(timer, TimeSpan.FromSeconds(1), Clients, TimeSpan.Zero, Reader(asked, connectedFrom: 2), CancellationToken.None);

        Assert.True(asked.Count >= 5, $"{asked.Count} readings in 1 s at one a millisecond");
        Assert.Equal([true, true, true], asked[..3]);
        Assert.All(asked[3..^1], withBuckets => Assert.False(withBuckets));
        Assert.True(asked[^1]);
        Assert.Equal(asked.Count, samples.Count);
    }

    [Fact]
    public async Task OnceSteadyTheWindowReadsOnlyOncePerSeriesIntervalAndAtItsEnd()
    {
        // A series interval longer than the window: after the steady state starts, only the last reading is left.
        var asked = new List<bool>();
        using var timer = new PeriodicTimer(TimeSpan.FromMilliseconds(1));

        await StreamingRun.SampleAsync(timer, TimeSpan.FromMilliseconds(200), Clients, TimeSpan.FromDays(1), Reader(asked, connectedFrom: 2), CancellationToken.None);

        Assert.Equal([true, true, true, true], asked);
    }

    [Fact]
    public async Task TheSteadyStateFiguresReadOnlyReadingsThatCarryBuckets()
    {
        var asked = new List<bool>();
        using var timer = new PeriodicTimer(TimeSpan.FromMilliseconds(1));
        var samples = await StreamingRun.SampleAsync(timer, TimeSpan.FromSeconds(1), Clients, TimeSpan.Zero, Reader(asked, connectedFrom: 2), CancellationToken.None);

        var result = new StreamingResult(StreamingLoad.Seed001Shape, [], samples, new StreamingClientsReading(10, Clients, 1000, 0, 0, 0, 0, 0, [], 0, 1, Final: true));

        Assert.NotNull(result.Steady[0].Server.SendLatenessBuckets);
        Assert.NotNull(result.Steady[^1].Server.SendLatenessBuckets);
        Assert.Equal(0.1, result.SendLatenessP99Ms, 9);
    }

    [Fact]
    public async Task TheIdleWindowReadsItsFirstAndLastReadingOnlyAndNeverAsksForBuckets()
    {
        var asked = new List<bool>();
        using var timer = new PeriodicTimer(TimeSpan.FromMilliseconds(1));

        await StreamingRun.SampleAsync(timer, TimeSpan.FromMilliseconds(200), steadyClients: null, TimeSpan.MaxValue, Reader(asked, connectedFrom: int.MaxValue), CancellationToken.None);

        Assert.Equal([false, false], asked);
    }

    /// <summary>A server whose clients are all connected from reading <paramref name="connectedFrom"/> on, one message (0.1 ms late) per reading.</summary>
    private static ReadServer Reader(List<bool> asked, int connectedFrom) => (withLatenessBuckets, _) =>
    {
        var reading = asked.Count;
        asked.Add(withLatenessBuckets);
        var server = new StreamingServerCounters(
            reading >= connectedFrom ? Clients : 0, Clients, 0, 0, 0, MessagesSent: reading, 0, 0.1, 0.1,
            withLatenessBuckets ? [new LatenessBucket(0, reading)] : null, 0, 0);
        return Task.FromResult((server, new StreamingProcessFigures(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)));
    };
}
