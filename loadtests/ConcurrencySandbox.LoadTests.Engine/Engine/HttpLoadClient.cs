using System.Net;

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
/// Picks the load client for a target: the runner's own keep-alive HTTP/1.1 client for http:// (the runner must not
/// be the bottleneck of a run), HttpClient where TLS is needed.
/// </summary>
internal static class HttpLoadClient
{
    public static IHttpLoadClient For(Uri baseAddress, TimeSpan requestTimeout) =>
        baseAddress.Scheme == Uri.UriSchemeHttp ? new KeepAliveHttpClient(baseAddress, requestTimeout) : new HttpClientLoadClient(baseAddress, requestTimeout);
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
