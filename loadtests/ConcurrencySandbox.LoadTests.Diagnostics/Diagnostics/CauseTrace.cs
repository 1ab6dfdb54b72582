using System.Diagnostics.Tracing;
using System.Globalization;
using System.Text.RegularExpressions;
using ConcurrencySandbox.Contracts.Reports;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// A type or a method of the application and its share of the sampled allocation bytes: the method's line (the statement
/// most of its samples were in) and the method the JIT inlined it into, when it did.
/// </summary>
public sealed record AllocationSite(string Name, double Share, SourceLine? Line = null, string? InlinedInto = null)
{
    /// <summary>"ReportBuilder.Render (Program.cs:31)": the method or type with its line.</summary>
    public string Describe() => BlockingCall.Where(Name, Line, InlinedInto);
}

/// <summary>
/// What the runtime's allocation sampling saw over a trace (.NET 10's AllocationSampled: an object picked at random, about
/// one per 100 KB allocated, with its type and size, and with its stack the method that allocated it; before .NET 10,
/// GCAllocationTick, one each time about 100 KB more were allocated): the bytes the samples stand for, the types and the
/// application's allocating methods by their share of them.
/// </summary>
public sealed record AllocationSamples(int Samples, long SampledBytes, IReadOnlyList<AllocationSite> Types, IReadOnlyList<AllocationSite> Methods)
{
    /// <summary>How many types and methods the finding lists.</summary>
    public const int Listed = 3;

    /// <summary>
    /// The managed frames that called the allocator (each sample's leaf frame: <c>System.String.Concat</c>, or the
    /// application's method for a <c>new</c> of its own), framework's or not, each with its share of the sampled bytes.
    /// </summary>
    public IReadOnlyDictionary<string, double> Allocators { get; init; } = new Dictionary<string, double>();

    /// <summary>
    /// "System.String 81 % (about 3.9 MB per request), System.Byte[] 12 %; allocated in ReportBuilder.Render (Program.cs:31)
    /// 93 %": the types and methods that dominate, as shares of <paramref name="bytesPerRequest"/> (the counters' allocation
    /// per request over the step) when known.
    /// </summary>
    public string Describe(double? bytesPerRequest)
    {
        string Part(AllocationSite site) => bytesPerRequest is { } perRequest
            ? Invariant($"{site.Describe()} {100 * site.Share:0} % (about {Bytes(site.Share * perRequest)} per request)")
            : Invariant($"{site.Describe()} {100 * site.Share:0} %");
        var methods = Methods.Count == 0 ? "no method of the application on the sampled stacks" : string.Join(", ", Methods.Take(Listed).Select(Part));
        return Invariant($"{string.Join(", ", Types.Take(Listed).Select(Part))}; allocated in {methods} ({Samples} allocation samples, {Bytes(SampledBytes)} sampled)");
    }

    /// <summary>"3.9 MB", "48 KB", "512 B".</summary>
    public static string Bytes(double bytes) => bytes switch
    {
        >= 1_000_000 => Invariant($"{bytes / 1_000_000:0.#} MB"),
        >= 1_000 => Invariant($"{bytes / 1_000:0.#} KB"),
        _ => Invariant($"{bytes:0} B"),
    };
}

/// <summary>
/// One outgoing HTTP call of the service, as the runtime's HTTP client events show it (System.Net.Http RequestStart /
/// RequestStop, RequestLeftQueue): "pricing:5001/quotes/{id}" (host, port and path with ids folded), how many ended over the
/// trace, their latency, the time they waited in the connection pool's queue for a connection, and their statuses.
/// </summary>
public sealed record UpstreamCall(string Call, int Requests, double MeanMs, double P50Ms, double P99Ms, int QueuedRequests, double MeanQueueMs, IReadOnlyDictionary<int, int> Statuses)
{
    /// <summary>The share of the calls' time spent waiting for a connection from which the connection pool is the limit.</summary>
    public const double PoolLimitShare = 0.25;

    /// <summary>The share of the calls' time they spent in the connection pool's queue.</summary>
    public double QueueShare => Requests == 0 || MeanMs <= 0 ? 0 : QueuedRequests * MeanQueueMs / (Requests * MeanMs);

