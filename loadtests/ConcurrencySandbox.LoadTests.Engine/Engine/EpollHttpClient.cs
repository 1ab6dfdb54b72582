using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// The load's plain GETs to an http:// target on the runner's own socket loops: one <see cref="EpollLoop"/> thread per
/// cpu the process may use, each driving its share of the connections over non-blocking sockets and epoll, as wrk's
/// threads do. A request made on a loop's thread (a user's next request, sent from its answer's completion) stays on that
/// loop; one made elsewhere goes to the loops in turn, to one with an idle connection first. Keep-alive, the answers' parsing (<see cref="Http11AnswerReader"/>),
/// the outcomes and their wording are those of <see cref="KeepAliveHttpClient"/>, the runtime-sockets client it replaces
/// on Linux x86-64 (<see cref="HttpLoadClient.SocketLoopVariable"/> chooses; docs/notebook/performance.md says why).
/// </summary>
internal sealed class EpollHttpClient : IHttpLoadClient
{
    private const int AfInet = 2;
    private const int AfInet6 = 10;

    private readonly EpollLoop[] _loops;
    private readonly long _timeoutTicks;
    private readonly Lock _poolLock = new();
    private readonly Stack<LoopExchange> _pool = new();
    private int _next;
    private volatile bool _disposed;

    public EpollHttpClient(Uri baseAddress, TimeSpan requestTimeout, IPAddress address, int loops = 0)
    {
        BaseAddress = baseAddress;
        var socketAddress = new IPEndPoint(address, baseAddress.Port).Serialize();
        SocketAddress = socketAddress.Buffer[..socketAddress.Size].ToArray();
        AddressFamily = address.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 ? AfInet6 : AfInet;
        _timeoutTicks = (long)(requestTimeout.TotalSeconds * Stopwatch.Frequency);
        var period = KeepAliveHttpClient.WatchdogPeriod(requestTimeout);
        _loops = [.. Enumerable.Range(0, loops > 0 ? loops : Environment.ProcessorCount).Select(i => new EpollLoop(this, i, period))];
    }

    public Uri BaseAddress { get; }

    /// <summary>The target's address as the connect system call takes it.</summary>
    public byte[] SocketAddress { get; }

    public int AddressFamily { get; }

    public IReadOnlyList<EpollLoop> Loops => _loops;

    /// <summary>The target's address for the loops: an IP literal as it is, a name resolved once now (null when it cannot be: the runtime-sockets client then reports each request's error).</summary>
    public static IPAddress? Resolve(Uri baseAddress)
    {
        if (IPAddress.TryParse(baseAddress.DnsSafeHost, out var literal))
        {
            return literal;
        }

        try
        {
            var addresses = Dns.GetHostAddresses(baseAddress.DnsSafeHost);
            return addresses.FirstOrDefault(a => a.AddressFamily == System.Net.Sockets.AddressFamily.InterNetwork) ?? addresses.FirstOrDefault();
        }
        catch (SocketException)
        {
            return null;
        }
    }

    public SendRequest Get(string pathAndQuery, IResponseProbe? probe = null)
    {
        var request = KeepAliveHttpClient.GetRequest(BaseAddress, pathAndQuery);
        return probe is null
            ? cancellationToken => Send(request, null, cancellationToken)
            : cancellationToken => SendObservedAsync(request, probe, cancellationToken);
    }

    public void Dispose()
    {
        _disposed = true;
        foreach (var loop in _loops)
        {
            loop.Stop();
        }
    }

    /// <summary>The outcome of a request made after <see cref="Dispose"/> or cut short by it.</summary>
    public RequestOutcome Disposed() => RequestOutcome.Failed(LoadClientErrors.Describe(new ObjectDisposedException(nameof(EpollHttpClient)), BaseAddress));

    public void Return(LoopExchange exchange)
    {
        lock (_poolLock)
        {
            _pool.Push(exchange);
        }
    }

    private ValueTask<RequestOutcome> Send(byte[] request, Stream? body, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (_disposed)
        {
            return ValueTask.FromResult(Disposed());
        }

        var loop = EpollLoop.Current is { } current && current.Client == this ? current : PickLoop();
        LoopExchange? exchange;
        lock (_poolLock)
        {
            _pool.TryPop(out exchange);
        }

        exchange ??= new LoopExchange(this);
        var outcome = exchange.Begin(request, body, Stopwatch.GetTimestamp() + _timeoutTicks, cancellationToken);
        loop.Start(exchange);
        return outcome;
    }

    /// <summary>For a request made off the loops: the next loop in turn that has an idle connection, else the next in turn.</summary>
    private EpollLoop PickLoop()
    {
        var first = (uint)Interlocked.Increment(ref _next);
        for (var i = 0u; i < _loops.Length; i++)
        {
            if (_loops[(first + i) % _loops.Length] is { IdleConnections: > 0 } idle)
            {
                return idle;
            }
        }

        return _loops[first % _loops.Length];
    }

    private async ValueTask<RequestOutcome> SendObservedAsync(byte[] request, IResponseProbe probe, CancellationToken cancellationToken)
    {
        using var body = new MemoryStream();
        return await ResponseProbes.ObserveAsync(probe, body, await Send(request, body, cancellationToken), cancellationToken);
    }
}
