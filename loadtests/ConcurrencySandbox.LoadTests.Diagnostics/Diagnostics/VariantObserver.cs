using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>A thread-pool adjustment placed on the variant's time axis.</summary>
public sealed record AdjustmentMark(double ElapsedSeconds, int NewWorkerThreadCount, string Reason);

/// <summary>What the observer saw during one variant: its series' health, the pool's adjustments, the blocking stacks and the diagnosis.</summary>
/// <param name="Process">The observed process as <see cref="DiagnosticsChannel.Process"/> names it ("pid 1234", "container 0123456789ab").</param>
public sealed record VariantObservation(
    string Process,
    int Samples,
    double LongestGapSeconds,
    IReadOnlyList<AdjustmentMark> Adjustments,
    BlockingSites? Stacks,
    string? StacksNote,
    StarvationDiagnosis? Diagnosis,
    string? LostReason)
{
    public IReadOnlyDictionary<string, int> AdjustmentsByReason =>
        Adjustments.GroupBy(a => a.Reason).OrderByDescending(g => g.Count()).ToDictionary(g => g.Key, g => g.Count());

    /// <summary>Events the runtime dropped from the session (<see cref="RuntimeObserver.EventsLost"/>): the counters' sums miss those seconds.</summary>
    public int EventsLost { get; init; }

    /// <summary>Where the service's CPU went while the stack sample ran (<see cref="HotMethods"/>), or null without a sample.</summary>
    public HotMethods? Hot { get; init; }

    /// <summary>The allocations and outgoing HTTP calls a short trace at the peak saw (<see cref="CauseTrace"/>), or null when none was taken (<see cref="CauseTraceNote"/> says why).</summary>
    public CauseTrace? Causes { get; init; }

    /// <summary>Why <see cref="Causes"/> is missing: the load never reached its peak, or the runtime refused the trace; null when taken.</summary>
    public string? CauseTraceNote { get; init; }

    /// <summary>
    /// Whether the service held a TCP connection it opened when the load reached its peak (<see cref="ListeningSockets.HoldsOutgoingConnection(int)"/>):
    /// false for one that calls no dependency over TCP; null when not read (a container's process, another user's, no peak).
    /// </summary>
    public bool? HoldsOutgoingConnection { get; init; }

    /// <summary>Who held the machine's cores over the variant's busiest second or so (<see cref="CoreUse"/>), or null when /proc could not be read for the process.</summary>
    public CoreUse? Cores { get; init; }

    /// <summary>Whether the series covers the variant: the process stayed to the end and no event was lost.</summary>
    public bool Complete => LostReason is null && EventsLost == 0;

    /// <summary>The series in words: "complete", or how it ended early or lost events.</summary>
    public string Series => LostReason is { } lost ? $"ENDED EARLY: {lost}"
        : EventsLost > 0 ? $"INCOMPLETE: {EventsLost} runtime events lost (the session's buffers were full), so the per-second sums miss those seconds"
        : "complete";
}

/// <summary>
/// The observer attached to one variant's process: feeds the variant's telemetry rows (no HTTP), samples the blocking
/// stacks once when the load first reaches its peak, and afterwards sizes the fix from what was measured.
/// </summary>
/// <param name="loadSeconds">How long the load lasts (its shape's duration): the stack sample is taken while it runs.</param>
/// <param name="requestPath">The path the load requests ("/orders/1"), whose endpoint the call sites are looked for from; null when not a path.</param>
public sealed class VariantObserver(RuntimeObserver observer, int processorCount, double peakLoad, double loadSeconds, string? requestPath = null) : IOutOfBandTelemetry, IAsyncDisposable
{
    private const int StackRounds = 3;
    // Let the peak step's blocking build up before looking at it: 1 s, or a quarter of what is left of a shorter load.
    private static readonly TimeSpan SettleAtPeak = TimeSpan.FromSeconds(1);
    // The counters are published once a second: one sample past the end covers the run's last second.
    private static readonly TimeSpan LastSampleWait = TimeSpan.FromSeconds(1.5);
    private static readonly TimeSpan PollPeriod = TimeSpan.FromMilliseconds(50);

