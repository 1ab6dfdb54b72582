using System.Diagnostics;
using System.Runtime.InteropServices;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// One thread driving many connections of an <see cref="EpollHttpClient"/> over one epoll set, as each of wrk's threads
/// does: it waits for its sockets, reads each answer the moment its socket is readable (never before: no receive is
/// tried that could only say "nothing yet"), completes the request on this thread, so what waited for it (the user's
/// loop: record the latency, send the next request) runs here too, with no pool thread woken and no Task per request,
/// and sends the requests made meanwhile in one burst after each poll. The edge-triggered registration is made once
/// per connection, so a request costs one send and one recv, plus its share of an epoll_wait. Requests sent from other
/// threads (the first of each user, an open model's schedule) come through a list and an eventfd. Every period it
/// gives up the requests past their deadline or whose run was cancelled by closing their connection (timeouts as lower
/// bounds, as <see cref="KeepAliveHttpClient"/>'s watchdog does).
/// </summary>
internal sealed unsafe class EpollLoop
{
    private const ulong WakeToken = ulong.MaxValue;
    private const int MaxEvents = 256;

    [ThreadStatic]
    private static EpollLoop? _current;

    private readonly EpollHttpClient _client;
    private readonly int _epoll;
    private readonly int _wake;
    private readonly long _sweepTicks;
    private readonly Thread _thread;

    // Requests handed over by other threads; _woken is 1 from the eventfd's write until the loop has read it.
    private readonly Lock _submitLock = new();
    private List<LoopExchange> _submitted = [];
    private List<LoopExchange> _taking = [];
    private int _woken;
    private bool _stopped;
    private volatile bool _stopping;

    // The loop thread's own: connections by slot, idle ones, those with a request to send after this poll, and the
    // requests whose connection could not even be opened (ended after the poll, never inside the send that made them).
    private readonly List<EpollConnection?> _slots = [];
    private readonly Stack<int> _freeSlots = new();
    private readonly Stack<EpollConnection> _idle = new();
    private readonly List<EpollConnection> _toSend = [];
    private List<(LoopExchange Exchange, RequestOutcome Outcome)> _unopened = [];
    private List<(LoopExchange Exchange, RequestOutcome Outcome)> _ending = [];
    private uint _opened;
    private int _open;
    private int _idleCount;
    private long _wouldBlockReceives;

    public EpollLoop(EpollHttpClient client, int index, TimeSpan sweepPeriod)
    {
        _client = client;
        _sweepTicks = (long)(sweepPeriod.TotalSeconds * Stopwatch.Frequency);
        _epoll = Check(Libc.EpollCreate1(Libc.CloseOnExec), "epoll_create1");
        _wake = Check(Libc.EventFd(0, Libc.NonBlocking | Libc.CloseOnExec), "eventfd");
        var watched = new Libc.EpollEvent { Events = Libc.EpollIn, Data = WakeToken };
        Check(Libc.EpollCtl(_epoll, Libc.EpollCtlAdd, _wake, &watched), "epoll_ctl");
        _thread = new Thread(Run) { IsBackground = true, Name = $"load loop {index}" };
        _thread.Start();
    }

    /// <summary>The loop whose thread this is, if any.</summary>
    public static EpollLoop? Current => _current;

    public EpollHttpClient Client => _client;

    /// <summary>Idle kept-alive connections now (read by other threads to pick a loop for a request they make).</summary>
    public int IdleConnections => Volatile.Read(ref _idleCount);

    /// <summary>Connections open now.</summary>
    public int OpenConnections => Volatile.Read(ref _open);

    /// <summary>Receives that found nothing to read: none is tried before the socket says it is readable, so this stays near 0.</summary>
    public long WouldBlockReceives => Volatile.Read(ref _wouldBlockReceives);

