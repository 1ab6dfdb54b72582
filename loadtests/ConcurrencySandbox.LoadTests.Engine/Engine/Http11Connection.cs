using System.Net;
using System.Net.Sockets;
using System.Threading.Tasks.Sources;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// One keep-alive HTTP/1.1 connection of <see cref="KeepAliveHttpClient"/>: writes a prepared GET and reads its answer
/// through an <see cref="Http11AnswerReader"/>. The
/// client's watchdog gives up on a request by disposing the socket (<see cref="AbandonIfOverdue"/>), so no request
/// needs a timer or a cancellation registration of its own. Its requests go out through a <see cref="SendBatch"/>; the
/// connection is the awaitable of its own write and of its answer, so neither allocates.
/// </summary>
internal sealed class Http11Connection : IDisposable, IValueTaskSource, IValueTaskSource<(int Status, bool KeepAlive)>
{
    private const int Idle = 0;
    private const int Busy = 1;
    private const int Abandoned = 2;
    private const int Unreceived = -1;

    private readonly Socket _socket = new(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
    private readonly Http11AnswerReader _reader = new();
    private int _state;
    private long _deadlineTimestamp;
    private CancellationToken _cancellation;
    private ManualResetValueTaskSourceCore<bool> _write;
    private ReadOnlyMemory<byte> _request;
    private ValueTask<int> _sending;

    // The answer being read: its waiter and the receive that brings its bytes.
    private readonly SocketAsyncEventArgs _receive = new(unsafeSuppressExecutionContextFlow: true);
    private ManualResetValueTaskSourceCore<(int Status, bool KeepAlive)> _answer;

    public Http11Connection() => _receive.Completed += OnReceiveCompleted;

    /// <summary>True when a byte of the current request's answer arrived: a kept-alive connection that fails before that was closed by the server while idle.</summary>
    public bool ReceivedAny => _reader.ReceivedAny;

    /// <summary>True when the watchdog gave up on the current request (its deadline passed or its run was cancelled) and closed the socket.</summary>
    public bool IsAbandoned => Volatile.Read(ref _state) == Abandoned;

    /// <summary>Marks the connection busy with a request due to end by <paramref name="deadlineTimestamp"/> (a <see cref="System.Diagnostics.Stopwatch"/> timestamp).</summary>
    public void Begin(long deadlineTimestamp, CancellationToken cancellationToken)
    {
        _deadlineTimestamp = deadlineTimestamp;
        _cancellation = cancellationToken;
        Volatile.Write(ref _state, Busy);
    }

    /// <summary>Marks the request ended; false when the watchdog had already given up on it.</summary>
    public bool End() => Interlocked.CompareExchange(ref _state, Idle, Busy) == Busy;

    /// <summary>The watchdog's check: closes the socket under a request whose deadline passed or whose run was cancelled.</summary>
    public void AbandonIfOverdue(long nowTimestamp)
    {
        if (Volatile.Read(ref _state) == Busy && (nowTimestamp > _deadlineTimestamp || _cancellation.IsCancellationRequested)
            && Interlocked.CompareExchange(ref _state, Abandoned, Busy) == Busy)
        {
            _socket.Dispose();
        }
    }

    public Task ConnectAsync(EndPoint endPoint) => _socket.ConnectAsync(endPoint);

    /// <summary>Queues <paramref name="request"/> on <paramref name="batch"/>; completes once its flush has sent it whole (or failed to).</summary>
    public ValueTask WriteAsync(ReadOnlyMemory<byte> request, SendBatch batch)
    {
        _request = request;
        _write.Reset();
        batch.Queue(this);
        return new ValueTask(this, _write.Version);
    }

    /// <summary>A flush's first pass: puts the queued request on the wire, without yet running what waits for it.</summary>
    public void SendQueued()
    {
        try
        {
            _sending = _socket.SendAsync(_request, SocketFlags.None);
        }
        catch (Exception e)
        {
            _sending = ValueTask.FromException<int>(e);
        }
    }

    /// <summary>A flush's second pass: runs what waited for the write, on this thread when the send finished at once.</summary>
    public void CompleteQueued()
    {
        if (!_sending.IsCompletedSuccessfully)
        {
            _ = FinishWriteAsync(_sending);
            return;
        }

        var sent = _sending.Result;
        if (sent == _request.Length)
        {
            _write.SetResult(true);
        }
        else
        {
            _ = FinishWriteAsync(ValueTask.FromResult(sent));
        }
    }

    /// <summary>Ends a queued write that will never be flushed.</summary>
    public void FailQueued(Exception error) => _write.SetException(error);

    void IValueTaskSource.GetResult(short token) => _write.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => _write.GetStatus(token);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _write.OnCompleted(continuation, state, token, flags);

    (int Status, bool KeepAlive) IValueTaskSource<(int Status, bool KeepAlive)>.GetResult(short token) => _answer.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource<(int Status, bool KeepAlive)>.GetStatus(short token) => _answer.GetStatus(token);

    void IValueTaskSource<(int Status, bool KeepAlive)>.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _answer.OnCompleted(continuation, state, token, flags);

    /// <summary>
    /// Reads one answer, copying its body into <paramref name="body"/> when given (else skipping it); returns its status
    /// and whether the connection may carry the next request. Interim 1xx answers are skipped. The answer is parsed as
    /// its bytes arrive, in the receive's own completion (on the thread that polled the socket, with inline socket
    /// completions), and its waiter is resumed from there: no await per line, per fill or per socket receive, which
    /// were five state machines suspended and resumed per request (docs/notebook/performance.md, "Where the
    /// runner's microseconds go").
    /// </summary>
    public ValueTask<(int Status, bool KeepAlive)> ReadResponseAsync(Stream? body)
    {
        _reader.Begin(body);
        _answer.Reset();
        Continue(Unreceived);
        return new ValueTask<(int Status, bool KeepAlive)>(this, _answer.Version);
    }

    public void Dispose()
    {
        _socket.Dispose();
        _receive.Dispose();
    }

    /// <summary>The rest of a write whose send did not finish at once (a full send buffer, or an error to hand on).</summary>
    private async Task FinishWriteAsync(ValueTask<int> sending)
    {
        try
        {
            var rest = _request[await sending..];
            while (!rest.IsEmpty)
            {
                rest = rest[await _socket.SendAsync(rest, SocketFlags.None)..];
            }

            _write.SetResult(true);
        }
        catch (Exception e)
        {
            _write.SetException(e);
        }
    }

    /// <summary>
    /// Parses what the buffer holds, then receives more until the answer is whole: completes the answer, or leaves a
    /// receive pending whose completion (<see cref="OnReceiveCompleted"/>) comes back here. <paramref name="received"/>
    /// is what the last receive got: 0 when the server closed the connection, <see cref="Unreceived"/> before any.
    /// </summary>
    private void Continue(int received)
    {
        try
        {
            while (true)
            {
                if (_reader.Parse(ended: received == 0) is { } answer)
                {
                    _answer.SetResult(answer);
                    return;
                }

                var room = _reader.Room();
                _receive.SetBuffer(room.Array, room.Offset, room.Count);
                if (_socket.ReceiveAsync(_receive))
                {
                    return;
                }

                received = TakeReceived(_receive);
            }
        }
        catch (Exception e)
        {
            _answer.SetException(e);
        }
    }

    private void OnReceiveCompleted(object? sender, SocketAsyncEventArgs receive)
    {
        int received;
        try
        {
            received = TakeReceived(receive);
        }
        catch (Exception e)
        {
            _answer.SetException(e);
            return;
        }

        Continue(received);
    }

    /// <summary>The bytes a finished receive added after the unread ones (0: the server closed the connection); throws its socket error.</summary>
    private int TakeReceived(SocketAsyncEventArgs receive)
    {
        if (receive.SocketError != SocketError.Success)
        {
            throw new SocketException((int)receive.SocketError);
        }

        var received = receive.BytesTransferred;
        _reader.Received(received);
        return received;
    }
}