    // A sample that found no pool thread in user code is taken again, up to this many times, while the peak lasts, when
    // the service held at least HeldShare of the load's requests in flight (MayLookAgain).
    private const int StackAttempts = 3;
    private static readonly TimeSpan ResampleGap = TimeSpan.FromSeconds(1);
    public const double HeldShare = 0.5;
    // The runner's last interval: its rate and mean latency say how many requests the load had in flight.
    private volatile IntervalRow? _lastInterval;

    // The route ASP.NET Core matched does not change over a run: its metric is read over this window once requests flow
    // (RuntimeObserver.RoutesOverAsync: to its first publication that counted a route, this long at most), not for the
    // whole run, and the stack sample's names are checked against it.
    private static readonly TimeSpan RouteWindow = TimeSpan.FromSeconds(3);

    private Task<IReadOnlyDictionary<string, long>>? _routes;
    private Task<(IReadOnlyList<ThreadStack>? Stacks, string? Note, IReadOnlyList<SampleRound>? Rounds)>? _stacks;
    private Task<(RecordedTrace? Trace, string? Note)>? _causes;
    private Task<(RecordedTrace? Trace, string? Note)>? _calls;
    // Whether the service held a TCP connection it opened at the peak (null: not read); without one no calls' trace is taken: it made no call.
    private bool? _holdsOutgoingConnection;
    // The run's one call-site resolver (each module's IL and PDB read once), built with the route window's routes.
    private CallSiteResolver? _resolver;
    // Who held the cores: read as the observer starts, with each interval, and as the load ends.
    private readonly List<CoreReading> _cores = [.. CoreReading.Take(observer.Channel.ProcessId) is { } first ? [first] : Array.Empty<CoreReading>()];
    private volatile bool _loadEnded;

    /// <summary>The observed process and how it is reached.</summary>
    public DiagnosticsChannel Channel => observer.Channel;

    private long _startedTimestamp;

    public IReadOnlyList<TelemetryRow> RowsSince(VariantKey variant, long startedTimestamp)
    {
        _startedTimestamp = startedTimestamp;
        return ObservedTelemetry.Rows(variant, startedTimestamp, observer.Samples, processorCount);
    }

    /// <summary>The pool's adjustments seen so far in the variant (for the live page), placed on its time axis.</summary>
    public IReadOnlyList<AdjustmentMark> Marks() => MarksSince(_startedTimestamp);

    private IReadOnlyList<AdjustmentMark> MarksSince(long startedTimestamp) => ObservedTelemetry.Marks(startedTimestamp, observer.Samples, observer.Adjustments);

    /// <summary>Called with each interval row: the first one at the peak load starts the stack sample.</summary>
    public void OnInterval(IntervalRow row, CancellationToken cancellationToken)
    {
        TakeCoreReading();
        _lastInterval = row;
        if (_routes is null && row.Load > 0 && observer.LostReason is null)
        {
            _routes = observer.RoutesOverAsync(RouteWindow, cancellationToken);
        }
        if (_stacks is null && row.Load >= peakLoad && observer.LostReason is null)
        {
            var left = TimeSpan.FromSeconds(Math.Max(0, loadSeconds - row.ElapsedSeconds));
            var loadEnds = Stopwatch.GetTimestamp() + (long)(left.TotalSeconds * Stopwatch.Frequency);
            bool LoadRuns() => !_loadEnded && Stopwatch.GetTimestamp() < loadEnds;
            _stacks = SampleStacksAsync(left, LoadRuns, cancellationToken);
            _causes = RecordedOrWhyNotAsync(async () =>
            {
                await Task.Delay(Settle(left), cancellationToken);
                return await Task.Run(() => CauseTrace.Record(observer.Channel.Client, allocationSampling: observer.LightSession), cancellationToken);
            }, "the allocation trace");
            // A local service that holds no connection it opened makes no HTTP call to trace; the calls' trace is then not
            // taken: its TPL keyword turns the service's activity tracking on for good, and from then on every request pays
            // for it while the always-on session holds ASP.NET Core's counters (docs/notebook/performance.md).
            _holdsOutgoingConnection = observer.Channel.ProcessId is { } processId ? ListeningSockets.HoldsOutgoingConnection(processId) : null;
            _calls = _holdsOutgoingConnection == false
                ? Task.FromResult<(RecordedTrace?, string?)>((null, null))
                : RecordedOrWhyNotAsync(() => CauseTrace.RecordCallsAsync(observer.Channel.Client, CauseTrace.CallsWindow, LoadRuns, cancellationToken), "the HTTP client's trace");
        }
    }