    /// <summary>Whether the service's connection pool to the host was the limit: the calls spent at least <see cref="PoolLimitShare"/> of their time waiting for a connection.</summary>
    public bool PoolWasTheLimit => QueueShare >= PoolLimitShare;

    /// <summary>
    /// The share of the requests' time these calls took over a trace of <paramref name="tracedSeconds"/>: the calls in flight
    /// on average (Little's law) over the <paramref name="requestsInFlight"/>, at most 1 (two calls in parallel can each take
    /// a whole request). Only calls that started and ended inside the trace were counted, which leaves out about one mean
    /// call's length at its end, so their summed time is spread over the trace less one mean call. Null when the trace's
    /// length or the requests in flight are not known, or the calls were too long for the trace to count them so.
    /// </summary>
    public double? ShareOfRequests(double tracedSeconds, double requestsInFlight)
    {
        var countedMs = (1000 * tracedSeconds) - MeanMs;
        return Requests > 0 && requestsInFlight > 0 && countedMs > 0 ? Math.Min(1, Requests * MeanMs / countedMs / requestsInFlight) : null;
    }

    /// <summary>
    /// The exchanges these calls made on the wire (System.Net.Http's RequestHeadersStart under each call's activity): more
    /// than <see cref="Requests"/> when a DelegatingHandler retried inside HttpClient.SendAsync, whose RequestStart and
    /// RequestStop are raised once around all its attempts; null when not read.
    /// </summary>
    public int? Attempts { get; init; }

    /// <summary>The statuses the attempts on the wire answered (ResponseHeadersStop's, .NET 8+), each with how many: the 503s a retrying handler hid behind a 200.</summary>
    public IReadOnlyDictionary<int, int> AttemptStatuses { get; init; } = new Dictionary<int, int>();

    /// <summary>"pricing:5001/quotes/{id}: 240 calls, 280 attempts on the wire (200 x 240, 503 x 40), p50 20 ms, p99 250 ms, 230 waited for a connection (mean 180 ms); 200 x 240".</summary>
    public string Describe()
    {
        var queued = QueuedRequests > 0 ? Invariant($", {QueuedRequests:0} waited in the connection pool's queue (mean {MeanQueueMs:0.#} ms)") : ", none waited for a connection";
        var statuses = string.Join(", ", Statuses.OrderByDescending(s => s.Value).Select(s => Invariant($"{(s.Key == 0 ? "failed" : s.Key.ToString(CultureInfo.InvariantCulture))} x {s.Value}")));
        var retried = Attempts > Requests ? $", {SummaryUpstreamCall.OnTheWire(Attempts.Value, AttemptStatuses)}" : "";
        return Invariant($"{Call}: {Requests} calls{retried}, p50 {P50Ms:0.#} ms, p99 {P99Ms:0.#} ms{queued}; {statuses}");
    }
}

/// <summary>
/// What the service's traces over one step saw of the two causes the counters cannot place: the allocations
/// (<see cref="AllocationSamples"/>, a short trace at the step's peak, <see cref="Record"/>) and the outgoing HTTP calls
/// (<see cref="UpstreamCall"/>, a trace of the HTTP client's events alone from the peak to the load's end,
/// <see cref="RecordCallsAsync"/>), the allocations' over <paramref name="Seconds"/>.
/// </summary>
public sealed partial record CauseTrace(double Seconds, AllocationSamples? Allocations, IReadOnlyList<UpstreamCall> Calls)
{
    /// <summary>How long the allocation trace runs: long enough for a few hundred allocation samples at a break, short enough to cost the step little.</summary>
    public static readonly TimeSpan Length = TimeSpan.FromSeconds(1);

    /// <summary>How long the calls' trace ran (from the peak, <see cref="CallsWindow"/> at most); 0 when none ran (the service held no outgoing connection at the peak, so it made no call).</summary>
    public double CallsSeconds { get; init; }

