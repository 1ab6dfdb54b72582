using System.Net.Sockets;
using System.Text;
using Microsoft.AspNetCore.WebUtilities;

namespace ConcurrencySandbox.Api.Control;

/// <summary>
/// One HTTP/1.1 request read with blocking socket calls (no pool thread involved): the request line, the headers
/// and a Content-Length body. Chunked bodies are refused; the connection carries one request.
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
        if (headers.ContainsKey("Transfer-Encoding"))
        {
            throw new BadControlRequestException(StatusCodes.Status411LengthRequired, "The control listener reads bodies with a Content-Length only.");
        }

        if (!headers.TryGetValue("Content-Length", out var lengthText))
        {
            return [];
        }

        if (!int.TryParse(lengthText, out var length) || length < 0 || length > ControlActions.MaxBodyBytes)
        {
            throw new BadControlRequestException(StatusCodes.Status413PayloadTooLarge, $"Content-Length must be from 0 to {ControlActions.MaxBodyBytes}; it is '{lengthText}'.");
        }

        if (headers.TryGetValue("Expect", out var expect) && expect.Equals("100-continue", StringComparison.OrdinalIgnoreCase))
        {
            connection.Send("HTTP/1.1 100 Continue\r\n\r\n"u8);
        }

        var body = new byte[length];
        var filled = Math.Min(length, alreadyReceived.Length);
        alreadyReceived[..filled].CopyTo(body);
        while (filled < length)
        {
            var received = connection.Receive(body, filled, length - filled, SocketFlags.None);
            if (received == 0)
            {
                throw new EndOfStreamException("The client closed the connection in the middle of the body.");
            }

            filled += received;
        }

        return body;
    }
}

/// <summary>A request the control listener cannot read; answered with its status and message.</summary>
internal sealed class BadControlRequestException(int statusCode, string message) : Exception(message)
{
    public int StatusCode { get; } = statusCode;
}
