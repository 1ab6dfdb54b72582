using System.Buffers.Text;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading.Tasks.Sources;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// One keep-alive HTTP/1.1 connection of <see cref="KeepAliveHttpClient"/>: writes a prepared GET and reads its answer
/// (status line, headers, then a Content-Length, chunked or read-until-close body) through one reused buffer. The
/// client's watchdog gives up on a request by disposing the socket (<see cref="AbandonIfOverdue"/>), so no request
/// needs a timer or a cancellation registration of its own. Its requests go out through a <see cref="SendBatch"/>; the
/// connection is the awaitable of its own write and of its answer, so neither allocates.
/// </summary>
internal sealed class Http11Connection : IDisposable, IValueTaskSource, IValueTaskSource<(int Status, bool KeepAlive)>
{
    private const int BufferBytes = 16 * 1024;
    private const int Idle = 0;
    private const int Busy = 1;
    private const int Abandoned = 2;
    private const int Unreceived = -1;

    private readonly Socket _socket = new(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
    private readonly byte[] _buffer = new byte[BufferBytes];
    private int _start;
    private int _end;
    private int _state;
    private long _deadlineTimestamp;
    private CancellationToken _cancellation;
    private ManualResetValueTaskSourceCore<bool> _write;
    private ReadOnlyMemory<byte> _request;
    private ValueTask<int> _sending;

    // The answer being read: its waiter, where its body goes, how far it is parsed, and the receive that brings its bytes.
    private readonly SocketAsyncEventArgs _receive = new(unsafeSuppressExecutionContextFlow: true);
    private ManualResetValueTaskSourceCore<(int Status, bool KeepAlive)> _answer;
    private Stream? _body;
    private Stage _stage;
    private ResponseHead _head;
    private long _remaining;

    public Http11Connection() => _receive.Completed += OnReceiveCompleted;

    private enum Stage
    {
        StatusLine,
        Headers,
        Body,
        UntilClose,
        ChunkSize,
        ChunkData,
        ChunkEnd,
        Trailers,
    }

    /// <summary>True when a byte of the current request's answer arrived: a kept-alive connection that fails before that was closed by the server while idle.</summary>
    public bool ReceivedAny { get; private set; }

    /// <summary>True when the watchdog gave up on the current request (its deadline passed or its run was cancelled) and closed the socket.</summary>
    public bool IsAbandoned => Volatile.Read(ref _state) == Abandoned;

    /// <summary>Marks the connection busy with a request due to end by <paramref name="deadlineTimestamp"/> (a <see cref="System.Diagnostics.Stopwatch"/> timestamp).</summary>
    public void Begin(long deadlineTimestamp, CancellationToken cancellationToken)
    {
        _deadlineTimestamp = deadlineTimestamp;
        _cancellation = cancellationToken;
        ReceivedAny = false;
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
        _body = body;
        _stage = Stage.StatusLine;
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
                if (Parse(ended: received == 0) is { } answer)
                {
                    _answer.SetResult(answer);
                    return;
                }

                MakeRoom();
                _receive.SetBuffer(_buffer, _end, _buffer.Length - _end);
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
        _end += received;
        ReceivedAny |= received > 0;
        return received;
    }

    /// <summary>Makes room after the unread bytes for the next receive.</summary>
    private void MakeRoom()
    {
        if (_start == _end)
        {
            _start = _end = 0;
        }
        else if (_end == _buffer.Length)
        {
            if (_start == 0)
            {
                throw Invalid($"a status, header or chunk-size line is longer than {BufferBytes} bytes");
            }

            Buffer.BlockCopy(_buffer, _start, _buffer, 0, _end - _start);
            _end -= _start;
            _start = 0;
        }
    }

    /// <summary>
    /// Takes from the buffer as much of the answer as it holds: the answer's status and whether the connection stays
    /// open once it is whole, else null (more bytes needed). <paramref name="ended"/>: no more bytes will come, so an
    /// answer that is not whole is cut short (an error), except a body that runs until the server closes.
    /// </summary>
    private (int Status, bool KeepAlive)? Parse(bool ended)
    {
        while (true)
        {
            switch (_stage)
            {
                case Stage.StatusLine:
                    if (!TryTakeLine(out var statusLine))
                    {
                        return More(ended, "before the status line ended");
                    }

                    _head = new ResponseHead();
                    _head.ReadStatusLine(statusLine);
                    _stage = Stage.Headers;
                    break;
                case Stage.Headers:
                    if (!TryTakeLine(out var header))
                    {
                        return More(ended, "before the headers ended");
                    }

                    if (header.Length > 0)
                    {
                        _head.ReadHeader(header);
                    }
                    else if (_head.Status is >= 100 and < 200)
                    {
                        _stage = Stage.StatusLine;
                    }
                    else if (_head.Status is 204 or 304)
                    {
                        return (_head.Status, _head.KeepAlive);
                    }
                    else
                    {
                        // Neither length nor chunks: the body runs until the server closes the connection.
                        (_stage, _remaining) = _head.Chunked ? (Stage.ChunkSize, 0) : _head.ContentLength >= 0 ? (Stage.Body, _head.ContentLength) : (Stage.UntilClose, 0);
                    }

                    break;
                case Stage.Body:
                    TakeBody();
                    return _remaining > 0 ? More(ended, "before the body ended") : (_head.Status, _head.KeepAlive);
                case Stage.UntilClose:
                    Consume(_end - _start);
                    return ended ? (_head.Status, false) : null;
                case Stage.ChunkSize:
                    if (!TryTakeLine(out var chunkSize))
                    {
                        return More(ended, "inside a chunked body");
                    }

                    _remaining = ChunkSize(chunkSize);
                    _stage = _remaining == 0 ? Stage.Trailers : Stage.ChunkData;
                    break;
                case Stage.ChunkData:
                    TakeBody();
                    if (_remaining > 0)
                    {
                        return More(ended, "inside a chunked body");
                    }

                    _stage = Stage.ChunkEnd;
                    break;
                case Stage.ChunkEnd:
                    if (!TryTakeLine(out var chunkEnd))
                    {
                        return More(ended, "inside a chunked body");
                    }

                    _stage = chunkEnd.Length == 0 ? Stage.ChunkSize : throw Invalid("a chunk is not followed by CRLF");
                    break;
                default:
                    // Trailers, if any, up to the empty line that ends the message.
                    if (!TryTakeLine(out var trailer))
                    {
                        return More(ended, "inside the chunked body's trailers");
                    }

                    if (trailer.Length == 0)
                    {
                        return (_head.Status, _head.KeepAlive);
                    }

                    break;
            }
        }
    }

    /// <summary>More bytes are needed: null, or the connection's end error when none will come.</summary>
    private static (int Status, bool KeepAlive)? More(bool ended, string where) => ended ? throw Ended(where) : null;

    /// <summary>Takes the next whole line (without its CRLF) from the buffer; false when its end has not arrived yet.</summary>
    private bool TryTakeLine(out ReadOnlySpan<byte> line)
    {
        var unread = _buffer.AsSpan(_start, _end - _start);
        var length = unread.IndexOf("\r\n"u8);
        if (length < 0)
        {
            line = default;
            return false;
        }

        line = unread[..length];
        _start += length + 2;
        return true;
    }

    /// <summary>Takes as much of the body (or chunk) still to come as the buffer holds.</summary>
    private void TakeBody()
    {
        var take = (int)Math.Min(_remaining, _end - _start);
        Consume(take);
        _remaining -= take;
    }

    private void Consume(int count)
    {
        _body?.Write(_buffer, _start, count);
        _start += count;
    }

    private static long ChunkSize(ReadOnlySpan<byte> line)
    {
        var extension = line.IndexOf((byte)';');
        var digits = (extension >= 0 ? line[..extension] : line).Trim(" \t"u8);
        return digits.Length > 0 && Utf8Parser.TryParse(digits, out ulong size, out var used, 'x') && used == digits.Length && size <= long.MaxValue
            ? (long)size
            : throw Invalid($"bad chunk size '{Encoding.ASCII.GetString(line)}'");
    }

    private static HttpIOException Ended(string where) =>
        new(HttpRequestError.ResponseEnded, $"The server closed the connection {where}.");

    private static HttpIOException Invalid(string what) =>
        new(HttpRequestError.InvalidResponse, $"The server's answer is not valid HTTP/1.1: {what}.");

    /// <summary>What the status line and headers say about the body and the connection.</summary>
    private struct ResponseHead()
    {
        public int Status { get; private set; }

        /// <summary>The Content-Length header's value, or -1 without one.</summary>
        public long ContentLength { get; private set; } = -1;

        public bool Chunked { get; private set; }

        public bool KeepAlive { get; private set; }

        /// <summary>"HTTP/1.1 200 OK": HTTP/1.1 keeps the connection unless told to close; HTTP/1.0 closes it unless told to keep it.</summary>
        public void ReadStatusLine(ReadOnlySpan<byte> line)
        {
            if (line.Length < 12 || !line.StartsWith("HTTP/1."u8) || line[8] != (byte)' '
                || !Utf8Parser.TryParse(line.Slice(9, 3), out int status, out var used) || used != 3 || status < 100)
            {
                throw Invalid($"bad status line '{Encoding.ASCII.GetString(line)}'");
            }

            Status = status;
            KeepAlive = line[7] == (byte)'1';
        }

        public void ReadHeader(ReadOnlySpan<byte> line)
        {
            var colon = line.IndexOf((byte)':');
            if (colon <= 0)
            {
                throw Invalid($"bad header line '{Encoding.ASCII.GetString(line)}'");
            }

            var name = line[..colon];
            var value = line[(colon + 1)..].Trim(" \t"u8);
            if (Ascii.EqualsIgnoreCase(name, "Content-Length"u8))
            {
                ContentLength = Utf8Parser.TryParse(value, out long length, out var used) && used == value.Length && length >= 0
                    ? length
                    : throw Invalid($"bad Content-Length '{Encoding.ASCII.GetString(value)}'");
            }
            else if (Ascii.EqualsIgnoreCase(name, "Transfer-Encoding"u8))
            {
                Chunked = HasToken(value, "chunked"u8);
            }
            else if (Ascii.EqualsIgnoreCase(name, "Connection"u8))
            {
                KeepAlive = HasToken(value, "keep-alive"u8) || (KeepAlive && !HasToken(value, "close"u8));
            }
        }

        /// <summary>True when the comma-separated header value lists <paramref name="token"/> (any case).</summary>
        private static bool HasToken(ReadOnlySpan<byte> value, ReadOnlySpan<byte> token)
        {
            foreach (var range in value.Split((byte)','))
            {
                if (Ascii.EqualsIgnoreCase(value[range].Trim(" \t"u8), token))
                {
                    return true;
                }
            }

            return false;
        }
    }
}