    /// <summary>Starts a request: at once on the loop's own thread, else handed over through the submission list and the eventfd.</summary>
    public void Start(LoopExchange exchange)
    {
        if (_current == this)
        {
            Assign(exchange, reuse: true);
            return;
        }

        lock (_submitLock)
        {
            if (!_stopped)
            {
                _submitted.Add(exchange);
                if (Interlocked.Exchange(ref _woken, 1) == 0)
                {
                    Wake();
                }

                return;
            }
        }

        exchange.CompleteUnlessCancelled(_client.Disposed());
    }

    /// <summary>Stops the loop: it closes its connections and ends their requests. Waits for it unless called on a loop's thread.</summary>
    public void Stop()
    {
        lock (_submitLock)
        {
            if (!_stopped && !_stopping)
            {
                _stopping = true;
                Wake();
            }
        }

        if (_current is null)
        {
            _thread.Join();
        }
    }

    private void Wake()
    {
        ulong one = 1;
        Libc.Write(_wake, &one, sizeof(ulong));
    }

    private void Run()
    {
        _current = this;
        var events = GC.AllocateArray<Libc.EpollEvent>(MaxEvents, pinned: true);
        var nextSweep = Stopwatch.GetTimestamp() + _sweepTicks;
        fixed (Libc.EpollEvent* polled = events)
        {
            while (!_stopping)
            {
                var timeoutMs = _unopened.Count > 0 ? 0 : (int)Math.Max(0, (nextSweep - Stopwatch.GetTimestamp()) * 1000 / Stopwatch.Frequency + 1);
                var count = Libc.EpollWait(_epoll, polled, MaxEvents, timeoutMs);
                if (count < 0 && Marshal.GetLastPInvokeError() is var errno && errno != Libc.EIntr)
                {
                    throw new InvalidOperationException($"epoll_wait failed: {Libc.Message(errno)}");
                }

                for (var i = 0; i < count; i++)
                {
                    Handle(polled[i].Data, polled[i].Events);
                }

                Flush();
                if (Stopwatch.GetTimestamp() >= nextSweep)
                {
                    Sweep();
                    nextSweep = Stopwatch.GetTimestamp() + _sweepTicks;
                }
            }
        }

        Shutdown();
    }

    private void Handle(ulong token, uint events)
    {
        if (token == WakeToken)
        {
            TakeSubmitted();
            return;
        }

        if (_slots[(int)(uint)token] is not { } connection || connection.Token != token)
        {
            return; // an event of a connection closed earlier in this batch
        }

        try
        {
            OnEvents(connection, events);
        }
        catch (Exception e)
        {
            Fail(connection, LoadClientErrors.Describe(e, _client.BaseAddress));
        }
    }

    private void OnEvents(EpollConnection connection, uint events)
    {
        const uint readable = Libc.EpollIn | Libc.EpollRdHup | Libc.EpollHup | Libc.EpollErr;
        if (connection.Exchange is null)
        {
            if ((events & readable) != 0)
            {
                ReadWhileIdle(connection);
            }

            return;
        }

        if (connection.Connecting)
        {
            if ((events & (Libc.EpollOut | Libc.EpollErr | Libc.EpollHup)) != 0)
            {
                connection.Connecting = false;
                if (connection.ConnectError() is var error and not 0)
                {
                    Fail(connection, error);
                    return;
                }

                _toSend.Add(connection);
            }

            return;
        }

        if ((events & Libc.EpollOut) != 0 && connection.Unsent && !SendRest(connection))
        {
            return;
        }

        if ((events & readable) != 0)
        {
            Receive(connection, hungUp: (events & (Libc.EpollRdHup | Libc.EpollHup | Libc.EpollErr)) != 0);
        }
    }