    /// <summary>Let the peak step's blocking build up before looking at it: <see cref="SettleAtPeak"/>, or a quarter of what is left of a shorter load.</summary>
    private static TimeSpan Settle(TimeSpan left) => left / 4 < SettleAtPeak ? left / 4 : SettleAtPeak;

    /// <summary>
    /// One of the step's cause traces, each in a session of its own, the light session's providers
    /// (<see cref="RuntimeObserver.LightSession"/>) left as they are: the allocation trace at the peak, beside the stack
    /// sample, for <see cref="CauseTrace.Length"/> (the allocation samples and their stacks cost the service only over that
    /// second), and the HTTP client's calls from the peak for <see cref="CauseTrace.CallsWindow"/> or to the load's end
    /// (a few events per call, no stack). Only
    /// recorded here: they are read after the load (<see cref="FinishAsync"/>), so their reading takes no core from the
    /// service under load. A runtime that refuses one leaves GC and the upstream to the counters, said.
    /// </summary>
    private static async Task<(RecordedTrace?, string?)> RecordedOrWhyNotAsync(Func<Task<RecordedTrace>> record, string trace)
    {
        try
        {
            return (await record(), null);
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            return (null, $"the runtime refused {trace} ({e.GetType().Name}: {e.Message}), so GC and the upstream are named from the counters only");
        }
    }

    /// <summary>
    /// The stack sample at the peak, one stack per thread; grouped by call site after the load (<see cref="FinishAsync"/>),
    /// as its rounds are read for <see cref="HotMethods"/>: naming a call site reads the modules' IL and PDBs (and on a
    /// blocked service its sources), work that would take a core from the service under load. A sample is read under the
    /// load only when it may be taken again (<see cref="MayLookAgain"/>): one that shows no pool thread in user code is
    /// then taken again while the load runs (a busy machine's service still taking its first requests), up to
    /// <see cref="StackAttempts"/> times. Otherwise its trace is kept and read once the load is over: TraceLog's conversion
    /// of its rundown, and the resolver the grouping may need, cost the runner a core for a while, which under the load
    /// is taken from the service (turns 1-5 of scripts/observer-cost.sh, 2026-11-29: the runner 13.7-16.0 us per request
    /// against 11.5-11.6 plain, three samples read on compute/sync, whose requests spend their time outside the service).
    /// Whether a pool thread is in user code is read from the stacks alone first, then with the resolver (it may find a
    /// user method inlined away).
    /// </summary>
    private async Task<(IReadOnlyList<ThreadStack>?, string?, IReadOnlyList<SampleRound>?)> SampleStacksAsync(TimeSpan left, Func<bool> loadRuns, CancellationToken cancellationToken)
    {
        try
        {
            await Task.Delay(Settle(left), cancellationToken);
            for (var attempt = 1; ; attempt++)
            {
                using var recorded = await StackSampler.RecordRoundsAsync(observer.Channel.Client, StackRounds, cancellationToken, loadRuns, observer.Channel.ProcessId);
                var lookAgain = attempt < StackAttempts && loadRuns() && MayLookAgain(observer.Samples, _lastInterval);
                while (!lookAgain && loadRuns())
                {
                    await Task.Delay(CauseTrace.LoadEndPoll, cancellationToken);
                }
                var rounds = recorded.Read();
                var stacks = StackSampler.Combine(rounds);
                var inUserCode = BlockingSites.Group(stacks).AnyInUserCode || BlockingSites.Group(stacks, await ResolverAsync()).AnyInUserCode;
                if (!inUserCode && recorded.EndedAfterLoad)
                {
                    // A sample that ended after the load did and found no pool thread in user code does not say what they did under it.
                    return (null, Invariant($"the stack sample ended after the load did ({left.TotalSeconds:0.#} s of it were left at the peak) and found no pool thread in user code, so it names no call site"), null);
                }
                if (inUserCode || !lookAgain)
                {
                    return (stacks, attempt == 1 ? null : Invariant($"sampled {attempt} times: the earlier samples found no pool thread in user code"), rounds);
                }
                await Task.Delay(ResampleGap, cancellationToken);
            }
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            // A failed stack sample costs the report its call sites, never the load run.
            return (null, $"the stack sample failed: {e.GetType().Name}: {e.Message}", null);
        }
    }

