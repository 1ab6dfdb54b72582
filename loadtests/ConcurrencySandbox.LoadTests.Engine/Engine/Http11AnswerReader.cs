using System.Buffers.Text;
using System.Text;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// Reads HTTP/1.1 answers from one connection's receives, whatever socket code brings them (<see cref="Http11Connection"/>
/// over the runtime's sockets, <see cref="EpollConnection"/> over the runner's own loop): one reused 16 KiB buffer, the
/// status line, headers, then a Content-Length, chunked or read-until-close body, parsed as the bytes arrive so an
/// answer split across any number of receives is taken up where each one ended. Interim 1xx answers are skipped. Bytes
/// after a whole answer stay in the buffer for the next one.
/// </summary>
internal sealed class Http11AnswerReader
{
    private const int BufferBytes = 16 * 1024;

    private readonly byte[] _buffer = new byte[BufferBytes];
    private int _start;
    private int _end;

    // The answer being read: where its body goes and how far it is parsed.
    private Stream? _body;
    private Stage _stage;
    private ResponseHead _head;
    private long _remaining;

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

    /// <summary>True when a byte of the current answer arrived: a kept-alive connection that fails before that was closed by the server while idle.</summary>
    public bool ReceivedAny { get; private set; }

    /// <summary>Starts reading the next answer, copying its body into <paramref name="body"/> when given (else skipping it).</summary>
    public void Begin(Stream? body)
    {
        _body = body;
        _stage = Stage.StatusLine;
        ReceivedAny = false;
    }

    /// <summary>Where the next receive goes: the free space after the unread bytes (made by moving them to the front when needed).</summary>
    public ArraySegment<byte> Room()
    {
        MakeRoom();
        return new ArraySegment<byte>(_buffer, _end, _buffer.Length - _end);
    }

    /// <summary>Takes in what a receive into <see cref="Room"/> brought (0: the server closed the connection).</summary>
    public void Received(int count)
    {
        _end += count;
        ReceivedAny |= count > 0;
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
    public (int Status, bool KeepAlive)? Parse(bool ended)
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
