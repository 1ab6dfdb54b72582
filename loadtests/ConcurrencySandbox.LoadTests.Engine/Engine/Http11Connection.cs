using System.Buffers.Text;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading.Tasks.Sources;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// One keep-alive HTTP/1.1 connection of <see cref="KeepAliveHttpClient"/>: writes a prepared GET and reads its answer
/// (status line, headers, then a Content-Length, chunked or read-until-close body) through one reused buffer. The
/// client's watchdog gives up on a request by disposing the socket (<see cref="AbandonIfOverdue"/>), so no request
/// needs a timer or a cancellation registration of its own. Its requests go out through a <see cref="SendBatch"/>; the
/// connection is the awaitable of its own write, so queueing one allocates nothing.
/// </summary>
internal sealed class Http11Connection : IDisposable, IValueTaskSource
{
    private const int BufferBytes = 16 * 1024;
    private const int Idle = 0;
    private const int Busy = 1;
    private const int Abandoned = 2;

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

    /// <summary>
    /// Reads one answer, copying its body into <paramref name="body"/> when given (else skipping it); returns its status
    /// and whether the connection may carry the next request. Interim 1xx answers are skipped.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<(int Status, bool KeepAlive)> ReadResponseAsync(Stream? body)
    {
        while (true)
        {
            var head = new ResponseHead();
            var (start, length) = await ReadLineAsync("before the status line ended");
            head.ReadStatusLine(_buffer.AsSpan(start, length));
            while (await ReadLineAsync("before the headers ended") is (var headerStart, > 0 and var headerLength))
            {
                head.ReadHeader(_buffer.AsSpan(headerStart, headerLength));
            }

            if (head.Status is >= 100 and < 200)
            {
                continue;
            }

            if (head.Status is 204 or 304)
            {
                return (head.Status, head.KeepAlive);
            }

            if (head.Chunked)
            {
                await ReadChunkedAsync(body);
            }
            else if (head.ContentLength >= 0)
            {
                await SkipAsync(head.ContentLength, body);
            }
            else
            {
                // Neither length nor chunks: the body runs until the server closes the connection.
                do
                {
                    Consume(_end - _start, body);
                }
                while (await FillAsync());

                return (head.Status, false);
            }

            return (head.Status, head.KeepAlive);
        }
    }

    public void Dispose() => _socket.Dispose();

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

    private async ValueTask ReadChunkedAsync(Stream? body)
    {
        while (true)
        {
            var (start, length) = await ReadLineAsync("inside a chunked body");
            var size = ChunkSize(_buffer.AsSpan(start, length));
            if (size == 0)
            {
                break;
            }

            await SkipAsync(size, body);
            if ((await ReadLineAsync("inside a chunked body")).Length != 0)
            {
                throw Invalid("a chunk is not followed by CRLF");
            }
        }

        // Trailers, if any, up to the empty line that ends the message.
        while ((await ReadLineAsync("inside the chunked body's trailers")).Length > 0)
        {
        }
    }

    private async ValueTask SkipAsync(long count, Stream? body)
    {
        while (true)
        {
            var take = (int)Math.Min(count, _end - _start);
            Consume(take, body);
            count -= take;
            if (count == 0)
            {
                return;
            }

            if (!await FillAsync())
            {
                throw Ended("before the body ended");
            }
        }
    }

    private void Consume(int count, Stream? body)
    {
        body?.Write(_buffer, _start, count);
        _start += count;
    }

    /// <summary>The next line (without its CRLF) as a range of the buffer, valid until the next read.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<(int Start, int Length)> ReadLineAsync(string where)
    {
        var searched = 0;
        while (true)
        {
            var found = _buffer.AsSpan(_start + searched, _end - _start - searched).IndexOf("\r\n"u8);
            if (found >= 0)
            {
                var start = _start;
                var length = searched + found;
                _start += length + 2;
                return (start, length);
            }

            searched = Math.Max(0, _end - _start - 1);
            if (!await FillAsync())
            {
                throw Ended(where);
            }
        }
    }

    /// <summary>Receives more bytes after the unread ones; false when the server closed the connection.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<bool> FillAsync()
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

        var received = await _socket.ReceiveAsync(_buffer.AsMemory(_end), SocketFlags.None);
        _end += received;
        ReceivedAny |= received > 0;
        return received > 0;
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
