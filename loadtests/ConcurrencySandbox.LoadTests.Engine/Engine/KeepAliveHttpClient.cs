using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Text;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// The load's plain GETs to an http:// target over keep-alive HTTP/1.1 connections of its own (one per request in
/// flight, reused), as wrk sends them: a prepared request, the answer read into one buffer per connection, no
/// per-request timer, cancellation registration or message object, and the requests sent in bursts
/// (<see cref="SendBatch"/>). One watchdog timer gives up on requests past their deadline by closing their connection,
/// so a timeout is still a timeout (a lower bound, never a latency).
/// HttpClient cost 1.2-1.5 x wrk's CPU per request whatever way it was called (docs/notebook/performance.md).
/// </summary>
internal sealed class KeepAliveHttpClient : IHttpLoadClient
{
    private readonly Uri _baseAddress;
    private readonly EndPoint _endPoint;
    private readonly long _timeoutTicks;
    private readonly ConcurrentQueue<Http11Connection> _idle = new();
    private readonly HashSet<Http11Connection> _open = [];
    private readonly Timer _watchdog;
    private readonly SendBatch _sends = new();

    public KeepAliveHttpClient(Uri baseAddress, TimeSpan requestTimeout)
    {
        if (baseAddress.Scheme != Uri.UriSchemeHttp)
        {
            throw new ArgumentException($"Only http:// targets, not '{baseAddress.Scheme}'.", nameof(baseAddress));
        }

        _baseAddress = baseAddress;
        _endPoint = IPAddress.TryParse(baseAddress.DnsSafeHost, out var address)
            ? new IPEndPoint(address, baseAddress.Port)
            : new DnsEndPoint(baseAddress.DnsSafeHost, baseAddress.Port);
        _timeoutTicks = (long)(requestTimeout.TotalSeconds * Stopwatch.Frequency);
        var period = WatchdogPeriod(requestTimeout);
        _watchdog = new Timer(_ => AbandonOverdue(), null, period, period);
    }

    /// <summary>How often requests past their deadline are looked for, so one is given up at most this long after it: a twentieth of the timeout, 5-100 ms.</summary>
    public static TimeSpan WatchdogPeriod(TimeSpan requestTimeout) =>
        TimeSpan.FromTicks(Math.Clamp(requestTimeout.Ticks / 20, TimeSpan.FromMilliseconds(5).Ticks, TimeSpan.FromMilliseconds(100).Ticks));

    /// <summary>The prepared GET of <paramref name="pathAndQuery"/>, as wrk sends it: the request line and Host, nothing else.</summary>
    public static byte[] GetRequest(Uri baseAddress, string pathAndQuery)
    {
        var uri = new Uri(baseAddress, pathAndQuery);
        return Encoding.ASCII.GetBytes($"GET {uri.PathAndQuery} HTTP/1.1\r\nHost: {uri.Authority}\r\n\r\n");
    }

    public SendRequest Get(string pathAndQuery, IResponseProbe? probe = null)
    {
        var request = GetRequest(_baseAddress, pathAndQuery);
        return cancellationToken => SendAsync(request, probe, cancellationToken);
    }

    public void Dispose()
    {
        _watchdog.Dispose();
        Http11Connection[] open;
        lock (_open)
        {
            open = [.. _open];
            _open.Clear();
        }

        foreach (var connection in open)
        {
            connection.Dispose();
        }

        _sends.Dispose();
    }

    // Pooled: a request that waits for its answer (all of them) would otherwise allocate its state machine's box.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<RequestOutcome> SendAsync(byte[] request, IResponseProbe? probe, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var deadline = Stopwatch.GetTimestamp() + _timeoutTicks;
        while (true)
        {
            var reused = _idle.TryDequeue(out var connection);
            connection ??= Open();
            connection.Begin(deadline, cancellationToken);
            try
            {
                if (!reused)
                {
                    await connection.ConnectAsync(_endPoint);
                }

                await connection.WriteAsync(request, _sends);
                using var body = probe is null ? null : new MemoryStream();
                var (status, keepAlive) = await connection.ReadResponseAsync(body);
                if (!connection.End())
                {
                    Close(connection);
                    return GivenUp(cancellationToken);
                }

                if (keepAlive)
                {
                    _idle.Enqueue(connection);
                }
                else
                {
                    Close(connection);
                }

                var outcome = RequestOutcome.Answered(status);
                return body is null ? outcome : await ResponseProbes.ObserveAsync(probe!, body, outcome, cancellationToken);
            }
            catch (Exception e) when (e is SocketException or IOException or ObjectDisposedException)
            {
                Close(connection);
                if (connection.IsAbandoned)
                {
                    return GivenUp(cancellationToken);
                }

                cancellationToken.ThrowIfCancellationRequested();
                if (reused && !connection.ReceivedAny)
                {
                    // A kept-alive connection the server closed while it was idle: once more on a new one, as HttpClient does.
                    continue;
                }

                return RequestOutcome.Failed(LoadClientErrors.Describe(e, _baseAddress));
            }
        }
    }

    /// <summary>The watchdog closed the request's connection: the run was cancelled, or else the request timed out.</summary>
    private static RequestOutcome GivenUp(CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        return RequestOutcome.TimedOut;
    }

    private Http11Connection Open()
    {
        var connection = new Http11Connection();
        lock (_open)
        {
            _open.Add(connection);
        }

        return connection;
    }

    private void Close(Http11Connection connection)
    {
        lock (_open)
        {
            _open.Remove(connection);
        }

        connection.Dispose();
    }

    private void AbandonOverdue()
    {
        var now = Stopwatch.GetTimestamp();
        Http11Connection[] open;
        lock (_open)
        {
            open = [.. _open];
        }
        // Outside the lock: closing a socket completes what waits on it, and that must not run under the lock Open and Close take.
        foreach (var connection in open)
        {
            connection.AbandonIfOverdue(now);
        }
    }
}
