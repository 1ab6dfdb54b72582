using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using ConcurrencySandbox.Contracts.Streaming;

namespace ConcurrencySandbox.Experiments.Streaming;

/// <param name="Implementation">How messages are sent.</param>
/// <param name="MessageBytes">Payload bytes per message; each frame adds <see cref="StreamProtocol.FramePrefixBytes"/>.</param>
/// <param name="IntervalMs">Every client gets one message per interval.</param>
/// <param name="QueueMessages">Messages a client may have waiting to be sent; one more and it is dropped as too slow.</param>
/// <param name="MaxClients">Connections beyond this are closed at once and counted as refused.</param>
public sealed record StreamingServerSettings(StreamingImplementation Implementation, int MessageBytes, int IntervalMs, int QueueMessages, int MaxClients)
{
    public int FrameBytes => StreamProtocol.FrameBytes(MessageBytes);
}

/// <summary>
/// A TCP server that sends every connected client one fixed-size frame per interval, from one ticking thread. How
/// a frame reaches the socket is the implementation's business; the ticking, the bounded per-client queue, the
/// slow-client drop and the counters are shared, so the variants differ only in how they send.
/// Clients are spread over <see cref="Phases"/> phases of the interval (slot modulo phases): each client still gets
/// one frame per interval, but the ticker wakes once per phase and sends to 1/Phases of the clients, so a frame
/// waits for the few sends of its own phase, not for every client's (docs/notebook/streaming.md, "The schedule"). While no
/// client is connected the ticker sleeps on a signal instead of waking once per phase.
/// </summary>
public abstract class StreamingServer : IAsyncDisposable
{
    private readonly Socket _listener;
    private readonly StreamingServerConnection?[] _slots;
    private readonly Stack<int> _freeSlots;
    private readonly Lock _slotsGate = new();
    private readonly CancellationTokenSource _stopping = new();
    private readonly ManualResetEventSlim _stopSignal = new();

    /// <summary>Set when a client connects or the server stops; the ticker sleeps on it while no client is connected.</summary>
    private readonly ManualResetEventSlim _wakeSignal = new();
    private readonly LatenessHistogram _lateness = new();
    private readonly long _intervalTimestamps;
    private readonly int _phases;
    private Thread? _ticker;
    private Task _acceptLoop = Task.CompletedTask;
    private long _startTimestamp;
    private int _connectedClients;
    private long _acceptedClients;
    private long _droppedSlowClients;
    private long _refusedClients;
    private long _disconnectedClients;
    private long _messagesSent;
    private long _bytesSent;
    private long _tickerAllocatedBytes;
    private long _tickerWakeUps;

    protected StreamingServer(StreamingServerSettings settings)
    {
        Settings = settings;
        _slots = new StreamingServerConnection?[settings.MaxClients];
        _freeSlots = new Stack<int>(Enumerable.Range(0, settings.MaxClients).Reverse());
        _intervalTimestamps = settings.IntervalMs * Stopwatch.Frequency / 1000;
        _phases = PhasesOf(settings.IntervalMs);
        _listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
    }

    /// <summary>The most phases an interval is cut into: 1 ms apart at the seed's 100 ms.</summary>
    public const int MaxPhases = 100;

    public StreamingServerSettings Settings { get; }

    /// <summary>How many phases the interval is cut into: one per millisecond, at most <see cref="MaxPhases"/>.</summary>
    public static int PhasesOf(int intervalMs) => Math.Clamp(intervalMs, 1, MaxPhases);

    public string ImplementationName => StreamingImplementations.NameOf(Settings.Implementation);

    /// <summary>Where the server listens, once started.</summary>
    public IPEndPoint? EndPoint { get; private set; }

    public static StreamingServer Create(StreamingServerSettings settings) => settings.Implementation switch
    {
        StreamingImplementation.Allocating => new AllocatingStreamingServer(settings),
        StreamingImplementation.SaeaPooled => new SaeaPooledStreamingServer(settings),
        StreamingImplementation.Pipelines => new PipelinesStreamingServer(settings),
        _ => throw new ArgumentOutOfRangeException(nameof(settings), settings.Implementation, "Unknown implementation."),
    };

    /// <summary>Binds (port 0 picks a free one), listens, and starts accepting and ticking.</summary>
    public void Start(IPEndPoint endPoint)
    {
        _listener.Bind(endPoint);
        _listener.Listen(512);
        EndPoint = (IPEndPoint)_listener.LocalEndPoint!;
        _startTimestamp = Stopwatch.GetTimestamp();
        _ticker = new Thread(Tick) { IsBackground = true, Name = "streaming-ticker" };
        _ticker.Start();
        _acceptLoop = AcceptLoopAsync(_stopping.Token);
    }

