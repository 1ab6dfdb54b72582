using System.Globalization;
using System.Text;
using Microsoft.AspNetCore.WebUtilities;

namespace ConcurrencySandbox.Api.Control;

/// <summary>One HTTP/1.1 request to the control plane: one per connection, body already decoded.</summary>
internal sealed record ControlHttpRequest(string Method, string Path, IQueryCollection Query, IReadOnlyDictionary<string, string> Headers, byte[] Body)
{
    public string? Header(string name) => Headers.GetValueOrDefault(name);
}

/// <summary>
/// Reads one request from the bytes a connection has received so far, as they arrive: the caller receives into
/// <see cref="FreeSpace"/> in bulk, calls <see cref="Advance"/>, then <see cref="TryRead"/>, which answers null until
/// the whole request is there. The request line and headers may take <see cref="ControlListener.MaxHeaderBytes"/> and
/// <see cref="ControlListener.MaxHeaderCount"/> lines; a Content-Length or chunked body at most <see cref="ControlListener.MaxBodyBytes"/>.
/// Anything malformed or too large throws <see cref="BadControlRequestException"/> with the status to answer, as
/// soon as it can be told: a bad request line before the headers end, an over-size Content-Length before the body.
/// </summary>
internal sealed class ControlRequestReader
{
    private const int MaxHeaderBytes = ControlListener.MaxHeaderBytes;
    private const int MaxHeaderCount = ControlListener.MaxHeaderCount;
    private const int MaxBodyBytes = ControlListener.MaxBodyBytes;
    private const int MaxChunkLineBytes = 1024;

    // The largest body with its chunk framing (a size line and CRLF per chunk) still fits.
    private const int MaxRequestBytes = MaxHeaderBytes + MaxBodyBytes + (16 * 1024);

    private byte[] _buffer = new byte[4096];
    private int _filled;
    private int _searchedTo;
    private Head? _head;

    /// <summary>True once the headers asked for "Expect: 100-continue" and the body has not all arrived.</summary>
    public bool ExpectsContinue => _head is { ExpectsContinue: true };

    /// <summary>Where to receive the next bytes; grows as needed up to the request size limit.</summary>
    public Memory<byte> FreeSpace
    {
        get
        {
            if (_filled == _buffer.Length)
            {
                if (_buffer.Length >= MaxRequestBytes)
                {
                    throw _head is null
                        ? TooLargeHead()
                        : new BadControlRequestException(StatusCodes.Status413PayloadTooLarge, $"The body and its chunk framing exceed {MaxRequestBytes - MaxHeaderBytes} bytes.");
                }

                Array.Resize(ref _buffer, Math.Min(_buffer.Length * 4, MaxRequestBytes));
            }

            return _buffer.AsMemory(_filled);
        }
    }

    public void Advance(int received) => _filled += received;

    /// <summary>The whole request, or null while bytes are still missing.</summary>
    public ControlHttpRequest? TryRead()
    {
        if (_head is null)
        {
            var received = _buffer.AsSpan(0, _filled);
            CheckRequestLineSoFar(received);
            var end = received[_searchedTo..].IndexOf("\r\n\r\n"u8);
            if (end < 0)
            {
                _searchedTo = Math.Max(0, _filled - 3);
                return _filled > MaxHeaderBytes ? throw TooLargeHead() : null;
            }

            end += _searchedTo;
            if (end + 4 > MaxHeaderBytes)
            {
                throw TooLargeHead();
            }

            _head = Head.Parse(Encoding.ASCII.GetString(received[..end]), end + 4);
        }

        var body = _buffer.AsSpan(_head.Length, _filled - _head.Length);
        var decoded = _head.Chunked ? Chunks.TryDecode(body) : body.Length >= _head.ContentLength ? body[..(int)_head.ContentLength].ToArray() : null;
        return decoded is null ? null : _head.Request(decoded);
    }

    private static BadControlRequestException TooLargeHead() =>
        new(StatusCodes.Status431RequestHeaderFieldsTooLarge, $"The request line and headers exceed {MaxHeaderBytes} bytes.");

    // A client that sends no HTTP at all (a TLS hello, a port scanner's probe) is answered at once, not at the deadline.
    private static void CheckRequestLineSoFar(ReadOnlySpan<byte> received)
    {
        var space = received.IndexOf((byte)' ');
        var method = space < 0 ? received : received[..space];
        if (method.Length > 16 || method.ContainsAnyExceptInRange((byte)'A', (byte)'Z'))
        {
            throw new BadControlRequestException(StatusCodes.Status400BadRequest, "Not an HTTP/1.x request: the request must start with a method such as GET.");
        }

        var lineEnd = received.IndexOf("\r\n"u8);
        if (lineEnd >= 0)
        {
            RequestLine.Parse(Encoding.ASCII.GetString(received[..lineEnd]));
        }
    }

    private sealed record RequestLine(string Method, string Target)
    {
        public static RequestLine Parse(string line)
        {
            var parts = line.Split(' ');
            return parts.Length == 3 && parts[1].StartsWith('/') && parts[2] is "HTTP/1.1" or "HTTP/1.0"
                ? new RequestLine(parts[0], parts[1])
                : throw new BadControlRequestException(StatusCodes.Status400BadRequest, $"Not an HTTP/1.x request line (METHOD /path HTTP/1.1): '{Shorten(line)}'.");
        }
    }

