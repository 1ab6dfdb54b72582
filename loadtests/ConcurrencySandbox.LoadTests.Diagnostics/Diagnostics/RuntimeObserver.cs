using System.Diagnostics;
using System.Diagnostics.Tracing;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// One second of the target's runtime counters as dotnet-counters names them (System.Runtime EventCounters, e.g.
/// "threadpool-thread-count"), stamped with the runner's <see cref="Stopwatch"/> when the first of them arrived and with
/// the runtime's own clock when it was written (<paramref name="WrittenSeconds"/>, seconds since the session began: a
/// busy runner reads a second late, the runtime wrote it on time). A rate counter (completed items, contentions,
/// collections, allocations) holds its increment since the payload before.
/// </summary>
public sealed record RuntimeSample(long Timestamp, double WrittenSeconds, IReadOnlyDictionary<string, double> Counters)
{
    public double? this[string counter] => Counters.TryGetValue(counter, out var value) ? value : null;

    /// <summary>
    /// The cpu-usage payload's IntervalSec: the seconds the runtime measured that mean over, since its publish before (a
    /// late timer gives a longer one, so a late second's CPU is in this reading, not lost). Null when the payload is missing.
    /// </summary>
    public double? CpuIntervalSeconds { get; init; }
}

/// <summary>
/// A ThreadPoolWorkerThreadAdjustment/Adjustment event: the pool moved to <paramref name="NewWorkerThreadCount"/> threads
/// for <paramref name="Reason"/>; stamped as a <see cref="RuntimeSample"/> is, when it arrived and when the runtime wrote it.
/// </summary>
public sealed record ThreadAdjustment(long Timestamp, double WrittenSeconds, int NewWorkerThreadCount, string Reason);

/// <summary>
/// Watches a .NET process from outside over its diagnostics IPC channel (the socket dotnet-counters uses): one
/// EventPipe session with the System.Runtime counters every second and the runtime's thread-pool adjustment events,
/// read on a dedicated thread. Nothing goes through the target's HTTP port or thread pool, so the samples keep
/// coming while the pool starves. When the target goes away the series ends and <see cref="LostReason"/> says so.
/// </summary>
public sealed class RuntimeObserver : IAsyncDisposable
{
    /// <summary>The System.Runtime counters read every second, by the names dotnet-counters takes (<c>--counters System.Runtime[...]</c>).</summary>
    public static readonly IReadOnlyList<string> Counters =
    [
        ThreadCount, QueueLength, CompletedItems, LockContentions, HeapSizeMb, Gen0Collections, Gen1Collections, Gen2Collections,
        AllocationBytes, CpuPercent, WorkingSetMb, GcPauseMs,
    ];

    public const string ThreadCount = "threadpool-thread-count";
    public const string QueueLength = "threadpool-queue-length";
    public const string CompletedItems = "threadpool-completed-items-count";
    public const string LockContentions = "monitor-lock-contention-count";
    public const string HeapSizeMb = "gc-heap-size";
    public const string Gen0Collections = "gen-0-gc-count";
    public const string Gen1Collections = "gen-1-gc-count";
    public const string Gen2Collections = "gen-2-gc-count";
    public const string AllocationBytes = "alloc-rate";

    /// <summary>
    /// The process's CPU time (user + kernel, every thread) over the payload's IntervalSec, as a percent of all its
    /// processors: the runtime's CPU time since its poll before, over the wall time since then, divided by Environment.ProcessorCount.
    /// </summary>
    public const string CpuPercent = "cpu-usage";

    public const string WorkingSetMb = "working-set";

    /// <summary>The time the GC paused the process over the second, in ms (.NET 7+): what the GC's share of a step is read from.</summary>
    public const string GcPauseMs = "total-pause-time-by-gc";

    /// <summary>ASP.NET Core's own counter of requests in flight, read when the target hosts ASP.NET Core.</summary>
    public const string CurrentRequests = "current-requests";

    /// <summary>ASP.NET Core's count of requests since the process started, read when the target hosts ASP.NET Core.</summary>
    public const string TotalRequests = "total-requests";

    // The runtime's ThreadAdjustmentReasonMap, in value order (CooperativeBlocking arrived in .NET 8).
    private static readonly string[] Reasons =
        ["Warmup", "Initializing", "RandomMove", "ClimbingMove", "ChangePoint", "Stabilizing", PoolSample.StarvationReason, "ThreadTimedOut", PoolSample.CooperativeBlockingReason];