    /// <summary>
    /// The longest the calls' trace runs in a step, from its peak: held over a whole run it cost the API 11 % and 24 % more
    /// CPU per request (two runs' means) on a fan-out of 4 HTTP calls a request, 4.6-8.7 us a call (busy machine,
    /// docs/notebook/performance.md), so it is bounded: a 10 s step (the default) pays a fifth of that, under 5 % on that
    /// fan-out, and its calls rest on 2 s of them, not the 1 s they once shared with the allocation samples.
    /// </summary>
    public static readonly TimeSpan CallsWindow = TimeSpan.FromSeconds(2);

    /// <summary>
    /// The calls' trace ends sooner once it holds this much (and has run <see cref="CallsShortest"/>): its cost is a few
    /// microseconds a call, so a service making thousands of calls a second paid for 2 s of them what a few thousand
    /// calls already say. A fan-out's calls took 100-230 bytes each in the trace (System.Net.Http's five events of a call:
    /// 5.5 MB over 9 s at about 6,500 calls a second, 2026-11-30; header-events-cost.sh's 900 bytes a request of 4 calls),
    /// so this is 2,300-5,000 calls.
    /// </summary>
    internal const long CallsEnoughBytes = 512 * 1024;

    /// <summary>The least a calls' trace runs although it holds enough: a call slower than the trace cannot end in it, so a short trace would keep the fast calls only.</summary>
    internal static readonly TimeSpan CallsShortest = TimeSpan.FromMilliseconds(500);

    private const string HttpProvider = "System.Net.Http";

    // System.Net.Http's events the calls are read from (RequestStart, RequestStop, RequestFailed, RequestLeftQueue, and
    // per exchange on the wire RequestHeadersStart, ResponseHeadersStart and ResponseHeadersStop, which count a retrying
    // handler's attempts): a runtime that filters events (.NET 10) writes these alone, not the contents' starts and stops too.
    // The three header events cost the service about 2 % more CPU per request while traced, on a fan-out of 4 calls (busy
    // machine, docs/notebook/performance.md "The header events' cost"); the trace holds them 2 s a step at most.
    private static readonly uint[] CallEvents = [1, 2, 3, 6, 7, 11, 12];

    // The TPL's TasksFlowActivityIds keyword: with it the runtime gives each HTTP request's events the request's activity id, which pairs its start with its stop.
    private const string TplProvider = "System.Threading.Tasks.TplEventSource";
    private const long TasksFlowActivityIds = 0x80;

    // The calls' trace is copied to a file as it runs, the runtime's buffer between: a step's calls at a few thousand a second fit.
    private const int CallsBufferMegabytes = 64;

    /// <summary>How often a trace that ends with the load asks whether it has ended.</summary>
    internal static readonly TimeSpan LoadEndPoll = TimeSpan.FromMilliseconds(100);

    // The mean distance between two allocation samples of .NET 10's randomized sampling, in bytes ("about 100 KB"): an
    // object of s bytes is sampled with probability 1 - exp(-s / mean), so each sample stands for s over that many bytes.
    private const double SamplingMeanBytes = 100 * 1024;

    /// <summary>
    /// The allocation trace's providers: the allocation samples with a stack each (on .NET 10, <paramref name="allocationSampling"/>,
    /// the runtime's AllocationSampling keyword alone at Informational; before, the GC keyword at Verbose for
    /// GCAllocationTick, which brings every other verbose GC event with it); the rundown names the methods on the stacks.
    /// </summary>
    public static IReadOnlyList<EventPipeProvider> Providers(bool allocationSampling) =>
    [
        allocationSampling
            ? new(ClrTraceEventParser.ProviderName, EventLevel.Informational, (long)ClrTraceEventParser.Keywords.AllocationSampling)
            : new(ClrTraceEventParser.ProviderName, EventLevel.Verbose, (long)ClrTraceEventParser.Keywords.GC),
    ];

