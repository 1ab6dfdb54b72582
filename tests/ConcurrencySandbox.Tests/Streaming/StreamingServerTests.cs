using System.Net;
using System.Net.Sockets;
using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.Experiments.Streaming;

namespace ConcurrencySandbox.Tests.Streaming;

public sealed class StreamingServerTests
{
    public static TheoryData<StreamingImplementation> Implementations => [.. Enum.GetValues<StreamingImplementation>()];

    [Theory]
    [MemberData(nameof(Implementations))]
    public async Task EveryImplementationDeliversIntactOrderedMessagesToSeveralClients(StreamingImplementation implementation)
    {
        const int clients = 3;
        const int messagesEach = 40;
        await using var server = Start(new StreamingServerSettings(implementation, MessageBytes: 300, IntervalMs: 5, QueueMessages: 1000, MaxClients: 8));
        var tally = new StreamTally();
        using var stop = new CancellationTokenSource();

        var run = StreamingClient.RunManyAsync(server.EndPoint!, clients, connectIntervalMs: 10, tally, stop.Token);
        await Eventually.TrueAsync(() => tally.Counts().Delivered >= clients * messagesEach, "every client's messages");
        await stop.CancelAsync();
        await run;

        var counts = tally.Counts();
        Assert.Equal(clients, counts.Connected);
        Assert.Equal((0L, 0L, 0L, 0L, 0L), (counts.Lost, counts.Corrupt, counts.OutOfOrder, counts.ClosedByServer, counts.Failed));
        var sent = server.Counters();
        Assert.Equal(clients, sent.AcceptedClients);
        Assert.Equal(0, sent.DroppedSlowClients);
        Assert.True(sent.MessagesSent >= counts.Delivered, $"the server counted {sent.MessagesSent} sent, the clients {counts.Delivered} delivered");
    }

    [Theory]
    [MemberData(nameof(Implementations))]
    public async Task AClientThatNeverReadsIsDroppedAndCountedInsteadOfQueuedWithoutBound(StreamingImplementation implementation)
    {
        // 64 KiB every 2 ms fills the loopback socket buffers within seconds; then the queue of 4 messages fills.
        await using var server = Start(new StreamingServerSettings(implementation, MessageBytes: 65_536, IntervalMs: 2, QueueMessages: 4, MaxClients: 4));
        using var silent = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await silent.ConnectAsync(server.EndPoint!);

        await Eventually.TrueAsync(() => server.Counters().DroppedSlowClients == 1, "the silent client to be dropped");

        var counters = server.Counters();
        Assert.Equal(0, counters.ConnectedClients);
        Assert.Equal(0, counters.DisconnectedClients);
        Assert.Equal(1, counters.AcceptedClients);
    }

    [Theory]
    [InlineData(StreamingImplementation.Allocating, true)]
    [InlineData(StreamingImplementation.SaeaPooled, false)]
    [InlineData(StreamingImplementation.Pipelines, false)]
    public async Task OnlyTheAllocatingImplementationAllocatesPerMessageOnTheTickingThread(StreamingImplementation implementation, bool allocatesPerMessage)
    {
        const int messageBytes = 500;
        await using var server = Start(new StreamingServerSettings(implementation, messageBytes, IntervalMs: 2, QueueMessages: 1000, MaxClients: 4));
        var tally = new StreamTally();
        using var stop = new CancellationTokenSource();
        var run = StreamingClient.RunManyAsync(server.EndPoint!, clients: 2, connectIntervalMs: 0, tally, stop.Token);

        // Pools fill up while they warm (and longer when the machine is busy): the quietest of several windows of
        // 100 messages shows what a message costs once warm; allocating pays for its buffer in every window.
        var windows = new List<double>();
        var before = server.Counters();
        while (windows.Count < 8)
        {
            await Eventually.TrueAsync(() => server.Counters().MessagesSent >= before.MessagesSent + 100, "100 more messages sent");
            var after = server.Counters();
            windows.Add((double)(after.TickerAllocatedBytes - before.TickerAllocatedBytes) / (after.MessagesSent - before.MessagesSent));
            before = after;
        }

        await stop.CancelAsync();
        await run;

        var bytesPerMessage = windows.Min();
        if (allocatesPerMessage)
        {
            Assert.True(bytesPerMessage >= messageBytes, $"{implementation}: {bytesPerMessage:0.#} B per message, expected at least the {messageBytes} B buffer");
        }
        else
        {
            Assert.True(bytesPerMessage < messageBytes / 10.0, $"{implementation}: {bytesPerMessage:0.#} B per message on the ticking thread");
        }
    }

    [Fact]
    public async Task ClientsBeyondMaxClientsAreRefusedAndCounted()
    {
        await using var server = Start(new StreamingServerSettings(StreamingImplementation.SaeaPooled, MessageBytes: 16, IntervalMs: 5, QueueMessages: 8, MaxClients: 1));
        var tally = new StreamTally();
        using var stop = new CancellationTokenSource();

        var first = StreamingClient.RunAsync(server.EndPoint!, tally, stop.Token);
        await Eventually.TrueAsync(() => tally.Counts().Delivered > 0, "the first client's first message");
        var second = StreamingClient.RunAsync(server.EndPoint!, tally, stop.Token);
        await Eventually.TrueAsync(() => server.Counters().RefusedClients == 1, "the second client to be refused");
        await second;
        await stop.CancelAsync();
        await first;

        Assert.Equal(1, tally.Counts().Connected);
        Assert.Equal(1, server.Counters().AcceptedClients);
    }