    private sealed record Head(RequestLine Line, Dictionary<string, string> Headers, int Length, bool Chunked, long ContentLength, bool ExpectsContinue)
    {
        public static Head Parse(string text, int length)
        {
            var lines = text.Split("\r\n");
            if (lines.Length - 1 > MaxHeaderCount)
            {
                throw new BadControlRequestException(StatusCodes.Status431RequestHeaderFieldsTooLarge, $"The request has {lines.Length - 1} header lines; at most {MaxHeaderCount} are read.");
            }

            var headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
            foreach (var line in lines.Skip(1))
            {
                var colon = line.IndexOf(':', StringComparison.Ordinal);
                if (colon <= 0 || char.IsWhiteSpace(line[colon - 1]) || char.IsWhiteSpace(line[0]))
                {
                    throw new BadControlRequestException(StatusCodes.Status400BadRequest, $"Not a header line (Name: value): '{Shorten(line)}'.");
                }

                headers[line[..colon]] = line[(colon + 1)..].Trim();
            }

            var chunked = false;
            if (headers.TryGetValue("Transfer-Encoding", out var encoding))
            {
                if (!encoding.Equals("chunked", StringComparison.OrdinalIgnoreCase))
                {
                    throw new BadControlRequestException(StatusCodes.Status411LengthRequired, $"Transfer-Encoding '{Shorten(encoding)}' is not supported: send a Content-Length or chunked body.");
                }

                if (headers.ContainsKey("Content-Length"))
                {
                    throw new BadControlRequestException(StatusCodes.Status400BadRequest, "A request may carry Content-Length or Transfer-Encoding, not both.");
                }

                chunked = true;
            }

            var contentLength = headers.TryGetValue("Content-Length", out var lengthText) ? CheckedLength(lengthText) : 0;
            var expectsContinue = headers.TryGetValue("Expect", out var expect) && expect.Equals("100-continue", StringComparison.OrdinalIgnoreCase);
            return new Head(RequestLine.Parse(lines[0]), headers, length, chunked, contentLength, expectsContinue);
        }

        public ControlHttpRequest Request(byte[] body)
        {
            var target = Line.Target;
            var questionMark = target.IndexOf('?', StringComparison.Ordinal);
            var path = questionMark < 0 ? target : target[..questionMark];
            var query = new QueryCollection(QueryHelpers.ParseQuery(questionMark < 0 ? string.Empty : target[questionMark..]));
            return new ControlHttpRequest(Line.Method, path, query, Headers, body);
        }

        private static long CheckedLength(string text) =>
            long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var length) && length <= MaxBodyBytes
                ? length
                : throw new BadControlRequestException(StatusCodes.Status413PayloadTooLarge, $"The body must be from 0 to {MaxBodyBytes} bytes; its Content-Length is '{Shorten(text)}'.");
    }

    /// <summary>Chunked transfer coding: hex size (extensions after ';' ignored), CRLF, data, CRLF, until a zero size; trailers skipped.</summary>
    private static class Chunks
    {
        public static byte[]? TryDecode(ReadOnlySpan<byte> data)
        {
            using var body = new MemoryStream();
            var position = 0;
            while (true)
            {
                if (ReadLine(data, ref position) is not { } sizeLine)
                {
                    return null;
                }

                var sizeText = sizeLine.Split(';')[0].Trim();
                if (!int.TryParse(sizeText, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var size) || size < 0)
                {
                    throw new BadControlRequestException(StatusCodes.Status400BadRequest, $"Not a chunk size (hexadecimal): '{Shorten(sizeText)}'.");
                }

                if (size == 0)
                {
                    return SkipTrailers(data, position) ? body.ToArray() : null;
                }

                if (body.Length + size > MaxBodyBytes)
                {
                    throw new BadControlRequestException(StatusCodes.Status413PayloadTooLarge, $"The chunked body exceeds {MaxBodyBytes} bytes.");
                }

                if (data.Length - position < size + 2)
                {
                    return null;
                }

                if (!data.Slice(position + size, 2).SequenceEqual("\r\n"u8))
                {
                    throw new BadControlRequestException(StatusCodes.Status400BadRequest, $"A chunk of {size} bytes is not followed by CRLF.");
                }

                body.Write(data.Slice(position, size));
                position += size + 2;
            }
        }

        private static bool SkipTrailers(ReadOnlySpan<byte> data, int position)
        {
            while (ReadLine(data, ref position) is { } trailer)
            {
                if (trailer.Length == 0)
                {
                    return true;
                }
            }

            return false;
        }

        /// <summary>The next CRLF-terminated line, or null when it has not all arrived.</summary>
        private static string? ReadLine(ReadOnlySpan<byte> data, ref int position)
        {
            var rest = data[position..];
            var end = rest.IndexOf("\r\n"u8);
            if (end > MaxChunkLineBytes || (end < 0 && rest.Length > MaxChunkLineBytes))
            {
                throw new BadControlRequestException(StatusCodes.Status400BadRequest, $"A chunk size or trailer line is longer than {MaxChunkLineBytes} bytes.");
            }

            if (end < 0)
            {
                return null;
            }

            position += end + 2;
            return Encoding.ASCII.GetString(rest[..end]);
        }
    }

    private static string Shorten(string text) => text.Length > 80 ? text[..80] + "..." : text;
}

/// <summary>A request the control listener cannot read; answered with its status and message.</summary>
internal sealed class BadControlRequestException(int statusCode, string message) : Exception(message)
{
    public int StatusCode { get; } = statusCode;
}