    /// <summary>
    /// Whether a second look may find what the first did not: the service held at least <see cref="HeldShare"/> of the
    /// load's requests in flight (the runner's rate times its mean latency over its last interval, Little's law) at its
    /// last two counter samples (ASP.NET Core's current-requests), so the requests spend their time inside it, where a
    /// blocked or still-starting pool thread would hold them. A service whose requests spend most of their time outside it
    /// (in the network and the client: a fast endpoint, 0-3 of 16 users' requests in it) has no thread a second sample
    /// could catch holding one. Unknown (no interval answered, no current-requests counter): true, as before.
    /// </summary>
    public static bool MayLookAgain(IReadOnlyList<RuntimeSample> samples, IntervalRow? lastInterval)
    {
        var held = samples.TakeLast(2).Select(s => s[RuntimeObserver.CurrentRequests]).OfType<double>().ToList();
        return lastInterval is not { RequestsPerSecond: > 0 } row || held.Count == 0
            || held.Max() >= HeldShare * row.RequestsPerSecond * row.Stats.MeanMs / 1000;
    }

    /// <summary>
    /// Stops observing and puts together what was seen during <paramref name="result"/>; the result comes back with its
    /// telemetry rows completed by the counters of its last second, which arrive up to a second after it ended.
    /// </summary>
    public async Task<(VariantResult Result, VariantObservation Observation)> FinishAsync(VariantResult result)
    {
        _loadEnded = true;
        TakeCoreReading();
        var startedTimestamp = _startedTimestamp;
        var ended = Stopwatch.GetTimestamp();
        const string neverAtPeak = "the load never reached its peak while observed";
        var (stacks, note, rounds) = _stacks is null ? (null, neverAtPeak, null) : await _stacks;
        var (recorded, causesNote) = _causes is null ? (null, neverAtPeak) : await _causes;
        var (recordedCalls, callsNote) = _calls is null ? (null, neverAtPeak) : await _calls;
        // Read now that the load is over: the stack sample's call sites and hot methods, and the cause trace.
        var resolver = await ResolverAsync();
        var sites = stacks is null ? null : BlockingSites.Group(stacks, resolver);
        var hot = rounds is null ? null : HotMethods.From(rounds, resolver);
        var (causes, causesReadNote) = ReadCauses(recorded, recordedCalls, _holdsOutgoingConnection == false, resolver);
        causesNote ??= callsNote ?? causesReadNote;
        for (var waited = TimeSpan.Zero; waited < LastSampleWait && observer.LostReason is null && !observer.Samples.Any(s => s.Timestamp > ended); waited += PollPeriod)
        {
            await Task.Delay(PollPeriod);
        }
        await observer.DisposeAsync();
        result = result with { Telemetry = RowsSince(result.Key, startedTimestamp) };
        var samples = observer.Samples.Where(s => s.Timestamp >= startedTimestamp).ToList();
        var gaps = samples.Zip(samples.Skip(1), (a, b) => Stopwatch.GetElapsedTime(a.Timestamp, b.Timestamp).TotalSeconds);
        var marks = MarksSince(startedTimestamp);
        return (result, new VariantObservation(observer.Channel.Process, samples.Count, gaps.DefaultIfEmpty(0).Max(), marks, sites, note,
            Diagnose(result, sites, marks, causes), observer.LostReason) { EventsLost = observer.EventsLost, Cores = CoreUse.Busiest(_cores, Environment.ProcessorCount), Hot = hot, Causes = causes, CauseTraceNote = causesNote, HoldsOutgoingConnection = _holdsOutgoingConnection });
    }