    [Fact]
    public async Task TheTickerSleepsWhileNoClientIsConnectedAndWakesWhenOneConnects()
    {
        // 2 ms intervals cut into 2 phases: a ticker that woke while idle would count about 1,000 wake-ups a second.
        await using var server = Start(new StreamingServerSettings(StreamingImplementation.SaeaPooled, MessageBytes: 16, IntervalMs: 2, QueueMessages: 1000, MaxClients: 2));
        await Task.Delay(300);
        Assert.Equal(0, server.Counters().TickerWakeUps);

        var tally = new StreamTally();
        using (var stop = new CancellationTokenSource())
        {
            var client = StreamingClient.RunAsync(server.EndPoint!, tally, stop.Token);
            await Eventually.TrueAsync(() => tally.Counts().Delivered >= 20, "the client's first 20 messages");
            Assert.True(server.Counters().TickerWakeUps > 0);
            await stop.CancelAsync();
            await client;
        }

        await Eventually.TrueAsync(() => server.Counters().ConnectedClients == 0, "the server to notice the client left");
        var afterLeaving = server.Counters().TickerWakeUps;
        await Task.Delay(300);

        // At most the one phase the ticker was already waiting for when the last client left.
        Assert.InRange(server.Counters().TickerWakeUps - afterLeaving, 0, 1);
        Assert.Equal((0L, 0L, 0L), (tally.Counts().Lost, tally.Counts().Corrupt, tally.Counts().OutOfOrder));
    }

    [Fact]
    public void ReadingTheLatenessHistogramAllocatesNoCopyOfItSoTheCostDoesNotGrowWithItsRecords()
    {
        var histogram = new LatenessHistogram();
        double[] latenessesMs = [0.05, 0.3, 1.2, 7, 45, 150, 900];
        foreach (var latenessMs in latenessesMs)
        {
            histogram.RecordMs(latenessMs);
        }

        var few = AllocatedByARead(histogram);
        for (var record = 0; record < 100_000; record++)
        {
            histogram.RecordMs(latenessesMs[record % latenessesMs.Length]);
        }

        var many = AllocatedByARead(histogram);

        Assert.Equal(few, many);
        Assert.Equal(0, many.Percentiles);

        // One array of seven 16-byte buckets; the histogram itself holds 1,991 counts (about 16 KB).
        Assert.InRange(many.Buckets, 1, 256);
    }

    [Fact]
    public async Task ReadingTheServerCountersAllocatesOnlyTheAnswer()
    {
        await using var server = Start(new StreamingServerSettings(StreamingImplementation.SaeaPooled, MessageBytes: 16, IntervalMs: 100, QueueMessages: 8, MaxClients: 2));
        server.Counters();

        var before = GC.GetAllocatedBytesForCurrentThread();
        server.Counters();
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        // The counters record and an empty bucket array, not two 16 KB copies of the histogram as before.
        Assert.InRange(allocated, 1, 512);
    }

    [Fact]
    public void TheValidatorCountsLostCorruptAndOutOfOrderFrames()
    {
        var header = new StreamHeader(StreamingImplementation.Pipelines, MessageBytes: 8, IntervalMs: 100);
        var tally = new StreamTally();
        var validator = new StreamValidator(header, tally);

        foreach (var sequence in new long[] { 0, 1, 3, 2 })
        {
            validator.Accept(Frame(header, sequence), arrivalTimestamp: 0);
        }

        var corrupt = Frame(header, 4);
        corrupt[^1] ^= 0xFF;
        validator.Accept(corrupt, arrivalTimestamp: 0);

        var counts = tally.Counts();
        Assert.Equal((3L, 1L, 1L, 1L), (counts.Delivered, counts.Lost, counts.OutOfOrder, counts.Corrupt));
    }

    [Fact]
    public void AHeaderRoundTripsAndAForeignOneIsRejected()
    {
        var bytes = new byte[StreamProtocol.HeaderBytes];
        StreamProtocol.WriteHeader(bytes, StreamingImplementation.SaeaPooled, 128, 100);

        Assert.Equal(new StreamHeader(StreamingImplementation.SaeaPooled, 128, 100), StreamProtocol.ReadHeader(bytes));
        bytes[0] ^= 0xFF;
        Assert.Null(StreamProtocol.ReadHeader(bytes));
    }

    private static StreamingServer Start(StreamingServerSettings settings)
    {
        var server = StreamingServer.Create(settings);
        server.Start(new IPEndPoint(IPAddress.Loopback, 0));
        return server;
    }

    private static (long Percentiles, long Buckets) AllocatedByARead(LatenessHistogram histogram)
    {
        histogram.PercentileMs(99);
        histogram.NonEmptyBuckets();
        var before = GC.GetAllocatedBytesForCurrentThread();
        histogram.PercentileMs(50);
        histogram.PercentileMs(99);
        var afterPercentiles = GC.GetAllocatedBytesForCurrentThread();
        histogram.NonEmptyBuckets();
        return (afterPercentiles - before, GC.GetAllocatedBytesForCurrentThread() - afterPercentiles);
    }

    private static byte[] Frame(StreamHeader header, long sequence)
    {
        var frame = new byte[header.FrameBytes];
        StreamProtocol.WriteFrame(frame, sequence);
        return frame;
    }
}
