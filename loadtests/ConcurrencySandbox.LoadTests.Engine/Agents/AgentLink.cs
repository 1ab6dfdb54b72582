using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using ConcurrencySandbox.Contracts;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// One agent's TCP connection to its coordinator, seen from either end: <see cref="AgentMessage"/>s as JSON lines.
/// Sends are serialized by a lock (an agent sends from its interval timer and its main flow); one reader at a time.
/// </summary>
internal sealed class AgentLink : IDisposable
{
    // An interval line carries a compressed histogram: a few kilobytes; anything far longer is not this protocol.
    private const int MaxLineChars = 4 * 1024 * 1024;
    private readonly TcpClient _client;
    private readonly StreamReader _reader;
    private readonly Stream _stream;
    private readonly Lock _sendGate = new();

    public AgentLink(TcpClient client)
    {
        _client = client;
        _client.NoDelay = true;
        _stream = client.GetStream();
        _reader = new StreamReader(_stream, new UTF8Encoding(false), detectEncodingFromByteOrderMarks: false, bufferSize: 64 * 1024, leaveOpen: true);
    }

    public string Peer => _client.Client.RemoteEndPoint?.ToString() ?? "?";

    public void Send(AgentMessage message)
    {
        var line = JsonSerializer.SerializeToUtf8Bytes(message, ContractJson.Options);
        lock (_sendGate)
        {
            _stream.Write(line);
            _stream.WriteByte((byte)'\n');
            _stream.Flush();
        }
    }

    /// <summary>The next message; null when the other end closed the connection (or it broke).</summary>
    public async Task<AgentMessage?> ReceiveAsync(CancellationToken cancellationToken)
    {
        string? line;
        try
        {
            line = await _reader.ReadLineAsync(cancellationToken);
        }
        catch (IOException)
        {
            return null;
        }
        if (line is null)
        {
            return null;
        }
        if (line.Length > MaxLineChars)
        {
            throw new FormatException($"a line of {line.Length} characters from {Peer} is not an agent message");
        }
        return JsonSerializer.Deserialize<AgentMessage>(line, ContractJson.Options) ?? throw new FormatException($"an empty message from {Peer}");
    }

    public void Dispose()
    {
        _reader.Dispose();
        _client.Dispose();
    }
}