    private const long ThreadingKeyword = 0x10000;

    // ThreadPoolWorkerThreadAdjustment/Adjustment, the one event of the Threading keyword the observer reads: the keyword
    // also writes ThreadPoolWorkerThreadWait each time a pool thread goes idle, many times a second under load.
    private const uint AdjustmentEventId = 55;

    /// <summary>How long a runtime may take to answer the session's start (a local one answers in milliseconds).</summary>
    private static readonly TimeSpan AttachTimeout = TimeSpan.FromSeconds(30);
    private const int SessionBufferMegabytes = 256;
    private static readonly HashSet<string> Wanted = [.. Counters, CurrentRequests, TotalRequests];

    // ASP.NET Core's request duration histogram (Microsoft.AspNetCore.Hosting meter, .NET 8+), whose http.route tag is the
    // route pattern routing matched: the one instrument the route window (RoutesOverAsync) asks System.Diagnostics.Metrics
    // for. The runtime aggregates it on a thread of its own and publishes it once a second, one event per route and status.
    private const string MetricsProvider = "System.Diagnostics.Metrics";
    private const long TimeSeriesValuesKeyword = 0x2;
    private const string RequestDuration = "http.server.request.duration";
    private const string RouteTag = "http.route";
    private const string MethodTag = "http.request.method";
    private const int RouteWindowBufferMegabytes = 16;

    private readonly EventPipeSession _session;
    private readonly Thread _reader;
    private readonly List<RuntimeSample> _samples = [];
    private readonly List<ThreadAdjustment> _adjustments = [];
    private Dictionary<string, double>? _pending;
    private long _pendingTimestamp;
    private double _pendingWrittenSeconds;
    private double? _pendingCpuIntervalSeconds;
    private volatile bool _stopping;
    private EventPipeEventSource? _source;
    private int _disposed;

    private RuntimeObserver(DiagnosticsChannel channel, EventPipeSession session, bool lightSession)
    {
        Channel = channel;
        _session = session;
        LightSession = lightSession;
        _reader = new Thread(Read) { IsBackground = true, Name = $"runtime observer {channel.Process}" };
        _reader.Start();
    }

    /// <summary>The process observed and how it is reached.</summary>
    public DiagnosticsChannel Channel { get; }

    /// <summary>
    /// True when the runtime took the light session (.NET 10+): no stack with any event, and of the Threading keyword only
    /// the pool's adjustments. Such a runtime also writes AllocationSampled, which the cause trace then asks for (<see cref="CauseTrace.Providers"/>).
    /// </summary>
    public bool LightSession { get; }

    /// <summary>Why the series ended before the observer was stopped (the process exited, the channel broke), or null.</summary>
    public string? LostReason { get; private set; }

    /// <summary>
    /// Events the runtime dropped because the session's buffers were full (TraceEvent counts the gaps in their sequence
    /// numbers): a lost counter payload leaves its second out of every per-second sum (CPU, allocations, completed items).
    /// </summary>
    public int EventsLost => _source?.EventsLost ?? 0;

    /// <summary>
    /// Starts the session on <paramref name="channel"/>; throws <see cref="UsageException"/> naming the cause when a local
    /// process is not a .NET process this user can reach (see <see cref="ObserverTarget.Check"/>) or the channel does not
    /// answer within <see cref="AttachTimeout"/>. Asynchronous all the way: the runner's socket continuations run inline on
    /// the thread that polls the sockets (<see cref="ConcurrencySandbox.Contracts.Hosting.InlineSocketCompletions"/>), so a
    /// blocking read of the runtime's answer there would wait for the very thread that delivers it (a CI run hung so,
    /// about one attach in ten).
    /// </summary>
    public static async Task<RuntimeObserver> AttachAsync(DiagnosticsChannel channel, CancellationToken cancellationToken)
    {
        // Alive and this user's; whether it answers on its channel is the session's start below, asked asynchronously within
        // AttachTimeout: ObserverTarget.Check's synchronous ask hung here (c5201c6: 7 of 13 smoke runs at 4 busy loops
        // waited about 100 s before their first step, as the summary above says of a blocking read; CI, 2026-11-29).
        if (channel.ProcessId is { } processId)
        {
            ObserverTarget.CheckAlive(processId);
        }
        using var answered = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        answered.CancelAfter(AttachTimeout);
        try
        {
            var (session, light) = await StartSessionAsync(channel.Client, answered.Token);
            return new RuntimeObserver(channel, session, light);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw new UsageException($"cannot open {channel.Description} (no answer within {AttachTimeout.TotalSeconds:0} s)");
        }
        catch (Exception e) when (e is ServerNotAvailableException or UnsupportedCommandException or ServerErrorException or IOException or UnauthorizedAccessException or TimeoutException)
        {
            throw new UsageException($"cannot open {channel.Description} ({e.Message}); is it a .NET 5+ process run by this user with DOTNET_EnableDiagnostics not 0?");
        }
    }