    /// <param name="withLatenessBuckets">False leaves the lateness histogram's buckets out (null): one allocation fewer per reading, of up to about 16 KB.</param>
    public StreamingServerCounters Counters(bool withLatenessBuckets = true) => new(
        Volatile.Read(ref _connectedClients),
        Interlocked.Read(ref _acceptedClients),
        Interlocked.Read(ref _droppedSlowClients),
        Interlocked.Read(ref _refusedClients),
        Interlocked.Read(ref _disconnectedClients),
        Interlocked.Read(ref _messagesSent),
        Interlocked.Read(ref _bytesSent),
        _lateness.PercentileMs(50),
        _lateness.PercentileMs(99),
        withLatenessBuckets ? _lateness.NonEmptyBuckets() : null,
        Interlocked.Read(ref _tickerAllocatedBytes),
        Interlocked.Read(ref _tickerWakeUps));

    public async ValueTask DisposeAsync()
    {
        await _stopping.CancelAsync();
        _stopSignal.Set();
        _wakeSignal.Set();
        _listener.Dispose();
        await _acceptLoop;
        _ticker?.Join();
        for (var slot = 0; slot < _slots.Length; slot++)
        {
            if (_slots[slot] is { } connection)
            {
                Remove(connection);
            }
        }

        _stopping.Dispose();
        _stopSignal.Dispose();
        _wakeSignal.Dispose();
        GC.SuppressFinalize(this);
    }

    /// <summary>Wraps a connected socket whose header is already sent.</summary>
    internal abstract StreamingServerConnection Open(Socket socket, int slot);

    /// <summary>A frame went out whole; called once per frame, in sequence order per connection.</summary>
    internal void OnSent(StreamingServerConnection connection, long sequence)
    {
        var now = Stopwatch.GetTimestamp();
        connection.Dequeued();
        Interlocked.Increment(ref _messagesSent);
        Interlocked.Add(ref _bytesSent, Settings.FrameBytes);
        _lateness.RecordTimestamps(ScheduledTimestamp(connection.FirstTick + sequence, connection.Slot % _phases), now);
    }

    /// <summary>A send failed: the client went away, or was dropped and its socket closed.</summary>
    internal void OnFailed(StreamingServerConnection connection)
    {
        if (Remove(connection) && !_stopping.IsCancellationRequested)
        {
            Interlocked.Increment(ref _disconnectedClients);
        }
    }

    /// <summary>Returns a slot once its connection has nothing in flight, so its memory can be reused.</summary>
    internal void ReleaseSlot(int slot)
    {
        lock (_slotsGate)
        {
            _freeSlots.Push(slot);
        }
    }

    private async Task AcceptLoopAsync(CancellationToken cancellationToken)
    {
        var header = new byte[StreamProtocol.HeaderBytes];
        StreamProtocol.WriteHeader(header, Settings.Implementation, Settings.MessageBytes, Settings.IntervalMs);
        while (!cancellationToken.IsCancellationRequested)
        {
            Socket socket;
            try
            {
                socket = await _listener.AcceptAsync(cancellationToken);
            }
            catch (Exception exception) when (exception is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                return;
            }

            await AdmitAsync(socket, header, cancellationToken);
        }
    }

    private async Task AdmitAsync(Socket socket, byte[] header, CancellationToken cancellationToken)
    {
        int slot;
        lock (_slotsGate)
        {
            slot = _freeSlots.Count > 0 ? _freeSlots.Pop() : -1;
        }

        if (slot < 0)
        {
            Interlocked.Increment(ref _refusedClients);
            socket.Dispose();
            return;
        }

        try
        {
            socket.NoDelay = true;
            await socket.SendAsync(header, SocketFlags.None, cancellationToken);
        }
        catch (Exception exception) when (exception is OperationCanceledException or ObjectDisposedException or SocketException)
        {
            socket.Dispose();
            ReleaseSlot(slot);
            return;
        }

        var connection = Open(socket, slot);
        Interlocked.Increment(ref _acceptedClients);
        Interlocked.Increment(ref _connectedClients);
        Volatile.Write(ref _slots[slot], connection);
        _wakeSignal.Set();
    }