    /// <summary>
    /// The recorded allocation and calls traces read into one cause trace (and their files deleted), or why it could not
    /// be: both or none, for a cause trace without its calls would read as one that saw no call; unless
    /// <paramref name="callsNeedNoTrace"/> (the service held no outgoing connection): then no call, and no calls' seconds.
    /// </summary>
    private static (CauseTrace?, string?) ReadCauses(RecordedTrace? recorded, RecordedTrace? recordedCalls, bool callsNeedNoTrace, CallSiteResolver resolver)
    {
        using (recorded)
        using (recordedCalls)
        {
            if (recorded is null || (recordedCalls is null && !callsNeedNoTrace))
            {
                return (null, null);
            }
            try
            {
                // The allocation trace holds no HTTP event: read alone, it says no call.
                var allocations = CauseTrace.Read(recorded, resolver);
                if (recordedCalls is null)
                {
                    return (allocations, null);
                }
                var calls = CauseTrace.Read(recordedCalls, resolver);
                return (allocations with { Calls = calls.Calls, CallsSeconds = calls.Seconds }, null);
            }
            catch (Exception e) when (e is not OperationCanceledException)
            {
                return (null, $"the allocation and HTTP trace could not be read ({e.GetType().Name}: {e.Message}), so GC and the upstream are named from the counters only");
            }
        }
    }

    /// <summary>The run's resolver, built on first use once the route window is over: after the load, unless a stack sample under it showed no frame of user code (<see cref="SampleStacksAsync"/>).</summary>
    private async Task<CallSiteResolver> ResolverAsync()
    {
        var routes = _routes is null ? null : await _routes;
        if (_resolver is null)
        {
            _resolver = new CallSiteResolver(requestPath, routes);
            ResolversBuilt++;
        }
        return _resolver;
    }

    /// <summary>How many call-site resolvers the run built: one at most, shared by the stack sample's grouping, its hot methods and the cause trace.</summary>
    internal int ResolversBuilt { get; private set; }

    /// <summary>Whether the stack sample at the peak has been taken (and the decision to look again made).</summary>
    internal bool StackSampleTaken => _stacks?.IsCompleted == true;

    private void TakeCoreReading()
    {
        if (CoreReading.Take(observer.Channel.ProcessId) is { } reading)
        {
            _cores.Add(reading);
        }
    }