    /// <summary>
    /// The session, as light as the target's runtime allows: on .NET 10 only the adjustment event of the Threading
    /// keyword and no stack with any event (by default the runtime walks the writing thread's stack for every event,
    /// and the keyword writes one each time a pool thread goes idle; docs/notebook/performance.md, "What the observer
    /// costs the service"); a runtime that refuses either (before .NET 10, before .NET 9) gets the session it
    /// answered to before.
    /// </summary>
    private static async Task<(EventPipeSession Session, bool Light)> StartSessionAsync(DiagnosticsClient client, CancellationToken cancellationToken)
    {
        try
        {
            return (await client.StartEventPipeSessionAsync(Session(new EventPipeProviderEventFilter(true, [AdjustmentEventId]), requestStackwalk: false), cancellationToken), true);
        }
        catch (Exception e) when (e is UnsupportedCommandException or ServerErrorException)
        {
            return (await client.StartEventPipeSessionAsync(Session(eventFilter: null, requestStackwalk: true), cancellationToken), false);
        }
    }

    /// <summary>
    /// The always-on session: counters and the pool's adjustments, nothing the service writes per request. ASP.NET Core's
    /// request-duration metric is not in it (<see cref="RoutesOverAsync"/>): while a listener holds it, the service records
    /// every request's duration with its tags (docs/notebook/performance.md, "Where the observer's cost goes").
    /// </summary>
    internal static EventPipeSessionConfiguration Session(EventPipeProviderEventFilter? eventFilter, bool requestStackwalk)
    {
        var providers = new[]
        {
            new EventPipeProvider("System.Runtime", EventLevel.Informational, 0, new Dictionary<string, string> { ["EventCounterIntervalSec"] = "1" }),
            // Counter payloads are written at LogAlways, so Critical still gets them; Informational would also turn on
            // HostingEventSource's RequestStart/RequestStop, two events per request (a quarter of the API's
            // throughput on compute/sync?cycles=1, scripts/observer-cost.sh).
            new EventPipeProvider("Microsoft.AspNetCore.Hosting", EventLevel.Critical, 0, new Dictionary<string, string> { ["EventCounterIntervalSec"] = "1" }),
            eventFilter is null
                ? new EventPipeProvider(ClrTraceEventParser.ProviderName, EventLevel.Informational, ThreadingKeyword)
                : new EventPipeProvider(ClrTraceEventParser.ProviderName, EventLevel.Informational, ThreadingKeyword, null, eventFilter),
        };
        // 256 MB, dotnet-trace's default: the runtime gives every thread that writes an event buffers of its own, so
        // a service starting a thread per request (receive's dedicated receivers: about 1,000 a second, each with
        // its ThreadCreating/ThreadRunning events) filled the 16 MB this asked for before and lost whole seconds of
        // counters (2-89 events per 3 s smoke variant), which is how a receive smoke run measured allocating at
        // 13 B per receive against the 177 B its receiving thread counts.
        return new EventPipeSessionConfiguration(providers, SessionBufferMegabytes, requestRundown: false, requestStackwalk: requestStackwalk);
    }

    /// <summary>The samples so far, oldest first.</summary>
    public IReadOnlyList<RuntimeSample> Samples
    {
        get
        {
            lock (_samples)
            {
                return [.. _samples];
            }
        }
    }

    public IReadOnlyList<ThreadAdjustment> Adjustments
    {
        get
        {
            lock (_samples)
            {
                return [.. _adjustments];
            }
        }
    }

    /// <summary>
    /// The requests ASP.NET Core's own metrics counted by the route routing matched ("GET /orders/{id:int}", the pattern as
    /// the application mapped it), in a session of its own that holds the request-duration histogram only until the first
    /// publication (one a second) that counted a request with a route, or <paramref name="window"/> at most: the route does
    /// not change over a run, and while the histogram is listened to the service records every request into it (a 3-s
    /// window was about a quarter of the observer's cost in a load's first seconds, docs/notebook/performance.md). Empty
    /// when the target does not host ASP.NET Core 8+, served no request in the window or refused the session.
    /// </summary>
    public Task<IReadOnlyDictionary<string, long>> RoutesOverAsync(TimeSpan window, CancellationToken cancellationToken) =>
        RoutesOverAsync(Channel.Client, window, cancellationToken);