    /// <summary>
    /// The calls' trace's providers: System.Net.Http's events (with <paramref name="filtered"/>, only those the calls are
    /// read from) and the TPL's activity ids that pair them; no stack and no rundown: nothing in them is a method.
    /// </summary>
    public static IReadOnlyList<EventPipeProvider> CallProviders(bool filtered) =>
    [
        filtered
            ? new(HttpProvider, EventLevel.Informational, 0, null, new EventPipeProviderEventFilter(true, CallEvents))
            : new(HttpProvider, EventLevel.Informational),
        new(TplProvider, EventLevel.Informational, TasksFlowActivityIds),
    ];

    /// <summary>
    /// Traces the allocations of the process behind <paramref name="client"/> for <see cref="Length"/> to a file, read by
    /// <see cref="Read(RecordedTrace, CallSiteResolver)"/> once the load is over; <paramref name="allocationSampling"/> when
    /// its runtime writes AllocationSampled (.NET 10+).
    /// </summary>
    public static RecordedTrace Record(DiagnosticsClient client, bool allocationSampling) =>
        StackSampler.Record(client, Providers(allocationSampling), Length, null, null);

    /// <summary>
    /// Traces the outgoing HTTP calls of the process behind <paramref name="client"/> to a file for <paramref name="longest"/>,
    /// until <paramref name="loadRuns"/> says the load ended (polled every 100 ms) or, after <see cref="CallsShortest"/>,
    /// once the file holds <see cref="CallsEnoughBytes"/>, read by
    /// <see cref="Read(RecordedTrace, CallSiteResolver)"/> after it: a few events per call, without a stack (a runtime
    /// before .NET 10 refuses that session and gets every HTTP event with its stack).
    /// </summary>
    public static async Task<RecordedTrace> RecordCallsAsync(DiagnosticsClient client, TimeSpan longest, Func<bool> loadRuns, CancellationToken cancellationToken)
    {
        var trace = new RecordedTrace(Path.Combine(Path.GetTempPath(), $"sandbox-calls-{Guid.NewGuid():N}.nettrace"));
        try
        {
            using var session = await StartCallsSessionAsync(client, cancellationToken);
            await using var file = File.Create(trace.Path);
            var copy = session.EventStream.CopyToAsync(file, CancellationToken.None);
            var started = System.Diagnostics.Stopwatch.GetTimestamp();
            while (loadRuns() && System.Diagnostics.Stopwatch.GetElapsedTime(started) is var ran && ran < longest
                && (ran < CallsShortest || new FileInfo(trace.Path).Length < CallsEnoughBytes))
            {
                await Task.Delay(LoadEndPoll, cancellationToken);
            }
            await session.StopAsync(CancellationToken.None);
            await copy;
            return trace;
        }
        catch
        {
            trace.Dispose();
            throw;
        }
    }

    /// <summary>The calls' session, as light as the runtime allows: filtered and without stacks on .NET 10, else every HTTP event with its stack.</summary>
    private static async Task<EventPipeSession> StartCallsSessionAsync(DiagnosticsClient client, CancellationToken cancellationToken)
    {
        try
        {
            return await client.StartEventPipeSessionAsync(new EventPipeSessionConfiguration(CallProviders(filtered: true), CallsBufferMegabytes, requestRundown: false, requestStackwalk: false), cancellationToken);
        }
        catch (Exception e) when (e is UnsupportedCommandException or ServerErrorException)
        {
            return await client.StartEventPipeSessionAsync(CallProviders(filtered: false), requestRundown: false, CallsBufferMegabytes, cancellationToken);
        }
    }

    /// <summary>The allocation samples and the HTTP calls of a recorded trace, methods named with <paramref name="resolver"/>.</summary>
    public static CauseTrace Read(RecordedTrace trace, CallSiteResolver resolver) => trace.Read(log => Read(log, resolver));