    /// <summary>
    /// The diagnosis of one observed run: Little's law's need (requests in flight x the threads each holds), the run's
    /// samples read for a starved spell (with the outgoing HTTP calls of <paramref name="causes"/>, the step's cause trace,
    /// null when none ran), and the call site of <paramref name="sites"/>; null without telemetry or requests.
    /// </summary>
    public static StarvationDiagnosis? Diagnose(VariantResult result, BlockingSites? sites, IReadOnlyList<AdjustmentMark> marks, CauseTrace? causes = null)
    {
        if (result.Telemetry.Count == 0 || result.Total.Requests == 0)
        {
            return null;
        }
        var (inFlight, basis) = result.LoadUnit == "rate"
            ? (result.PeakLoad * result.Total.MinMs / 1000, Invariant($"{result.PeakLoad:0.#} requests/s x the fastest request's {result.Total.MinMs:0} ms"))
            : (result.PeakLoad, "the peak's users, each waiting for its answer");
        // The work the requests queued (done or still queued) over the requests that reached the server (answered, or still
        // there after the client gave up): a starved fan-out leaves most of its calls queued and its requests unanswered.
        var last = result.Telemetry[^1].Snapshot;
        var workItemsPerRequest = (last.ThreadPool.CompletedWorkItemCount + last.ThreadPool.PendingWorkItemCount) / (double)Math.Max(1, result.Total.Ok + last.InFlightRequests);
        var threads = result.Telemetry.Select(t => (t.ElapsedSeconds, t.Snapshot.ThreadPool.ThreadCount)).ToList();
        // Queued work blocks when the stacks caught pool threads blocking outside a request; only without a stack sample
        // does a queue longer than the requests in flight stand for it (with one, that queue is the server's own items).
        var blocksQueuedWork = sites?.BlocksQueuedWork ?? result.PeakQueue > inFlight;
        // A stack sample that found no pool thread in user code: the requests in flight held none while they waited;
        // unless the runtime injected a thread for Starvation (queued work made no progress for half a second), which
        // says something held the pool's threads that the one sample missed (said so, but no starvation: noneBlocked below).
        var holdNone = sites is { AnyInUserCode: false } && !marks.Any(m => m.Reason == PoolSample.StarvationReason);
        // Pool threads in user code, every one running and none blocked: the requests hold their threads to compute, which
        // more threads would not speed up (the cores bound them), so they need none blocked, whatever the pool's injections.
        var runNotBlock = sites is { RunsWithoutBlocking: true };
        // A stack sample with no pool thread parked in a wait: nothing sampled blocks, so the pool starved of nothing,
        // whatever the queue or the injections (Starvation ones included) say; the requests hold no thread blocked. Without
        // a sample, pool adjustments seen and none of them the runtime's word that threads blocked (a Starvation or
        // CooperativeBlocking injection): hill climbing's moves alone are no starvation. With neither, Little's law as before.
        var noneBlocked = sites is null
            ? marks.Count > 0 && !marks.Any(m => m.Reason is PoolSample.StarvationReason or PoolSample.CooperativeBlockingReason)
            : sites.Top is null;
        var estimated = StarvationDiagnosis.ThreadsPerRequest(blocksQueuedWork, workItemsPerRequest);
        var threadsPerRequest = noneBlocked ? 0 : StarvationDiagnosis.MeasuredThreadsPerRequest(PoolSamples(result, marks, estimated, sites, causes), estimated);
        // The CPU between the first and the last sample of the load, over the requests that ended between them (not the
        // whole run's: the first sample comes a second or so into the load, and its CPU before that is not in the difference).
        var cpuMsPerRequest = result.CountedSpan()?.PerRequest(s => s.Process.CpuTimeMs);
        return StarvationDiagnosis.From(new DiagnosisInputs(
            inFlight,
            basis,
            threadsPerRequest,
            result.PeakThreads ?? 0,
            StarvationDiagnosis.Growth(threads),
            result.PeakQueue ?? 0,
            marks.Count(m => m.Reason == PoolSample.StarvationReason),
            sites?.DescribeHolding())
        {
            Spell = StarvedSpell.Of(PoolSamples(result, marks, threadsPerRequest, sites, causes), result.Sent),
            BlockingMethod = sites?.MethodToChange,
            AlsoBlocking = sites is null ? [] : [.. sites.Holding.Skip(1).Select(BlockingSites.MethodOf)],
            BlockingCandidates = sites?.Top?.Source?.Candidates ?? 1,
            BlockingBackground = sites?.Top?.Source?.Background,
            BusySite = runNotBlock && sites?.TopBusy is { } busy ? sites.Describe(busy) : null,
            NoneSampledBlocked = noneBlocked,
            HoldMs = result.Total.MinMs,
            HoldIsLowerBound = result.Total.Min.IsLowerBound,
            CpuMsPerRequest = cpuMsPerRequest,
            ProcessorCount = last.ProcessorCount,
            LoadUnit = result.LoadUnit,
            RequestsHoldNoPoolThread = holdNone,
        });
    }