    /// <summary>The route window of <see cref="RoutesOverAsync(TimeSpan, CancellationToken)"/> on <paramref name="client"/>'s process, without the always-on session.</summary>
    public static async Task<IReadOnlyDictionary<string, long>> RoutesOverAsync(DiagnosticsClient client, TimeSpan window, CancellationToken cancellationToken)
    {
        var sessionId = Guid.NewGuid().ToString("N");
        var routes = new Dictionary<string, long>();
        try
        {
            using var session = await client.StartEventPipeSessionAsync(RouteMetric(sessionId), requestRundown: false, RouteWindowBufferMegabytes, cancellationToken);
            var counted = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            var reading = Task.Run(() =>
            {
                using var source = new EventPipeEventSource(session.EventStream);
                source.Dynamic.All += e =>
                {
                    if (CountRoute(e, sessionId, routes))
                    {
                        counted.TrySetResult();
                    }
                };
                source.Process();
            }, CancellationToken.None);
            try
            {
                await Task.WhenAny(Task.Delay(window, cancellationToken), counted.Task);
                cancellationToken.ThrowIfCancellationRequested();
            }
            finally
            {
                await session.StopAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(5), CancellationToken.None);
                await reading.WaitAsync(TimeSpan.FromSeconds(5), CancellationToken.None);
            }
        }
        catch (Exception e) when (e is ServerNotAvailableException or UnsupportedCommandException or ServerErrorException or IOException or TimeoutException or EndOfStreamException
            or ObjectDisposedException or InvalidOperationException or FormatException)
        {
            // A process gone or refusing the session leaves the route to the metadata (ServedCode).
        }
        lock (routes)
        {
            return new Dictionary<string, long>(routes);
        }
    }

    /// <summary>The request-duration histogram of <paramref name="sessionId"/>'s session: one event per route and status a second, not one per request.</summary>
    private static EventPipeProvider RouteMetric(string sessionId) =>
        new(MetricsProvider, EventLevel.Informational, TimeSeriesValuesKeyword, new Dictionary<string, string>
        {
            ["SessionId"] = sessionId, ["Metrics"] = $"Microsoft.AspNetCore.Hosting\\{RequestDuration}", ["RefreshInterval"] = "1",
            ["MaxTimeSeries"] = "100", ["MaxHistograms"] = "20",
        });

    public static string ReasonName(int reason) => reason >= 0 && reason < Reasons.Length ? Reasons[reason] : $"reason {reason}";

    private void Read()
    {
        try
        {
            using var source = new EventPipeEventSource(_session.EventStream);
            _source = source;
            source.Dynamic.All += OnEvent;
            source.Clr.ThreadPoolWorkerThreadAdjustmentAdjustment += OnAdjustment;
            source.Process();
        }
        catch (Exception e) when (e is IOException or EndOfStreamException or ObjectDisposedException or InvalidOperationException or FormatException)
        {
            if (!_stopping)
            {
                // A process killed mid-event leaves a truncated stream: say what happened, not how the parser noticed.
                LostReason = ExitsSoon() ? "the process exited" : $"the diagnostics channel broke ({e.GetType().Name}: {e.Message})";
            }
        }
        lock (_samples)
        {
            Flush();
        }
        if (!_stopping && LostReason is null)
        {
            LostReason = Channel.HasExited() ? "the process exited" : "the runtime closed the diagnostics session";
        }
    }

    private void OnEvent(TraceEvent e)
    {
        if (e.EventName != "EventCounters" || e.PayloadValue(0) is not IDictionary<string, object> outer || outer["Payload"] is not IDictionary<string, object> payload)
        {
            return;
        }
        var name = payload.TryGetValue("Name", out var n) ? n as string : null;
        if (name is null || !Wanted.Contains(name))
        {
            return;
        }
        var isSum = payload.TryGetValue("CounterType", out var type) && type as string == "Sum";
        var value = Convert.ToDouble(payload[isSum ? "Increment" : "Mean"], System.Globalization.CultureInfo.InvariantCulture);
        lock (_samples)
        {
            // Each second's counters arrive together; a name seen twice starts the next second.
            if (_pending is not null && _pending.ContainsKey(name))
            {
                Flush();
            }
            if (_pending is null)
            {
                _pending = [];
                _pendingTimestamp = Stopwatch.GetTimestamp();
                // Both providers' counter groups are enabled by this one session and polled by the runtime's one poller
                // thread, so a second's payloads are written within milliseconds of each other.
                _pendingWrittenSeconds = e.TimeStampRelativeMSec / 1000;
            }
            _pending[name] = value;
            if (name == CpuPercent)
            {
                _pendingCpuIntervalSeconds = Convert.ToDouble(payload["IntervalSec"], System.Globalization.CultureInfo.InvariantCulture);
            }
            if (_pending.Count == Wanted.Count)
            {
                Flush();
            }
        }
    }

    /// <summary>
    /// Adds a request-duration histogram's requests to <paramref name="routes"/> by route; true at the end of a publication
    /// of <paramref name="sessionId"/>'s (its CollectionStop) once a route has been counted: every series of that second is in.
    /// </summary>
    private static bool CountRoute(TraceEvent e, string sessionId, Dictionary<string, long> routes)
    {
        if (e.ProviderName != MetricsProvider || e.PayloadByName("sessionId") as string != sessionId)
        {
            return false;
        }
        // MetricsEventSource's CollectionStop, a Stop opcode of its Collection task, which TraceEvent names so.
        if (e.EventName == "Collection/Stop")
        {
            lock (routes)
            {
                return routes.Count > 0;
            }
        }
        if (e.EventName != "HistogramValuePublished" || e.PayloadByName("instrumentName") as string != RequestDuration || e.PayloadByName("tags") is not string tags
            || e.PayloadByName("count") is not int count || count == 0 || RouteOf(tags) is not { } route)
        {
            return false;
        }
        lock (routes)
        {
            routes[route] = routes.GetValueOrDefault(route) + count;
        }
        return false;
    }

    /// <summary>"GET /orders/{id:int}" from a histogram's tags ("http.request.method=GET,http.route=/orders/{id:int},..."); null without a route (a request no endpoint matched).</summary>
    internal static string? RouteOf(string tags)
    {
        // A piece without "=" belongs to the value before it: a route's own comma ("{id:range(1,10)}").
        var pieces = new List<string>();
        foreach (var piece in tags.Split(','))
        {
            if (piece.Contains('=', StringComparison.Ordinal) || pieces.Count == 0)
            {
                pieces.Add(piece);
            }
            else
            {
                pieces[^1] += $",{piece}";
            }
        }
        var pairs = pieces.Select(t => t.Split('=', 2)).Where(p => p.Length == 2).DistinctBy(p => p[0]).ToDictionary(p => p[0], p => p[1]);
        return pairs.TryGetValue(RouteTag, out var route) && route.Length > 0
            ? $"{pairs.GetValueOrDefault(MethodTag, "*")} {route}"
            : null;
    }

    private void OnAdjustment(ThreadPoolWorkerThreadAdjustmentTraceData e)
    {
        var adjustment = new ThreadAdjustment(Stopwatch.GetTimestamp(), e.TimeStampRelativeMSec / 1000, e.NewWorkerThreadCount, ReasonName((int)e.Reason));
        lock (_samples)
        {
            _adjustments.Add(adjustment);
        }
    }

    private void Flush()
    {
        if (_pending is { Count: > 0 })
        {
            _samples.Add(new RuntimeSample(_pendingTimestamp, _pendingWrittenSeconds, _pending) { CpuIntervalSeconds = _pendingCpuIntervalSeconds });
        }
        _pending = null;
        _pendingCpuIntervalSeconds = null;
    }

    /// <summary>Whether the process is gone within a second: a killed process closes its channel a moment before it is reaped.</summary>
    private bool ExitsSoon()
    {
        for (var attempt = 0; attempt < 20; attempt++)
        {
            if (Channel.HasExited())
            {
                return true;
            }
            Thread.Sleep(50);
        }
        return false;
    }

    /// <summary>Stops the session and waits for the reader to drain what the runtime had sent.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 1)
        {
            return;
        }
        _stopping = LostReason is null;
        try
        {
            await _session.StopAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(5));
        }
        catch (Exception e) when (e is ServerNotAvailableException or ServerErrorException or IOException or TimeoutException or ObjectDisposedException)
        {
            // The process is already gone: the reader ends by itself.
        }
        await Task.Run(() => _reader.Join(TimeSpan.FromSeconds(5)));
        _session.Dispose();
    }
}
