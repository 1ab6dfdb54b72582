using System.Net.Sockets;
using System.Text;
using Microsoft.AspNetCore.WebUtilities;

namespace ConcurrencySandbox.Api.Control;

/// <summary>
/// One HTTP/1.1 request read with blocking socket calls (no pool thread involved): the request line, the headers
/// and a Content-Length or chunked body of at most <see cref="ControlActions.MaxBodyBytes"/>; one request per connection.
/// </summary>
internal sealed record ControlHttpRequest(string Method, string Path, IQueryCollection Query, IReadOnlyDictionary<string, string> Headers, byte[] Body)
{
    private const int MaxHeaderBytes = 16 * 1024;

    /// <summary>Reads one request; a malformed one throws <see cref="BadControlRequestException"/> with the status to answer.</summary>
    public static ControlHttpRequest Read(Socket connection)
    {
        var buffer = new byte[MaxHeaderBytes];
        var filled = 0;
        int headerEnd;
        while ((headerEnd = buffer.AsSpan(0, filled).IndexOf("\r\n\r\n"u8)) < 0)
        {
            if (filled == buffer.Length)
            {
                throw new BadControlRequestException(StatusCodes.Status431RequestHeaderFieldsTooLarge, $"The request line and headers exceed {MaxHeaderBytes} bytes.");
            }

            var received = connection.Receive(buffer, filled, buffer.Length - filled, SocketFlags.None);
            if (received == 0)
            {
                throw new EndOfStreamException("The client closed the connection before sending a whole request.");
            }

            filled += received;
        }

        var lines = Encoding.ASCII.GetString(buffer, 0, headerEnd).Split("\r\n");
        var requestLine = lines[0].Split(' ');
        if (requestLine.Length != 3 || !requestLine[2].StartsWith("HTTP/1.", StringComparison.Ordinal))
        {
            throw new BadControlRequestException(StatusCodes.Status400BadRequest, $"Not an HTTP/1.x request line: '{lines[0]}'.");
        }

        var headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (var line in lines.Skip(1))
        {
            var colon = line.IndexOf(':', StringComparison.Ordinal);
            if (colon > 0)
            {
                headers[line[..colon].Trim()] = line[(colon + 1)..].Trim();
            }
        }

        var target = requestLine[1];
        var questionMark = target.IndexOf('?', StringComparison.Ordinal);
        var path = questionMark < 0 ? target : target[..questionMark];
        var query = new QueryCollection(QueryHelpers.ParseQuery(questionMark < 0 ? string.Empty : target[questionMark..]));
        return new ControlHttpRequest(requestLine[0], path, query, headers, ReadBody(connection, headers, buffer.AsSpan(headerEnd + 4, filled - headerEnd - 4)));
    }

    private static byte[] ReadBody(Socket connection, Dictionary<string, string> headers, ReadOnlySpan<byte> alreadyReceived)
    {
        var body = new BodyStream(connection, alreadyReceived.ToArray());
        if (headers.TryGetValue("Expect", out var expect) && expect.Equals("100-continue", StringComparison.OrdinalIgnoreCase))
        {
            connection.Send("HTTP/1.1 100 Continue\r\n\r\n"u8);
        }

        if (headers.TryGetValue("Transfer-Encoding", out var encoding))
        {
            return encoding.Equals("chunked", StringComparison.OrdinalIgnoreCase)
                ? body.ReadChunked()
                : throw new BadControlRequestException(StatusCodes.Status411LengthRequired, $"Transfer-Encoding '{encoding}' is not supported: send a Content-Length or chunked body.");
        }

        return headers.TryGetValue("Content-Length", out var lengthText) ? body.Read(CheckedLength(lengthText)) : [];
    }

    private static int CheckedLength(string text) =>
        int.TryParse(text, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var length) && length <= ControlActions.MaxBodyBytes
            ? length
            : throw new BadControlRequestException(StatusCodes.Status413PayloadTooLarge, $"The body must be from 0 to {ControlActions.MaxBodyBytes} bytes; its length is '{text}'.");

    /// <summary>The bytes after the headers: those already received, then blocking reads from the socket.</summary>
    private sealed class BodyStream(Socket connection, byte[] alreadyReceived)
    {
        private int _position;

        public byte[] Read(int length)
        {
            var bytes = new byte[length];
            for (var i = 0; i < length; i++)
            {
                bytes[i] = ReadByte();
            }

            return bytes;
        }

        /// <summary>Decodes chunks (hex size, CRLF, data, CRLF) until the zero-size chunk; trailers are skipped.</summary>
        public byte[] ReadChunked()
        {
            using var body = new MemoryStream();
            while (true)
            {
                var sizeLine = ReadLine().Split(';')[0].Trim();
                if (!int.TryParse(sizeLine, System.Globalization.NumberStyles.AllowHexSpecifier, System.Globalization.CultureInfo.InvariantCulture, out var size) || size < 0)
                {
                    throw new BadControlRequestException(StatusCodes.Status400BadRequest, $"Not a chunk size: '{sizeLine}'.");
                }

                if (size == 0)
                {
                    while (ReadLine().Length > 0)
                    {
                    }

                    return body.ToArray();
                }

                CheckedLength((body.Length + size).ToString(System.Globalization.CultureInfo.InvariantCulture));
                body.Write(Read(size));
                ReadLine();
            }
        }

        private string ReadLine()
        {
            var line = new StringBuilder();
            for (var b = ReadByte(); b != (byte)'\n'; b = ReadByte())
            {
                if (b != (byte)'\r')
                {
                    line.Append((char)b);
                }

                if (line.Length > 1024)
                {
                    throw new BadControlRequestException(StatusCodes.Status400BadRequest, "A chunk line is longer than 1024 bytes.");
                }
            }

            return line.ToString();
        }

        private byte ReadByte()
        {
            if (_position < alreadyReceived.Length)
            {
                return alreadyReceived[_position++];
            }

            Span<byte> one = stackalloc byte[1];
            return connection.Receive(one) == 1 ? one[0] : throw new EndOfStreamException("The client closed the connection in the middle of the body.");
        }
    }
}

/// <summary>A request the control listener cannot read; answered with its status and message.</summary>
internal sealed class BadControlRequestException(int statusCode, string message) : Exception(message)
{
    public int StatusCode { get; } = statusCode;
}
