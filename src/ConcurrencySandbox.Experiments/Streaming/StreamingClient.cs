using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace ConcurrencySandbox.Experiments.Streaming;

/// <summary>What a set of clients saw; several clients add to one tally from several threads.</summary>
public sealed class StreamTally
{
    private long _connected;
    private long _delivered;
    private long _lost;
    private long _corrupt;
    private long _outOfOrder;
    private long _closedByServer;
    private long _failed;

    public LatenessHistogram Lateness { get; } = new();

    /// <summary>A snapshot of the counts.</summary>
    public StreamTallyCounts Counts() => new(
        Interlocked.Read(ref _connected),
        Interlocked.Read(ref _delivered),
        Interlocked.Read(ref _lost),
        Interlocked.Read(ref _corrupt),
        Interlocked.Read(ref _outOfOrder),
        Interlocked.Read(ref _closedByServer),
        Interlocked.Read(ref _failed),
        Lateness.PercentileMs(50),
        Lateness.PercentileMs(99));

    internal void Connected() => Interlocked.Increment(ref _connected);

    internal void Delivered(double latenessMs)
    {
        Interlocked.Increment(ref _delivered);
        Lateness.RecordMs(latenessMs);
    }

    internal void Lost(long count) => Interlocked.Add(ref _lost, count);

    internal void Corrupt() => Interlocked.Increment(ref _corrupt);

    internal void OutOfOrder() => Interlocked.Increment(ref _outOfOrder);

    internal void ClosedByServer() => Interlocked.Increment(ref _closedByServer);

    internal void Failed() => Interlocked.Increment(ref _failed);
}

/// <param name="Connected">Clients that read a valid header.</param>
/// <param name="Delivered">Intact frames received.</param>
/// <param name="Lost">Sequence numbers skipped.</param>
/// <param name="Corrupt">Frames whose checksum or payload did not match.</param>
/// <param name="OutOfOrder">Frames that arrived after a later one.</param>
/// <param name="ClosedByServer">Clients whose stream the server ended.</param>
/// <param name="Failed">Clients that could not connect, got a bad header, or hit a socket error.</param>
/// <param name="LatenessP50Ms">Arrival against schedule (the client's first arrival plus sequence x interval).</param>
public sealed record StreamTallyCounts(
    long Connected, long Delivered, long Lost, long Corrupt, long OutOfOrder, long ClosedByServer, long Failed, double LatenessP50Ms, double LatenessP99Ms);

/// <summary>Checks one client's frames in arrival order.</summary>
public sealed class StreamValidator(StreamHeader header, StreamTally tally)
{
    private long _expected;
    private long _firstArrival = -1;

    public void Accept(ReadOnlySpan<byte> frame, long arrivalTimestamp)
    {
        var (sequence, intact) = StreamProtocol.ReadFrame(frame);
        if (!intact)
        {
            tally.Corrupt();
            _expected++;
            return;
        }

        if (sequence < _expected)
        {
            tally.OutOfOrder();
            return;
        }

        if (sequence > _expected)
        {
            tally.Lost(sequence - _expected);
        }

        _expected = sequence + 1;
        var dueOffset = sequence * header.IntervalMs * Stopwatch.Frequency / 1000;
        if (_firstArrival < 0)
        {
            _firstArrival = arrivalTimestamp - dueOffset;
        }

        tally.Delivered(Math.Max(0, arrivalTimestamp - (_firstArrival + dueOffset)) * 1000.0 / Stopwatch.Frequency);
    }
}

/// <summary>A client that connects, reads the header, then reads and checks every frame until cancelled or closed.</summary>
public static class StreamingClient
{
    public static async Task RunAsync(IPEndPoint server, StreamTally tally, CancellationToken cancellationToken)
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            await socket.ConnectAsync(server, cancellationToken);
            var headerBytes = new byte[StreamProtocol.HeaderBytes];
            if (!await ReadExactlyAsync(socket, headerBytes, cancellationToken) || StreamProtocol.ReadHeader(headerBytes) is not { } header)
            {
                tally.Failed();
                return;
            }

            tally.Connected();
            var validator = new StreamValidator(header, tally);
            var frame = new byte[header.FrameBytes];
            while (await ReadExactlyAsync(socket, frame, cancellationToken))
            {
                validator.Accept(frame, Stopwatch.GetTimestamp());
            }

            tally.ClosedByServer();
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
        }
        catch (SocketException)
        {
            tally.Failed();
        }
    }

    /// <summary>Starts <paramref name="clients"/> clients, <paramref name="connectIntervalMs"/> apart, as seed 001 did; ends when cancelled.</summary>
    public static async Task RunManyAsync(IPEndPoint server, int clients, int connectIntervalMs, StreamTally tally, CancellationToken cancellationToken)
    {
        var running = new List<Task>(clients);
        try
        {
            for (var client = 0; client < clients; client++)
            {
                running.Add(RunAsync(server, tally, cancellationToken));
                if (client + 1 < clients && connectIntervalMs > 0)
                {
                    await Task.Delay(connectIntervalMs, cancellationToken);
                }
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
        }

        await Task.WhenAll(running);
    }

    /// <summary>False when the stream ended first.</summary>
    private static async ValueTask<bool> ReadExactlyAsync(Socket socket, Memory<byte> buffer, CancellationToken cancellationToken)
    {
        for (var read = 0; read < buffer.Length;)
        {
            var count = await socket.ReceiveAsync(buffer[read..], SocketFlags.None, cancellationToken);
            if (count == 0)
            {
                return false;
            }

            read += count;
        }

        return true;
    }
}