    /// <summary>The allocation samples and the HTTP calls of one trace.</summary>
    public static CauseTrace Read(TraceLog log, CallSiteResolver resolver)
    {
        var ticks = new List<(string Type, long Bytes, ThreadStack Stack)>();
        var started = new Dictionary<Guid, (string Call, double AtMs)>();
        var queued = new Dictionary<Guid, double>();
        var failed = new HashSet<Guid>();
        var ended = new List<(string Call, double Ms, int Status, double? QueueMs, int Attempts, List<int> AttemptStatuses)>();
        // Each exchange on the wire is an activity of its own whose related activity is its call's: a handler's retries are
        // several under one RequestStart; a response's status comes on its ResponseHeadersStop, by the response's activity.
        var attempts = new Dictionary<Guid, int>();
        var responses = new Dictionary<Guid, Guid>();
        var attemptStatuses = new Dictionary<Guid, List<int>>();
        foreach (var e in log.Events)
        {
            if (e is AllocationSampledTraceData sample)
            {
                ticks.Add((sample.TypeName, (long)Represented(sample.ObjectSize), StackOf(log, e)));
            }
            else if (e is GCAllocationTickTraceData tick)
            {
                ticks.Add((tick.TypeName, tick.AllocationAmount64, StackOf(log, e)));
            }
            else if (e.ProviderName == HttpProvider)
            {
                switch (e.EventName)
                {
                    case "RequestStart" or "Request/Start":
                        started[e.ActivityID] = (CallName((string)e.PayloadByName("host"), Convert.ToInt32(e.PayloadByName("port"), CultureInfo.InvariantCulture), (string)e.PayloadByName("pathAndQuery")), e.TimeStampRelativeMSec);
                        break;
                    case "RequestLeftQueue":
                        queued[e.ActivityID] = Convert.ToDouble(e.PayloadByName("timeOnQueueMilliseconds"), CultureInfo.InvariantCulture);
                        break;
                    case "RequestFailed":
                        failed.Add(e.ActivityID);
                        break;
                    case "RequestHeadersStart" or "RequestHeaders/Start" when started.ContainsKey(e.RelatedActivityID):
                        attempts[e.RelatedActivityID] = attempts.GetValueOrDefault(e.RelatedActivityID) + 1;
                        break;
                    case "ResponseHeadersStart" or "ResponseHeaders/Start" when started.ContainsKey(e.RelatedActivityID):
                        responses[e.ActivityID] = e.RelatedActivityID;
                        break;
                    case "ResponseHeadersStop" or "ResponseHeaders/Stop" when responses.Remove(e.ActivityID, out var answered) && e.PayloadByName("statusCode") is int answer:
                        if (!attemptStatuses.TryGetValue(answered, out var answers))
                        {
                            attemptStatuses[answered] = answers = [];
                        }
                        answers.Add(answer);
                        break;
                    case "RequestStop" or "Request/Stop" when started.Remove(e.ActivityID, out var start):
                        // A failed request's stop follows its RequestFailed: status 0, "failed".
                        var status = failed.Remove(e.ActivityID) || e.PayloadByName("statusCode") is not int code ? 0 : code;
                        ended.Add((start.Call, e.TimeStampRelativeMSec - start.AtMs, status, queued.Remove(e.ActivityID, out var q) ? q : null,
                            attempts.Remove(e.ActivityID, out var tries) ? tries : 0, attemptStatuses.Remove(e.ActivityID, out var statuses) ? statuses : []));
                        break;
                }
            }
        }
        var calls = ended.GroupBy(c => c.Call)
            .Select(g =>
            {
                var ms = g.Select(c => c.Ms).Order().ToList();
                var waited = g.Where(c => c.QueueMs is > 0).Select(c => c.QueueMs!.Value).ToList();
                return new UpstreamCall(g.Key, ms.Count, ms.Average(), Percentile(ms, 0.5), Percentile(ms, 0.99), waited.Count, waited.Count == 0 ? 0 : waited.Average(),
                    g.GroupBy(c => Math.Max(0, c.Status)).ToDictionary(s => s.Key, s => s.Count()))
                {
                    Attempts = g.Sum(c => c.Attempts) is > 0 and var tried ? tried : null,
                    AttemptStatuses = g.SelectMany(c => c.AttemptStatuses).GroupBy(status => status).ToDictionary(s => s.Key, s => s.Count()),
                };
            })
            .OrderByDescending(c => c.P99Ms)
            .ToList();
        return new CauseTrace(log.SessionDuration.TotalSeconds, Allocated(ticks, resolver), calls);
    }

