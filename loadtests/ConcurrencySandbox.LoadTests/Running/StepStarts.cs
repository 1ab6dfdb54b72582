using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Hosting;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Running;

/// <summary>
/// Every step of a capacity search from the same state (issue 37 item 6): a step run on a pool an earlier step grew
/// measures the grown pool, not the service (InlinedHelper's bisection steps ran after its 64-users step with 78 threads
/// and "held 60"). <see cref="BeforeAsync"/> readies the service for the next step and says what state it starts from;
/// <see cref="AfterAsync"/> ends the step.
/// </summary>
internal interface IStepStarts : IAsyncDisposable
{
    /// <summary>The service to load and observe in the next step, and the state it starts from.</summary>
    Task<(TargetApiServers Servers, SummaryStepStart Start)> BeforeAsync(CancellationToken cancellationToken);

    /// <summary>Ends the step (a fresh process is stopped).</summary>
    ValueTask AfterAsync();
}

/// <summary>
/// --launch: each step on a fresh process, started, warmed (<see cref="WarmRequests"/> GETs, so the first requests'
/// compilation is not measured), measured and stopped; with <paramref name="environment"/> added (--verify-fix's minimum).
/// </summary>
internal sealed class FreshProcessSteps(string assembly, Uri target, IReadOnlyDictionary<string, string> environment, TextWriter output) : IStepStarts
{
    /// <summary>The GETs each fresh process answers before its step, one at a time.</summary>
    public const int WarmRequests = 10;

    private static readonly TimeSpan WarmBound = TimeSpan.FromSeconds(10);

    private LaunchedService? _service;

    public async Task<(TargetApiServers Servers, SummaryStepStart Start)> BeforeAsync(CancellationToken cancellationToken)
    {
        await AfterAsync();
        _service = await LaunchedService.StartAsync(assembly, target, environment, cancellationToken);
        var warmed = await WarmAsync(target, cancellationToken);
        var servers = new TargetApiServers(new Uri(target.GetLeftPart(UriPartial.Authority) + "/"), isSandboxApi: false) { ProcessId = _service.ProcessId };
        var threads = await PoolThreads.ReadAsync(DiagnosticsChannel.OfProcess(_service.ProcessId), cancellationToken);
        await output.WriteLineAsync($"-- a fresh process for the step: pid {_service.ProcessId}, warmed by {warmed} requests");
        return (servers, new SummaryStepStart(threads, Invariant($"a fresh process, warmed by {warmed} requests{(threads is { } t ? Invariant($", its pool at {t} threads") : "")}")));
    }

    /// <summary>
    /// Sends <see cref="WarmRequests"/> GETs to <paramref name="target"/>, one at a time, and returns how many were sent:
    /// answered or not, each runs the request's path once; bounded, for a service whose answers take seconds. A quick run
    /// under --launch warms its process so too, so its one-user baseline does not carry the first requests' compilation.
    /// </summary>
    public static async Task<int> WarmAsync(Uri target, CancellationToken cancellationToken)
    {
        using var http = new HttpClient { Timeout = WarmBound };
        using var bound = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        bound.CancelAfter(WarmBound);
        var sent = 0;
        try
        {
            for (; sent < WarmRequests; sent++)
            {
                using var response = await http.GetAsync(target, bound.Token);
            }
        }
        catch (Exception e) when (e is HttpRequestException or OperationCanceledException && !cancellationToken.IsCancellationRequested)
        {
            // The bound ran out, or the service refused one: the warm-up is what it got.
        }
        return sent;
    }

    public async ValueTask AfterAsync()
    {
        if (_service is { } service)
        {
            _service = null;
            await service.DisposeAsync();
        }
    }

    public ValueTask DisposeAsync() => AfterAsync();
}

/// <summary>
/// An attached service (no --launch), which the runner cannot restart: before each step after the first it waits, up to
/// <paramref name="bound"/>, for the pool to shrink back to the worker threads it had before the first step (the runtime
/// retires a worker idle for 20 s), and says what the step started from; "inherited a pool of N threads grown by an
/// earlier step" when the wait ran out.
/// </summary>
internal sealed class SettledPoolSteps(TargetApiServers servers, TimeSpan bound, TextWriter output) : IStepStarts
{
    private readonly PoolSettle _settle = new(bound, TimeProvider.System, (delay, token) => Task.Delay(delay, token));

