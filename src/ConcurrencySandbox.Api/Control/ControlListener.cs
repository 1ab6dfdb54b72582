using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using ConcurrencySandbox.Api.Admin;
using ConcurrencySandbox.Contracts.Control;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.WebUtilities;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.Control;

/// <summary>
/// The control plane's own HTTP/1.1 listener. Kestrel needs free ThreadPool threads to accept, dispatch and run
/// a request, so it cannot answer while an experiment starves or deadlocks the pool. This listener accepts and
/// answers on a few dedicated threads with blocking sockets (a socket never used asynchronously stays in
/// blocking mode, so no epoll completion is queued to the pool) and synchronous JSON, calling the same
/// <see cref="ControlActions"/> as the Kestrel endpoints. One request per connection (Connection: close).
/// </summary>
public sealed class ControlListener(ControlActions actions, IOptions<ControlOptions> options, IOptions<AdminOptions> admin, ILogger<ControlListener> logger)
    : IHostedService, IDisposable
{
    // As ASP.NET Core's own JSON options, so both transports answer byte for byte alike.
    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web) { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };
    private static readonly TimeSpan IoTimeout = TimeSpan.FromSeconds(10);
    private Socket? _socket;

    /// <summary>The control plane's base address once started, for example http://127.0.0.1:5081 (no trailing slash).</summary>
    public string? Address { get; private set; }

    public Task StartAsync(CancellationToken cancellationToken)
    {
        var settings = options.Value;
        _socket = Bind(IPAddress.Parse(settings.Host), settings.Port);
        var bound = (IPEndPoint)_socket.LocalEndPoint!;
        Address = $"http://{(bound.AddressFamily == AddressFamily.InterNetworkV6 ? $"[{bound.Address}]" : bound.Address.ToString())}:{bound.Port}";
        for (var i = 0; i < settings.ConnectionThreads; i++)
        {
            // "Control <port> <i>" fits Linux's 15-character thread names, so each listener's threads can be told apart.
            new Thread(AcceptLoop) { IsBackground = true, Name = $"Control {bound.Port} {i}" }.Start(_socket);
        }

        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken)
    {
        _socket?.Close();
        return Task.CompletedTask;
    }

    public void Dispose() => _socket?.Dispose();

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

        socket.Listen(64);
        return socket;
    }

    private void AcceptLoop(object? listening)
    {
        var socket = (Socket)listening!;
        while (true)
        {
            Socket connection;
            try
            {
                connection = socket.Accept();
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
                return; // the listener was closed: the app is stopping
            }

            using (connection)
            {
                try
                {
                    connection.ReceiveTimeout = (int)IoTimeout.TotalMilliseconds;
                    connection.SendTimeout = (int)IoTimeout.TotalMilliseconds;
                    connection.NoDelay = true;
                    Write(connection, Answer(connection));
                }
                catch (Exception e) when (e is SocketException or EndOfStreamException or ObjectDisposedException)
                {
                    logger.LogDebug(e, "A control connection ended early");
                }
            }
        }
    }

    private IResult Answer(Socket connection)
    {
        ControlHttpRequest request;
        try
        {
            request = ControlHttpRequest.Read(connection);
        }
        catch (BadControlRequestException e)
        {
            return TypedResults.Problem(e.Message, statusCode: e.StatusCode);
        }

        try
        {
            return Dispatch(request, (connection.RemoteEndPoint as IPEndPoint)?.Address);
        }
        catch (Exception e)
        {
            logger.LogError(e, "Control request {Method} {Path} failed", request.Method, request.Path);
            return TypedResults.Problem("The control action failed; see the server log.", statusCode: StatusCodes.Status500InternalServerError);
        }
    }

    private IResult Dispatch(ControlHttpRequest request, IPAddress? remote)
    {
        IResult? AdminRefusal() => AdminKeyFilter.Refusal(admin.Value.Key, request.Headers.GetValueOrDefault(AdminKeyFilter.HeaderName, string.Empty), remote);

        return (request.Method, request.Path) switch
        {
            ("OPTIONS", _) => TypedResults.NoContent(),
            ("GET", ControlRoutes.Health) => ControlActions.Health(),
            ("GET", ControlRoutes.ThreadPool) => actions.ReadThreadPool(),
            ("PUT", ControlRoutes.ThreadPool) => AdminRefusal() ?? actions.SetThreadPool(request.Body),
            ("POST", ControlRoutes.ThreadPoolReset) => AdminRefusal() ?? actions.ResetThreadPool(),
            ("GET", ControlRoutes.Telemetry) => actions.Telemetry(),
            ("GET", ControlRoutes.TelemetryHistory) => actions.History(request.Query),
            (_, ControlRoutes.Health or ControlRoutes.ThreadPool or ControlRoutes.ThreadPoolReset or ControlRoutes.Telemetry or ControlRoutes.TelemetryHistory) =>
                TypedResults.Problem($"{request.Method} is not allowed on {request.Path}.", statusCode: StatusCodes.Status405MethodNotAllowed),
            _ => TypedResults.Problem(
                $"The control port serves {ControlRoutes.Health}, {ControlRoutes.ThreadPool}, {ControlRoutes.ThreadPoolReset}, {ControlRoutes.Telemetry} and {ControlRoutes.TelemetryHistory}; experiments are on the API port.",
                statusCode: StatusCodes.Status404NotFound),
        };
    }

    private static void Write(Socket connection, IResult result)
    {
        while (result is INestedHttpResult nested)
        {
            result = nested.Result;
        }

        var status = (result as IStatusCodeHttpResult)?.StatusCode ?? StatusCodes.Status200OK;
        var value = (result as IValueHttpResult)?.Value;
        var body = value is null ? [] : JsonSerializer.SerializeToUtf8Bytes(value, value.GetType(), Json);
        var head = new StringBuilder()
            .Append(CultureInfo.InvariantCulture, $"HTTP/1.1 {status} {ReasonPhrases.GetReasonPhrase(status)}\r\n")
            .Append(CultureInfo.InvariantCulture, $"Content-Length: {body.Length}\r\n")
            .Append("Connection: close\r\nCache-Control: no-store\r\n")
            .Append("Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Methods: GET, PUT, POST, OPTIONS\r\n")
            .Append(CultureInfo.InvariantCulture, $"Access-Control-Allow-Headers: Content-Type, {AdminKeyFilter.HeaderName}\r\n");
        if (value is not null)
        {
            head.Append(CultureInfo.InvariantCulture, $"Content-Type: {(result as IContentTypeHttpResult)?.ContentType ?? "application/json"}; charset=utf-8\r\n");
        }

        connection.Send(Encoding.ASCII.GetBytes(head.Append("\r\n").ToString()));
        connection.Send(body);
        connection.Shutdown(SocketShutdown.Send);
    }
}
