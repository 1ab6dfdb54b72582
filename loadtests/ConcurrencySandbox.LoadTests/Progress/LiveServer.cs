using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>
/// <c>--live</c>: the live page, its event feed (Server-Sent Events) and, once written, report.html, served on
/// 127.0.0.1 by a few lines of HTTP/1.1 over a plain socket. It accepts and answers on threads of its own, never the
/// thread pool the load's sockets complete on, so a browser costs the request path no thread; a page that goes away
/// only ends its own connection. Not Kestrel: the runner stays a plain console app with no web host in it.
/// </summary>
internal sealed class LiveServer : IDisposable
{
    /// <summary>The port <c>--live</c> alone asks for (k6's dashboard's, for habit); in use, the next free one is taken.</summary>
    public const int DefaultPort = 5665;

    /// <summary>How many ports from the asked one are tried before giving up.</summary>
    public const int PortsTried = 100;

    private static readonly JsonSerializerOptions TilesJson = new(JsonSerializerDefaults.Web);

    private const int MaxHeadBytes = 8192;
    private static readonly TimeSpan ReadHeadTimeout = TimeSpan.FromSeconds(5);
    // A browser that stops reading holds its writer at most this long; its connection then ends, the run does not.
    private static readonly TimeSpan WriteTimeout = TimeSpan.FromSeconds(10);

    private readonly Socket _listener;
    private readonly LiveFeed _feed;
    private readonly byte[] _page;
    private readonly ManualResetEventSlim _reportServed = new();
    private volatile string? _reportPath;

    private LiveServer(Socket listener, LiveFeed feed, string page, int askedPort)
    {
        _listener = listener;
        _feed = feed;
        _page = Encoding.UTF8.GetBytes(page);
        Port = ((IPEndPoint)listener.LocalEndPoint!).Port;
        AskedPort = askedPort;
        var accept = new Thread(AcceptLoop) { IsBackground = true, Name = "live page: accept" };
        accept.Start();
    }

    public int Port { get; }

    public int AskedPort { get; }

    public Uri Address => new(string.Create(CultureInfo.InvariantCulture, $"http://127.0.0.1:{Port}/"));

    /// <summary>The line the runner prints first: the address, and when the asked port was taken, that it moved.</summary>
    public string Announcement => AskedPort != 0 && AskedPort != Port
        ? string.Create(CultureInfo.InvariantCulture, $"live: {Address} (port {AskedPort} is in use)")
        : $"live: {Address}";

    /// <summary>Serves <paramref name="page"/> and <paramref name="feed"/> on 127.0.0.1:<paramref name="port"/> (0: any free port), or the next free port after it.</summary>
    public static LiveServer Start(int port, LiveFeed feed, string page)
    {
        var last = port == 0 ? 0 : Math.Min(IPEndPoint.MaxPort, port + PortsTried - 1);
        for (var candidate = port; ; candidate++)
        {
            var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            try
            {
                socket.Bind(new IPEndPoint(IPAddress.Loopback, candidate));
                socket.Listen(16);
                return new LiveServer(socket, feed, page, port);
            }
            catch (SocketException e) when (e.SocketErrorCode is SocketError.AddressAlreadyInUse or SocketError.AccessDenied)
            {
                socket.Dispose();
                if (candidate >= last)
                {
                    throw new UsageException(string.Create(CultureInfo.InvariantCulture, $"--live: no free port on 127.0.0.1 from {port} to {last}"));
                }
            }
        }
    }

    /// <summary>report.html is written: <c>/report</c> serves it from now on.</summary>
    public void ReportWritten(string reportHtmlPath) => _reportPath = reportHtmlPath;

    /// <summary>Waits until a page has fetched the report, or <paramref name="limit"/> has passed.</summary>
    public bool WaitForReportFetch(TimeSpan limit) => _reportServed.Wait(limit);

    private void AcceptLoop()
    {
        while (true)
        {
            Socket connection;
            try
            {
                connection = _listener.Accept();
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
                return;
            }
            new Thread(() => Handle(connection)) { IsBackground = true, Name = "live page: connection" }.Start();
        }
    }