    public async Task<(TargetApiServers Servers, SummaryStepStart Start)> BeforeAsync(CancellationToken cancellationToken)
    {
        if (servers.ProcessId is not { } pid)
        {
            return (servers, new SummaryStepStart(null, $"{StepStartsText.NotKnown}the runtime is not observed ({servers.NotObservedBecause ?? "no process"})"));
        }
        await using var observer = await RuntimeObserver.AttachAsync(DiagnosticsChannel.OfProcess(pid), cancellationToken);
        var start = await _settle.WaitAsync(() => PoolThreads.Latest(observer), cancellationToken);
        await output.WriteLineAsync($"-- the step starts from {start.State}");
        return (servers, start);
    }

    public ValueTask AfterAsync() => ValueTask.CompletedTask;

    public ValueTask DisposeAsync() => ValueTask.CompletedTask;
}

/// <summary>
/// The wait of <see cref="SettledPoolSteps"/>, a function of the pool's readings over time: the first reading is the
/// pool's start size; before each later step, readings every <see cref="Period"/> until the pool is back to it or
/// <paramref name="bound"/> has passed.
/// </summary>
internal sealed class PoolSettle(TimeSpan bound, TimeProvider time, Func<TimeSpan, CancellationToken, Task> delay)
{
    /// <summary>How often the pool is read while waiting: the counters are published once a second.</summary>
    public static readonly TimeSpan Period = TimeSpan.FromSeconds(1);

    /// <summary>The most seconds the first reading of a fresh session is waited for.</summary>
    public static readonly TimeSpan FirstReadingBound = TimeSpan.FromSeconds(5);

    private int? _startSize;

    /// <summary>Waits (bounded) for <paramref name="latestThreads"/> to read at most the start size; what the step starts from.</summary>
    public async Task<SummaryStepStart> WaitAsync(Func<int?> latestThreads, CancellationToken cancellationToken)
    {
        var started = time.GetTimestamp();
        int? threads;
        while ((threads = latestThreads()) is null && time.GetElapsedTime(started) < FirstReadingBound)
        {
            await delay(TimeSpan.FromMilliseconds(250), cancellationToken);
        }
        if (threads is not { } first)
        {
            return new SummaryStepStart(null, Invariant($"{StepStartsText.NotKnown}no reading of the pool's threads within {FirstReadingBound.TotalSeconds:0} s"));
        }
        if (_startSize is not { } size)
        {
            _startSize = first;
            return new SummaryStepStart(first, Invariant($"the pool at {first} threads, its size before the first step"));
        }
        var current = first;
        while (current > size && time.GetElapsedTime(started) < bound)
        {
            await delay(Period, cancellationToken);
            current = latestThreads() ?? current;
        }
        var waited = time.GetElapsedTime(started).TotalSeconds;
        return current <= size
            ? new SummaryStepStart(current, Invariant($"the pool at {current} threads, back to its start size of {size}{(current < first ? Invariant($" after {waited:0} s") : "")}"))
            : new SummaryStepStart(current, Invariant($"{StepStartsText.Inherited} a pool of {current} threads grown by an earlier step (waited {bound.TotalSeconds:0} s, --settle-s, for it to shrink back to {size})"));
    }
}

/// <summary>The states a search's steps started from, in one sentence for the report: the rule, and each step that broke it.</summary>
internal static class StepStartsText
{
    public const string Inherited = "inherited";

    /// <summary>How a step's start reads when the pool could not be read before it: "not known: " and why.</summary>
    public const string NotKnown = "not known: ";