    /// <summary>
    /// Reads until the answer is whole or the socket has no more now (a short read: the next bytes bring another edge),
    /// or, once the server has hung up (<paramref name="hungUp"/>: no edge will follow), until the end of its bytes.
    /// </summary>
    private void Receive(EpollConnection connection, bool hungUp)
    {
        while (true)
        {
            var received = connection.Receive(out var roomBytes);
            if (received < 0)
            {
                if (-received == Libc.EAgain)
                {
                    _wouldBlockReceives++;
                    return;
                }

                Fail(connection, -received);
                return;
            }

            if (connection.Reader.Parse(ended: received == 0) is { } answer)
            {
                connection.Reused = true;
                var exchange = connection.Release()!;
                if (answer.KeepAlive)
                {
                    _idle.Push(connection);
                    Volatile.Write(ref _idleCount, _idle.Count);
                }
                else
                {
                    Close(connection);
                }

                exchange.Complete(RequestOutcome.Answered(answer.Status));
                return;
            }

            if (received < roomBytes && !hungUp)
            {
                return;
            }
        }
    }

    /// <summary>An idle kept-alive connection became readable: the server closed it (it is closed here too), or sent bytes ahead, kept for the next answer.</summary>
    private void ReadWhileIdle(EpollConnection connection)
    {
        var received = connection.Receive(out _);
        if (received == 0 || (received < 0 && -received != Libc.EAgain))
        {
            Close(connection);
        }
    }

    private bool SendRest(EpollConnection connection)
    {
        if (connection.SendRest() is var error and not 0)
        {
            Fail(connection, error);
            return false;
        }

        return true;
    }

    /// <summary>Gives <paramref name="exchange"/> a connection: an idle one (when <paramref name="reuse"/>) or a new one, sent after this poll or once connected.</summary>
    private void Assign(LoopExchange exchange, bool reuse)
    {
        EpollConnection? connection = null;
        while (reuse && connection is null && _idle.TryPop(out var idle))
        {
            connection = idle.Closed ? null : idle;
        }

        Volatile.Write(ref _idleCount, _idle.Count);

        string? error = null;
        connection ??= Open(out error);
        if (connection is null)
        {
            _unopened.Add((exchange, RequestOutcome.Failed(error!)));
            return;
        }

        connection.Carry(exchange);
        if (!connection.Connecting)
        {
            _toSend.Add(connection);
        }
    }

    private EpollConnection? Open(out string? error)
    {
        var address = _client.SocketAddress;
        var fd = Libc.Socket(_client.AddressFamily, Libc.SockStream | Libc.NonBlocking | Libc.CloseOnExec, 0);
        if (fd < 0)
        {
            error = ErrorOf(Marshal.GetLastPInvokeError());
            return null;
        }

        var noDelay = 1;
        Libc.SetSockOpt(fd, Libc.IpProtoTcp, Libc.TcpNoDelay, &noDelay, sizeof(int));
        int connected;
        fixed (byte* to = address)
        {
            connected = Libc.Connect(fd, to, address.Length);
        }

        var errno = connected < 0 ? Marshal.GetLastPInvokeError() : 0;
        if (errno is not 0 and not Libc.EInProgress)
        {
            Libc.Close(fd);
            error = ErrorOf(errno);
            return null;
        }

        var slot = _freeSlots.Count > 0 ? _freeSlots.Pop() : _slots.Count;
        var connection = new EpollConnection(fd, (ulong)++_opened << 32 | (uint)slot, connecting: errno != 0);
        var watched = new Libc.EpollEvent { Events = Libc.EpollIn | Libc.EpollOut | Libc.EpollRdHup | Libc.EpollEdgeTriggered, Data = connection.Token };
        if (Libc.EpollCtl(_epoll, Libc.EpollCtlAdd, fd, &watched) < 0)
        {
            error = ErrorOf(Marshal.GetLastPInvokeError());
            Libc.Close(fd);
            _freeSlots.Push(slot);
            return null;
        }

        if (slot == _slots.Count)
        {
            _slots.Add(connection);
        }
        else
        {
            _slots[slot] = connection;
        }

        Volatile.Write(ref _open, _open + 1);
        error = null;
        return connection;
    }