    private void Handle(Socket connection)
    {
        using var _ = connection;
        using var stream = new NetworkStream(connection, ownsSocket: false);
        connection.ReceiveTimeout = (int)ReadHeadTimeout.TotalMilliseconds;
        connection.SendTimeout = (int)WriteTimeout.TotalMilliseconds;
        try
        {
            var request = LiveRequest.Read(stream, MaxHeadBytes);
            if (request is null)
            {
                Respond(stream, "400 Bad Request", "text/plain", "bad request\n"u8.ToArray());
                return;
            }
            if (request.Method != "GET")
            {
                Respond(stream, "405 Method Not Allowed", "text/plain", "GET only\n"u8.ToArray());
                return;
            }
            // Only this machine's own names: a page elsewhere cannot read the feed by pointing a DNS name at 127.0.0.1.
            if (!IsLoopbackHost(request.Host))
            {
                Respond(stream, "403 Forbidden", "text/plain", "the live page answers on 127.0.0.1 and localhost only\n"u8.ToArray());
                return;
            }
            switch (request.Path)
            {
                case "/":
                    Respond(stream, "200 OK", "text/html; charset=utf-8", _page);
                    break;
                case "/events":
                    ServeEvents(stream, request.LastEventId);
                    break;
                case "/report" when _reportPath is { } path && File.Exists(path):
                    Respond(stream, "200 OK", "text/html; charset=utf-8", File.ReadAllBytes(path));
                    _reportServed.Set();
                    break;
                case "/report":
                    Respond(stream, "404 Not Found", "text/plain", "no report yet: it is written when the run ends\n"u8.ToArray());
                    break;
                // The summary the report was rendered from: the page's end reads its answer and curve from it.
                case "/summary.json" when SummaryPath() is { } summary:
                    Respond(stream, "200 OK", "application/json; charset=utf-8", File.ReadAllBytes(summary));
                    break;
                // Its tiles as report.html draws them (ReportWriter.Tiles), so the page's end shows the report's figures, worded once.
                case "/tiles.json" when SummaryPath() is { } summary && TilesOf(summary) is { } tiles:
                    Respond(stream, "200 OK", "application/json; charset=utf-8", tiles);
                    break;
                default:
                    Respond(stream, "404 Not Found", "text/plain", "not found\n"u8.ToArray());
                    break;
            }
        }
        catch (IOException)
        {
            // The browser went away or stopped reading: only this connection ends.
        }
    }

    /// <summary>summary.json beside the report served, once both are written; else null.</summary>
    private string? SummaryPath() =>
        _reportPath is { } path && Path.Combine(Path.GetDirectoryName(path)!, ReportWriter.SummaryFileName) is var summary && File.Exists(summary) ? summary : null;

    /// <summary>The summary's tiles as JSON; null when the file is not a summary this runner reads (the request is then not found, the server goes on).</summary>
    private static byte[]? TilesOf(string summaryPath)
    {
        try
        {
            return JsonSerializer.SerializeToUtf8Bytes(ReportWriter.Tiles(ReportFolder.ReadSummary(summaryPath, ReportWriter.SummaryFileName)), TilesJson);
        }
        catch (InvalidDataException)
        {
            return null;
        }
    }

    private bool IsLoopbackHost(string? host) =>
        host is not null && (host == $"127.0.0.1:{Port}" || host == $"localhost:{Port}");

    private void ServeEvents(NetworkStream stream, long lastEventId)
    {
        stream.Write(Encoding.ASCII.GetBytes(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\n\r\n"));
        _feed.Serve(lastEventId, text =>
        {
            stream.Write(Encoding.UTF8.GetBytes(text));
            stream.Flush();
        });
    }

    private static void Respond(NetworkStream stream, string status, string contentType, byte[] body)
    {
        // Nothing on the page may come from anywhere but this server: inline script and style, data: images.
        var head = string.Create(CultureInfo.InvariantCulture,
            $"HTTP/1.1 {status}\r\nContent-Type: {contentType}\r\nContent-Length: {body.Length}\r\nCache-Control: no-store\r\nConnection: close\r\n")
            + "Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; frame-src 'self'\r\n\r\n";
        stream.Write(Encoding.ASCII.GetBytes(head));
        stream.Write(body);
        stream.Flush();
    }

    public void Dispose()
    {
        _listener.Dispose();
        _reportServed.Dispose();
    }
}

/// <summary>The little of an HTTP/1.1 request the live server reads: method, path, Host and Last-Event-ID.</summary>
internal sealed record LiveRequest(string Method, string Path, string? Host, long LastEventId)
{
    /// <summary>Reads the request head (up to <paramref name="maxBytes"/>); null when it is not a request line and headers.</summary>
    public static LiveRequest? Read(Stream stream, int maxBytes)
    {
        var head = new List<byte>();
        var buffer = new byte[1024];
        while (!EndsHead(head))
        {
            var read = stream.Read(buffer);
            if (read == 0 || head.Count + read > maxBytes)
            {
                return null;
            }
            head.AddRange(buffer.AsSpan(0, read));
        }
        var text = Encoding.ASCII.GetString([.. head]);
        var lines = text[..text.IndexOf("\r\n\r\n", StringComparison.Ordinal)].Split("\r\n");
        var parts = lines[0].Split(' ');
        if (parts.Length != 3 || !parts[2].StartsWith("HTTP/1.", StringComparison.Ordinal))
        {
            return null;
        }
        string? Header(string name) => lines.Skip(1)
            .Where(l => l.StartsWith(name + ":", StringComparison.OrdinalIgnoreCase))
            .Select(l => l[(name.Length + 1)..].Trim())
            .FirstOrDefault();
        var path = parts[1].Split('?')[0];
        var lastEventId = long.TryParse(Header("Last-Event-ID"), NumberStyles.None, CultureInfo.InvariantCulture, out var id) ? id : 0;
        return new LiveRequest(parts[0], path, Header("Host"), lastEventId);
    }

    private static bool EndsHead(List<byte> head) => head.Count >= 4 && Encoding.ASCII.GetString([.. head]).Contains("\r\n\r\n", StringComparison.Ordinal);
}
