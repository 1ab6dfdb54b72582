using System.Net;
using System.Net.Sockets;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>What every load request goes through: GETs that say how each request ended.</summary>
public interface IHttpLoadClient : IDisposable
{
    /// <summary>
    /// A sender for GET <paramref name="pathAndQuery"/> that says how each request ended: ok on 2xx, the status of any
    /// other answer, a timeout when the client gave up, or a connection error with its message.
    /// The body is drained unread, or handed to <paramref name="probe"/> when one is given.
    /// </summary>
    SendRequest Get(string pathAndQuery, IResponseProbe? probe = null);
}

/// <summary>
/// Picks the load client for a target (the runner must not be the bottleneck of a run): for http://, the runner's own
/// keep-alive HTTP/1.1 client on its own epoll loops where it can (Linux x86-64: <see cref="EpollHttpClient"/>), else
/// the same client over the runtime's sockets (<see cref="KeepAliveHttpClient"/>); HttpClient where TLS is needed.
/// </summary>
public static class HttpLoadClient
{
    /// <summary>The one switch between the two socket layers: <c>epoll</c> (the default where supported) or <c>runtime</c>.</summary>
    public const string SocketLoopVariable = "LOADTESTS_SOCKET_LOOP";

    public static IHttpLoadClient For(Uri baseAddress, TimeSpan requestTimeout) =>
        For(baseAddress, requestTimeout, Environment.GetEnvironmentVariable(SocketLoopVariable));

    internal static IHttpLoadClient For(Uri baseAddress, TimeSpan requestTimeout, string? socketLoop)
    {
        if (baseAddress.Scheme != Uri.UriSchemeHttp)
        {
            return new HttpClientLoadClient(baseAddress, requestTimeout);
        }

        return OwnLoop(socketLoop) && EpollHttpClient.Resolve(baseAddress) is { } address
            ? new EpollHttpClient(baseAddress, requestTimeout, address)
            : new KeepAliveHttpClient(baseAddress, requestTimeout);
    }

    /// <summary>Checks the switch's value (a bad one is a usage error naming the variable); true when the runner's own loops are used.</summary>
    public static bool OwnLoop(string? socketLoop) => socketLoop switch
    {
        null or "" or "epoll" => Libc.IsSupported,
        "runtime" => false,
        _ => throw new UsageException($"{SocketLoopVariable} must be 'epoll' or 'runtime', not '{socketLoop}'"),
    };
}

/// <summary>The runner's own load clients' failures, worded like HttpClient's: "ConnectionError: Connection refused (127.0.0.1:5080)", "ResponseEnded: ...".</summary>
internal static class LoadClientErrors
{
    public static string Describe(Exception e, Uri baseAddress) => e switch
    {
        HttpIOException http => $"{http.HttpRequestError}: {http.Message}",
        SocketException socket => ConnectionError(socket.Message, baseAddress),
        _ => $"{HttpRequestError.Unknown}: {e.Message}",
    };

    public static string ConnectionError(string message, Uri baseAddress) => $"{HttpRequestError.ConnectionError}: {message} ({baseAddress.Authority})";
}

/// <summary>
/// The load client for https:// targets: one pooled handler with as many connections as there are users, no cookies,
/// redirects, decompression or trace-header propagation, headers-first reads and the body drained into nowhere.
/// </summary>
internal sealed class HttpClientLoadClient : IHttpLoadClient
{
    private readonly HttpClient _http;

    public HttpClientLoadClient(Uri baseAddress, TimeSpan requestTimeout)
    {
        var handler = new SocketsHttpHandler
        {
            MaxConnectionsPerServer = int.MaxValue,
            PooledConnectionIdleTimeout = TimeSpan.FromMinutes(5),
            UseCookies = false,
            UseProxy = false,
            AllowAutoRedirect = false,
            AutomaticDecompression = DecompressionMethods.None,
            ActivityHeadersPropagator = null,
        };
        _http = new HttpClient(handler) { BaseAddress = baseAddress, Timeout = requestTimeout };
    }

    public SendRequest Get(string pathAndQuery, IResponseProbe? probe = null)
    {
        var uri = new Uri(_http.BaseAddress!, pathAndQuery);
        return async cancellationToken =>
        {
            try
            {
                using var response = await _http.GetAsync(uri, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
                await using var body = await response.Content.ReadAsStreamAsync(cancellationToken);
                if (probe is not null && response.IsSuccessStatusCode)
                {
                    await probe.ObserveAsync(body, cancellationToken);
                }
                await body.CopyToAsync(Stream.Null, cancellationToken);
                return RequestOutcome.Answered((int)response.StatusCode);
            }
            catch (TaskCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                // HttpClient.Timeout cancels with its own token: the client gave up, the server never answered in time.
                return RequestOutcome.TimedOut;
            }
            catch (HttpRequestException e) when (!cancellationToken.IsCancellationRequested)
            {
                return RequestOutcome.Failed(e.HttpRequestError == HttpRequestError.Unknown ? e.Message : $"{e.HttpRequestError}: {e.Message}");
            }
            catch (Exception e) when (e is IOException or System.Text.Json.JsonException && !cancellationToken.IsCancellationRequested)
            {
                return RequestOutcome.Failed($"unreadable body: {e.Message}");
            }
        };
    }

    public void Dispose() => _http.Dispose();
}