    private void Close(EpollConnection connection)
    {
        if (connection.Closed)
        {
            return;
        }

        connection.Close();
        _slots[connection.Slot] = null;
        _freeSlots.Push(connection.Slot);
        Volatile.Write(ref _open, _open - 1);
    }

    private void Fail(EpollConnection connection, int errno) => Fail(connection, ErrorOf(errno));

    /// <summary>
    /// Closes a connection that failed and ends its request: once more on a new connection when a kept-alive one failed
    /// before the answer's first byte (the server closed it while idle, as HttpClient retries), else as a connection error.
    /// </summary>
    private void Fail(EpollConnection connection, string error)
    {
        var retry = connection.Reused && !connection.Reader.ReceivedAny;
        var exchange = connection.Release();
        Close(connection);
        if (exchange is null)
        {
            return;
        }

        if (retry && !exchange.Cancellation.IsCancellationRequested)
        {
            Assign(exchange, reuse: false);
            return;
        }

        exchange.CompleteUnlessCancelled(RequestOutcome.Failed(error));
    }

    private string ErrorOf(int errno) => LoadClientErrors.ConnectionError(Libc.Message(errno), _client.BaseAddress);

    /// <summary>After each poll: ends the requests that found no connection, then sends every request made meanwhile, in one burst.</summary>
    private void Flush()
    {
        if (_unopened.Count > 0)
        {
            (_unopened, _ending) = (_ending, _unopened);
            foreach (var (exchange, outcome) in _ending)
            {
                exchange.CompleteUnlessCancelled(outcome);
            }

            _ending.Clear();
        }

        // By index: a send that fails ends its request, and what waited for it may make the next one, sent in this burst.
        for (var i = 0; i < _toSend.Count; i++)
        {
            if (_toSend[i] is { Closed: false, Unsent: true } connection)
            {
                SendRest(connection);
            }
        }

        _toSend.Clear();
    }

    private void TakeSubmitted()
    {
        ulong count;
        Libc.Read(_wake, &count, sizeof(ulong));
        Volatile.Write(ref _woken, 0);
        lock (_submitLock)
        {
            (_submitted, _taking) = (_taking, _submitted);
        }

        foreach (var exchange in _taking)
        {
            Assign(exchange, reuse: true);
        }

        _taking.Clear();
    }

    /// <summary>Gives up each request past its deadline (a timeout) or whose run was cancelled, by closing its connection.</summary>
    private void Sweep()
    {
        var now = Stopwatch.GetTimestamp();
        for (var slot = 0; slot < _slots.Count; slot++)
        {
            if (_slots[slot] is { Exchange: { } exchange } connection
                && (now > exchange.DeadlineTimestamp || exchange.Cancellation.IsCancellationRequested))
            {
                connection.Release();
                Close(connection);
                exchange.CompleteUnlessCancelled(RequestOutcome.TimedOut);
            }
        }
    }

    /// <summary>Closes every connection and ends every request still waiting; later sends end at once (the client is disposed).</summary>
    private void Shutdown()
    {
        _current = null;
        List<LoopExchange> waiting;
        lock (_submitLock)
        {
            _stopped = true;
            waiting = _submitted;
            _submitted = [];
        }

        var disposed = _client.Disposed();
        foreach (var connection in _slots.ToArray())
        {
            if (connection is not null)
            {
                if (connection.Release() is { } exchange)
                {
                    waiting.Add(exchange);
                }

                Close(connection);
            }
        }

        waiting.AddRange(_unopened.Select(u => u.Exchange));
        foreach (var exchange in waiting)
        {
            exchange.CompleteUnlessCancelled(disposed);
        }

        Libc.Close(_wake);
        Libc.Close(_epoll);
    }

    private static int Check(int result, string call) =>
        result >= 0 ? result : throw new InvalidOperationException($"{call} failed: {Libc.Message(Marshal.GetLastPInvokeError())}");
}