    /// <summary>
    /// The run's samples with the threads the load needed at each (the load of the interval the sample fell in, in
    /// flight by Little's law, times the threads a request holds), the injections since the sample before, how the
    /// stack sample found the pool's threads blocked (<paramref name="sites"/>, null when none was taken), the p99 of that
    /// interval and the next beside the run's fastest request (<see cref="PoolSample.RequestsWaited"/>), and whether the step's
    /// cause trace (<paramref name="causes"/>, null when none ran) saw no outgoing HTTP call.
    /// </summary>
    public static IReadOnlyList<PoolSample> PoolSamples(VariantResult result, IReadOnlyList<AdjustmentMark> marks, double threadsPerRequest, BlockingSites? sites = null, CauseTrace? causes = null)
    {
        // An injection raises the count the adjustment before it set (the first one raises the pool from its minimum).
        var injected = marks.Where((m, i) => i == 0 || m.NewWorkerThreadCount > marks[i - 1].NewWorkerThreadCount).ToList();
        var samples = new List<PoolSample>();
        var previousSeconds = double.NegativeInfinity;
        // The interval a sample fell in: the first that ends at or after it (the samples come in time order).
        var index = 0;
        foreach (var row in result.Telemetry)
        {
            while (index < result.Intervals.Count && result.Intervals[index].ElapsedSeconds < row.ElapsedSeconds)
            {
                index++;
            }
            var interval = index < result.Intervals.Count ? result.Intervals[index] : null;
            var load = interval?.Load ?? 0;
            // The requests in flight at the sample end in its interval or, when they take about an interval, in the next:
            // those that waited for what the sample saw queued are answered there (/quotes at 2 users, 500 ms each: the
            // queue's sample fell in an interval of p99 550 ms, the requests it held up ended in the next at 1,459 ms).
            var waitedP99Ms = interval is null ? 0 : result.Intervals.Skip(index).Take(2).Max(i => i.Stats.P99Ms);
            var inFlight = result.LoadUnit == "rate" ? load * result.Total.MinMs / 1000 : load;
            var pool = row.Snapshot.ThreadPool;
            var injections = injected.Where(m => m.ElapsedSeconds > previousSeconds && m.ElapsedSeconds <= row.ElapsedSeconds).Select(m => m.Reason).ToList();
            samples.Add(new PoolSample(row.ElapsedSeconds, pool.ThreadCount, pool.PendingWorkItemCount, inFlight * threadsPerRequest, injections,
                sites?.BlocksOffLock ?? false, sites?.PoolBlocked ?? false, waitedP99Ms, result.Total.MinMs,
                sites?.RequestsHoldThePool ?? false, causes is { Calls.Count: 0 }));
            previousSeconds = row.ElapsedSeconds;
        }
        return samples;
    }


    /// <summary>Stops observing; a cause trace recorded but never read (the variant stopped before <see cref="FinishAsync"/>) is deleted.</summary>
    public async ValueTask DisposeAsync()
    {
        // The calls' trace ends with the load.
        _loadEnded = true;
        foreach (var trace in new[] { _causes, _calls })
        {
            if (trace is not null && await trace.ContinueWith(t => t.IsCompletedSuccessfully ? t.Result.Trace : null, TaskScheduler.Default) is { } unread)
            {
                unread.Dispose();
            }
        }
        _resolver?.Dispose();
        await observer.DisposeAsync();
    }
}