    /// <summary>
    /// What the quick profile's steps start from against a URL (a ramp on one process, each step reached by a climb:
    /// <see cref="CapacityOptions.ClimbingTo"/>), and where --find-capacity's figure may differ: its steps climb at the same
    /// pace, each from a fresh state, so both ask one question.
    /// </summary>
    public static readonly string Climbed = Invariant($"Each step of the profile started from the pool the step before it grew (one process, ramped at the profile's pace): it climbed from the load before it one user at a time at {CapacityOptions.QuickUsersPerSecond:0.##} users/s, then held its load and was judged over the hold only, the climb's requests counted in steps of their own ({CapacityOptions.SettleNotJudged}, nor the one after its hold); --find-capacity climbs to each of its loads at the same pace from a fresh process or a settled pool and judges its hold, so both ask one question; they may still differ where a search step's climb from a fresh pool needs threads faster than the pool adds them, since here each load is reached from the pool the step before grew. Both set the default SLO from one user's p99 (here the profile's first step, there a run of its own); they may still differ by resolution (here the profile's steps, there narrowed by bisection).");

    /// <summary>What a plain profile's steps start from when they were not reached by a climb (a profile other than quick, a --config shape, --agents).</summary>
    public static readonly string Ramp = Invariant($"Each step of the profile started from the pool the step before it grew (one process, ramped at the profile's pace) and was judged over its whole length at its load; --find-capacity climbs to each of its loads at the quick profile's pace ({CapacityOptions.QuickUsersPerSecond:0.##} users/s) from a fresh process or a settled pool and judges the part held, so where this profile's steps put their users on at once and starved the pool the two may differ. Both set the default SLO from one user's p99 (here the profile's first step, there a run of its own; with --agents the profile's lowest step); they may still differ by resolution (here the profile's steps, there narrowed by bisection).");

    /// <summary>
    /// "Each step started from a fresh process ...", or from the pool back at its first size, naming the steps that did not,
    /// each state once with the steps it held for ("unloaded-1-user, 2-users and 4-users not known: ..."); when no step's
    /// start could be read for one reason (the runtime not observed), that reason once.
    /// </summary>
    public static string Describe(IReadOnlyDictionary<string, SummaryStepStart> starts)
    {
        if (starts.Count == 0)
        {
            return "";
        }
        if (starts.Values.All(s => s.State.StartsWith("a fresh process", StringComparison.Ordinal)))
        {
            return Invariant($"Each step ran on a fresh process (--launch): started, warmed by {FreshProcessSteps.WarmRequests} requests, measured and stopped.");
        }
        var others = starts.Where(s => s.Value.State.StartsWith(Inherited, StringComparison.Ordinal) || s.Value.PoolThreads is null)
            .GroupBy(s => s.Value.State, s => s.Key).ToList();
        if (others is [var only] && only.Count() == starts.Count && only.Key.StartsWith(NotKnown, StringComparison.Ordinal))
        {
            return $"No step's start is known: {only.Key[NotKnown.Length..]}.";
        }
        return others.Count == 0
            ? "Each step started from the pool back at its size before the first step."
            : $"Each step started from the pool back at its size before the first step, except: {string.Join("; ", others.Select(state => $"{CountText.Listed([.. state])} {state.Key}"))}.";
    }
}

/// <summary>The pool's worker threads as the observer's counters read them.</summary>
internal static class PoolThreads
{
    /// <summary>The latest counter sample's <c>threadpool-thread-count</c>, null before the first.</summary>
    public static int? Latest(RuntimeObserver observer) =>
        observer.Samples.LastOrDefault(s => s[RuntimeObserver.ThreadCount] is not null) is { } sample ? (int)sample[RuntimeObserver.ThreadCount]!.Value : null;

    /// <summary>One reading over a short session of its own; null when the process cannot be observed or sends none in time.</summary>
    public static async Task<int?> ReadAsync(DiagnosticsChannel channel, CancellationToken cancellationToken)
    {
        try
        {
            await using var observer = await RuntimeObserver.AttachAsync(channel, cancellationToken);
            var settle = new PoolSettle(TimeSpan.Zero, TimeProvider.System, (delay, token) => Task.Delay(delay, token));
            return (await settle.WaitAsync(() => Latest(observer), cancellationToken)).PoolThreads;
        }
        catch (UsageException)
        {
            return null;
        }
    }
}