    /// <summary>When phase <paramref name="phase"/> of tick <paramref name="tick"/> is due.</summary>
    private long ScheduledTimestamp(long tick, int phase) =>
        _startTimestamp + ((((tick * _phases) + phase) * _intervalTimestamps) / _phases);

    private void Tick()
    {
        for (long step = 0; ; step++)
        {
            if (Volatile.Read(ref _connectedClients) == 0)
            {
                if (!SleepWhileIdle())
                {
                    return;
                }

                // Nobody was due anything while idle: carry on from the phase that is due now instead of catching up.
                step = Math.Max(step, StepDueAt(Stopwatch.GetTimestamp()));
            }

            var (tick, phase) = Math.DivRem(step, _phases);
            var scheduled = ScheduledTimestamp(tick, (int)phase);
            for (var remaining = scheduled - Stopwatch.GetTimestamp(); remaining > 0; remaining = scheduled - Stopwatch.GetTimestamp())
            {
                if (_stopSignal.Wait((int)Math.Max(1, remaining * 1000 / Stopwatch.Frequency)))
                {
                    return;
                }
            }

            if (_stopping.IsCancellationRequested)
            {
                return;
            }

            Interlocked.Increment(ref _tickerWakeUps);
            for (var slot = (int)phase; slot < _slots.Length; slot += _phases)
            {
                if (Volatile.Read(ref _slots[slot]) is { } connection)
                {
                    Send(connection, tick);
                }
            }

            Interlocked.Exchange(ref _tickerAllocatedBytes, GC.GetAllocatedBytesForCurrentThread());
        }
    }

    /// <summary>Blocks until a client is connected (true) or the server stops (false), without waking in between.</summary>
    private bool SleepWhileIdle()
    {
        while (true)
        {
            // Reset before the checks: a client admitted (or a stop) after the reset sets the signal again, so neither is missed.
            _wakeSignal.Reset();
            if (_stopping.IsCancellationRequested)
            {
                return false;
            }

            if (Volatile.Read(ref _connectedClients) > 0)
            {
                return true;
            }

            _wakeSignal.Wait();
        }
    }

    /// <summary>The first step (tick x phases + phase) whose scheduled time is at or after <paramref name="timestamp"/>.</summary>
    private long StepDueAt(long timestamp)
    {
        var elapsed = Math.Max(0, timestamp - _startTimestamp);
        return ((elapsed * _phases) + _intervalTimestamps - 1) / _intervalTimestamps;
    }

    private void Send(StreamingServerConnection connection, long tick)
    {
        if (connection.FirstTick < 0)
        {
            connection.FirstTick = tick;
        }

        if (connection.Queued >= Settings.QueueMessages)
        {
            // The client has not taken its last QueueMessages messages: drop it rather than buffer without bound.
            if (Remove(connection))
            {
                Interlocked.Increment(ref _droppedSlowClients);
            }

            return;
        }

        connection.Enqueue(tick - connection.FirstTick);
    }

    /// <summary>Takes a connection out of the table once; false if someone else already did.</summary>
    private bool Remove(StreamingServerConnection connection)
    {
        if (Interlocked.CompareExchange(ref _slots[connection.Slot], null, connection) != connection)
        {
            return false;
        }

        Interlocked.Decrement(ref _connectedClients);
        connection.Retire();
        return true;
    }
}

/// <summary>One client as the server sees it: its socket, its slot and how many of its messages are queued.</summary>
internal abstract class StreamingServerConnection(StreamingServer server, Socket socket, int slot)
{
    private long _queued;

    public int Slot { get; } = slot;

    /// <summary>The tick this client's message 0 belongs to; set by the ticking thread.</summary>
    public long FirstTick { get; set; } = -1;

    public long Queued => Interlocked.Read(ref _queued);

    protected StreamingServer Server { get; } = server;

    protected Socket Socket { get; } = socket;

    protected int FrameBytes => Server.Settings.FrameBytes;

    /// <summary>Queues message <paramref name="sequence"/> for sending; called by the ticking thread only.</summary>
    public void Enqueue(long sequence)
    {
        Interlocked.Increment(ref _queued);
        Send(sequence);
    }

    public void Dequeued() => Interlocked.Decrement(ref _queued);

    /// <summary>Closes the socket (failing whatever is in flight) and gives the slot back when nothing uses it.</summary>
    public virtual void Retire()
    {
        Socket.Dispose();
        Server.ReleaseSlot(Slot);
    }

    protected abstract void Send(long sequence);
}
