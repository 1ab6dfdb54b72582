using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using ConcurrencySandbox.Api.Admin;
using ConcurrencySandbox.Api.Metrics;
using ConcurrencySandbox.Api.Telemetry;
using ConcurrencySandbox.Api.ThreadPools;
using ConcurrencySandbox.Contracts.Control;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.WebUtilities;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.Control;

/// <summary>
/// The control plane's own HTTP/1.1 listener. Kestrel needs free ThreadPool threads to accept, dispatch and run a
/// request, so it cannot answer while an experiment starves or deadlocks the pool. Here one dedicated thread runs a
/// readiness loop (Socket.Select, poll(2) on Linux) over non-blocking sockets: it accepts, reads each
/// request in bulk as it arrives, and writes the answers; a few dedicated handler threads run the actions
/// (<see cref="ThreadPoolActions"/> and <see cref="TelemetryActions"/>, the same as the Kestrel endpoints, and the Prometheus rendering) so a slow one
/// never stalls the loop. Sockets only used synchronously never reach the runtime's epoll engine, so nothing on this
/// path needs a pool thread. Slow, idle or many clients cannot hold it: each request must arrive within
/// <see cref="ControlOptions.RequestSeconds"/>, and at <see cref="ControlOptions.MaxConnections"/> open connections the least
/// recently active idle one is closed for the newcomer. One request per connection (Connection: close).
/// </summary>
public sealed class ControlListener(
    ThreadPoolActions threadPool, TelemetryActions telemetry, PrometheusExposition metrics, OriginPolicy origins, IOptions<ControlOptions> options, IOptions<AdminOptions> admin, ILogger<ControlListener> logger)
    : IHostedService, IDisposable
{
    /// <summary>The most the listener reads of a request line and headers together, and the most header lines.</summary>
    public const int MaxHeaderBytes = 16 * 1024;

    /// <inheritdoc cref="MaxHeaderBytes"/>
    public const int MaxHeaderCount = 100;

    /// <summary>The largest body a control action reads: the thread pool's PUT.</summary>
    public const int MaxBodyBytes = ThreadPoolActions.MaxBodyBytes;

    // As ASP.NET Core's own JSON options, so both transports answer byte for byte alike.
    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web) { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };
    private static readonly TimeSpan LongestWait = TimeSpan.FromSeconds(1);

    private readonly BlockingCollection<ControlConnection> _requests = [];
    private readonly ConcurrentQueue<ControlConnection> _answered = new();
    private Socket? _socket;
    private Socket? _wake;
    private volatile bool _stopping;
    private long _accepted;

    /// <summary>The control plane's base address once started, for example http://127.0.0.1:5081 (no trailing slash).</summary>
    public string? Address { get; private set; }

    public Task StartAsync(CancellationToken cancellationToken)
    {
        var settings = options.Value;
        _socket = Bind(IPAddress.Parse(settings.Host), settings.Port);
        var bound = (IPEndPoint)_socket.LocalEndPoint!;
        Address = $"http://{(bound.AddressFamily == AddressFamily.InterNetworkV6 ? $"[{bound.Address}]" : bound.Address.ToString())}:{bound.Port}";
        origins.AddControlPlane(Address);

        // Handler threads wake the loop with a datagram to this loopback socket, which the loop polls with the others.
        _wake = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp) { Blocking = false };
        _wake.Bind(new IPEndPoint(IPAddress.Loopback, 0));

        // "Control <port> L" and "Control <port> <i>" fit Linux's 15-character thread names, so each listener's threads can be told apart.
        new Thread(Loop) { IsBackground = true, Name = $"Control {bound.Port} L" }.Start(new LoopSettings(_socket, (int)settings.MaxConnections, TimeSpan.FromSeconds(settings.RequestSeconds)));
        for (var i = 0; i < settings.HandlerThreads; i++)
        {
            new Thread(Handle) { IsBackground = true, Name = $"Control {bound.Port} {i}" }.Start();
        }

        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken)
    {
        _stopping = true;
        Wake();
        return Task.CompletedTask;
    }

    public void Dispose()
    {
        _stopping = true;
        Wake();
    }

    private Socket Bind(IPAddress address, long? configuredPort)
    {
        var socket = new Socket(address.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            socket.Bind(new IPEndPoint(address, (int)(configuredPort ?? ControlOptions.DefaultPort)));
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.AddressAlreadyInUse && configuredPort is null)
        {
            logger.LogWarning("Control port {Port} is in use and none was configured (Control:Port, env Control__Port); using a free port instead", ControlOptions.DefaultPort);
            socket.Bind(new IPEndPoint(address, 0));
        }
        catch
        {
            socket.Dispose();
            throw;
        }

        socket.Listen(512);
        socket.Blocking = false;
        return socket;
    }

    private void Wake()
    {
        try
        {
            _wake?.SendTo([1], _wake.LocalEndPoint!);
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException)
        {
            // A full wake queue already wakes the loop; a closed one means it has stopped.
        }
    }

    /// <summary>The readiness loop: the only thread that touches the connections' sockets.</summary>
    private void Loop(object? state)
    {
        var (listener, maxConnections, deadline) = (LoopSettings)state!;
        var deadlineTicks = (long)(deadline.TotalSeconds * Stopwatch.Frequency);
        var timedOut = Serialize(TypedResults.Problem($"The whole request must arrive within {deadline.TotalSeconds:0} s.", statusCode: StatusCodes.Status408RequestTimeout), null, false);
        var connections = new Dictionary<Socket, ControlConnection>();
        var readable = new List<Socket>();
        var writable = new List<Socket>();
        try
        {
            while (!_stopping)
            {
                readable.Clear();
                writable.Clear();
                readable.Add(listener);
                readable.Add(_wake!);
                var nextDeadline = Stopwatch.GetTimestamp() + (long)(LongestWait.TotalSeconds * Stopwatch.Frequency);
                foreach (var connection in connections.Values)
                {
                    (connection.WantsWrite ? writable : connection.WantsRead ? readable : null)?.Add(connection.Socket);
                    nextDeadline = Math.Min(nextDeadline, connection.DeadlineTimestamp);
                }

                var waitMicroseconds = (int)Math.Clamp(Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), nextDeadline).TotalMicroseconds, 0, LongestWait.TotalMicroseconds);
                Socket.Select(readable, writable, null, waitMicroseconds);
                var now = Stopwatch.GetTimestamp();

                if (readable.Remove(_wake!))
                {
                    DrainWake();
                }

                while (_answered.TryDequeue(out var answered))
                {
                    if (answered.State == ControlConnection.Phase.Handling)
                    {
                        Step(answered, c => c.Respond(c.Response!, now));
                    }
                }

                foreach (var socket in writable)
                {
                    Step(connections[socket], c => c.OnWritable(now));
                }

                var accept = readable.Remove(listener);
                foreach (var socket in readable)
                {
                    Step(connections[socket], c =>
                    {
                        if (c.OnReadable(now, e => Serialize(TypedResults.Problem(e.Message, statusCode: e.StatusCode), null, false)))
                        {
                            _requests.Add(c);
                        }
                    });
                }

                if (accept)
                {
                    AcceptAll(listener, connections, maxConnections, now, deadlineTicks);
                }

                foreach (var connection in connections.Values.Where(c => c.DeadlineTimestamp <= now && c.State != ControlConnection.Phase.Closed).ToList())
                {
                    Step(connection, c => c.Expire(timedOut));
                }

                foreach (var closed in connections.Values.Where(c => c.State == ControlConnection.Phase.Closed).ToList())
                {
                    connections.Remove(closed.Socket);
                }
            }
        }
        catch (Exception e)
        {
            if (!_stopping)
            {
                logger.LogCritical(e, "The control plane's loop failed: the control port no longer answers");
            }
        }
        finally
        {
            listener.Dispose();
            foreach (var connection in connections.Values)
            {
                connection.Close();
            }

            _requests.CompleteAdding();
            _wake?.Dispose();
        }
    }

    private void Step(ControlConnection connection, Action<ControlConnection> step)
    {
        try
        {
            step(connection);
        }
        catch (Exception e)
        {
            // One connection's trouble must never end the loop that serves all the others.
            if (e is SocketException or ObjectDisposedException)
            {
                logger.LogDebug(e, "A control connection ended early");
            }
            else
            {
                logger.LogError(e, "A control connection failed");
            }

            connection.Close();
        }
    }

    private void DrainWake()
    {
        Span<byte> datagram = stackalloc byte[16];
        while (_wake!.Available > 0)
        {
            _wake.Receive(datagram);
        }
    }

    private void AcceptAll(Socket listener, Dictionary<Socket, ControlConnection> connections, int maxConnections, long now, long deadlineTicks)
    {
        while (true)
        {
            Socket accepted;
            try
            {
                accepted = listener.Accept();
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.WouldBlock)
            {
                return;
            }

            accepted.Blocking = false;
            accepted.NoDelay = true;
            if (connections.Count >= maxConnections)
            {
                var idlest = connections.Values.Where(c => c.IsIdle).MinBy(c => (c.LastActivityTimestamp, c.Sequence));
                if (idlest is null)
                {
                    accepted.Dispose(); // every connection is being answered: the newcomer waits for none of them
                    continue;
                }

                idlest.Close();
                connections.Remove(idlest.Socket);
            }

            connections.Add(accepted, new ControlConnection(accepted, ++_accepted, now, deadlineTicks));
        }
    }

    /// <summary>A handler thread: answers complete requests, then hands them back to the loop to send.</summary>
    private void Handle()
    {
        foreach (var connection in _requests.GetConsumingEnumerable())
        {
            var request = connection.Request!;
            try
            {
                var allowedOrigin = origins.AllowedOrigin(request.Header("Origin"), request.Header("Host"));
                connection.Response = Serialize(Dispatch(request, connection.Remote), allowedOrigin, HttpMethods.IsOptions(request.Method));
            }
            catch (Exception e)
            {
                logger.LogError(e, "Control request {Method} {Path} failed", request.Method, request.Path);
                connection.Response = Serialize(TypedResults.Problem("The control action failed; see the server log.", statusCode: StatusCodes.Status500InternalServerError), null, false);
            }

            _answered.Enqueue(connection);
            Wake();
        }
    }

    private IResult Dispatch(ControlHttpRequest request, IPAddress? remote)
    {
        var origin = request.Header("Origin");
        if (!origins.Allows(request.Method, origin, request.Header("Host")))
        {
            return OriginPolicy.Refusal(request.Method, origin!);
        }

        IResult? AdminRefusal() => AdminKeyFilter.Refusal(admin.Value.Key, request.Header(AdminKeyFilter.HeaderName) ?? string.Empty, remote);

        return (request.Method, request.Path) switch
        {
            ("OPTIONS", _) => TypedResults.NoContent(),
            ("GET", ControlRoutes.Health) => ControlPlane.Health(),
            ("GET", ControlRoutes.ThreadPool) => threadPool.Read(),
            ("PUT", ControlRoutes.ThreadPool) => AdminRefusal() ?? threadPool.Set(request.Body),
            ("POST", ControlRoutes.ThreadPoolReset) => AdminRefusal() ?? threadPool.Reset(),
            ("GET", ControlRoutes.Telemetry) => telemetry.Snapshot(),
            ("GET", ControlRoutes.TelemetryHistory) => telemetry.History(request.Query),
            ("GET", ControlRoutes.Metrics) => TypedResults.Text(metrics.Render(), PrometheusExposition.ContentType),
            (_, ControlRoutes.Health or ControlRoutes.ThreadPool or ControlRoutes.ThreadPoolReset or ControlRoutes.Telemetry or ControlRoutes.TelemetryHistory or ControlRoutes.Metrics) =>
                TypedResults.Problem($"{request.Method} is not allowed on {request.Path}.", statusCode: StatusCodes.Status405MethodNotAllowed),
            _ => TypedResults.Problem(
                $"The control port serves {ControlRoutes.Health}, {ControlRoutes.ThreadPool}, {ControlRoutes.ThreadPoolReset}, {ControlRoutes.Telemetry}, {ControlRoutes.TelemetryHistory} and {ControlRoutes.Metrics}; experiments are on the API port.",
                statusCode: StatusCodes.Status404NotFound),
        };
    }

    /// <summary>The whole answer (head and body); CORS headers only for an own origin, never *.</summary>
    private static byte[] Serialize(IResult result, string? allowedOrigin, bool preflight)
    {
        while (result is INestedHttpResult nested)
        {
            result = nested.Result;
        }

        var status = (result as IStatusCodeHttpResult)?.StatusCode ?? StatusCodes.Status200OK;
        var (body, contentType) = result switch
        {
            ContentHttpResult text => (Encoding.UTF8.GetBytes(text.ResponseContent ?? string.Empty), text.ContentType),
            IValueHttpResult { Value: { } value } => (JsonSerializer.SerializeToUtf8Bytes(value, value.GetType(), Json),
                $"{(result as IContentTypeHttpResult)?.ContentType ?? "application/json"}; charset=utf-8"),
            _ => ([], null),
        };
        var head = new StringBuilder()
            .Append(CultureInfo.InvariantCulture, $"HTTP/1.1 {status} {ReasonPhrases.GetReasonPhrase(status)}\r\n")
            .Append(CultureInfo.InvariantCulture, $"Content-Length: {body.Length}\r\n")
            .Append("Connection: close\r\nCache-Control: no-store\r\n");
        if (contentType is not null)
        {
            head.Append(CultureInfo.InvariantCulture, $"Content-Type: {contentType}\r\n");
        }

        if (allowedOrigin is not null)
        {
            head.Append(CultureInfo.InvariantCulture, $"Access-Control-Allow-Origin: {allowedOrigin}\r\nVary: Origin\r\n");
            if (preflight)
            {
                head.Append(CultureInfo.InvariantCulture, $"Access-Control-Allow-Methods: {OriginPolicy.AllowedMethods}\r\nAccess-Control-Allow-Headers: {OriginPolicy.AllowedHeaders}\r\n");
            }
        }

        return [.. Encoding.ASCII.GetBytes(head.Append("\r\n").ToString()), .. body];
    }

    private sealed record LoopSettings(Socket Listener, int MaxConnections, TimeSpan Deadline);
}