    /// <summary>The bytes one AllocationSampled event of an <paramref name="objectBytes"/>-byte object stands for: its size over its chance of being sampled.</summary>
    internal static double Represented(long objectBytes) => objectBytes <= 0 ? SamplingMeanBytes : objectBytes / -double.ExpM1(-objectBytes / SamplingMeanBytes);

    private static double Percentile(List<double> sorted, double quantile) => sorted[Math.Clamp((int)Math.Ceiling(quantile * sorted.Count) - 1, 0, sorted.Count - 1)];

    /// <summary>The types and the application's methods by their share of the sampled bytes; null without a sample.</summary>
    private static AllocationSamples? Allocated(List<(string Type, long Bytes, ThreadStack Stack)> ticks, CallSiteResolver resolver)
    {
        var total = ticks.Sum(t => t.Bytes);
        if (ticks.Count == 0 || total == 0)
        {
            return null;
        }
        var types = ticks.GroupBy(t => t.Type).Select(g => new AllocationSite(g.Key, (double)g.Sum(t => t.Bytes) / total)).OrderByDescending(t => t.Share).ToList();
        var methods = ticks
            .Select(t => (t.Bytes, Site: Allocator(t.Stack, resolver)))
            .Where(t => t.Site is not null)
            .GroupBy(t => (t.Site!.Name, t.Site.InlinedInto))
            .Select(g => new AllocationSite(g.Key.Name, (double)g.Sum(t => t.Bytes) / total,
                g.GroupBy(t => t.Site!.Line).OrderByDescending(l => l.Count()).First().Key, g.Key.InlinedInto))
            .OrderByDescending(m => m.Share)
            .ToList();
        return new AllocationSamples(ticks.Count, total, types, methods)
        {
            Allocators = ticks.Where(t => t.Stack.Frames.Count > 0).GroupBy(t => t.Stack.Frames[0]).ToDictionary(g => g.Key, g => (double)g.Sum(t => t.Bytes) / total),
        };
    }

    /// <summary>The application's method that allocated: the leaf-most user frame, or the method the JIT inlined into it (<see cref="HotMethods.Inlined"/>); null when no user frame.</summary>
    private static AllocationSite? Allocator(ThreadStack stack, CallSiteResolver resolver)
    {
        var user = BlockingSites.UserFrame(stack);
        if (user < 0)
        {
            return null;
        }
        var name = SourceNames.Describe(stack.Frames[user]);
        if (HotMethods.Inlined(stack, user, resolver) is { } inlined)
        {
            return new AllocationSite(inlined.Method, 0, inlined.Line, name);
        }
        return new AllocationSite(name, 0, resolver.Place(stack, user) is { } place ? place.Method.Module.LineOf(place.Method.Token, place.ILOffset) : null);
    }

    /// <summary>The event's managed stack, leaf first, as the stack sampler names frames.</summary>
    private static ThreadStack StackOf(TraceLog log, TraceEvent e)
    {
        var frames = new List<string>();
        var locations = new List<FrameLocation?>();
        for (var frame = e.CallStack(); frame is not null; frame = frame.Caller)
        {
            if (frame.CodeAddress.Method is null)
            {
                continue;
            }
            frames.Add(StackSampler.ShortName(frame.CodeAddress.FullMethodName));
            locations.Add(StackSampler.LocationOf(log, frame.CodeAddress.CodeAddressIndex));
        }
        return new ThreadStack(e.ThreadID, frames) { Locations = locations };
    }

    // A path segment that is an id: digits, a GUID, or a long run of hex digits.
    [GeneratedRegex(@"^(\d+|[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}|[0-9a-fA-F]{16,})$")]
    private static partial Regex IdSegment();

    /// <summary>"pricing:5001/quotes/{id}": the host, port and path of a call, its query dropped and its ids folded.</summary>
    public static string CallName(string host, int port, string pathAndQuery)
    {
        var path = pathAndQuery.Split('?', 2)[0];
        var folded = string.Join('/', path.Split('/').Select(segment => IdSegment().IsMatch(segment) ? "{id}" : segment));
        return Invariant($"{host}:{port}{folded}");
    }
}
