using ConcurrencySandbox.Contracts.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// What the diagnosis is computed from, all measured: the requests in flight at the peak (Little's law: rate x time
/// in the system; a closed model's users, an open model's arrival rate x the fastest request's latency) and what
/// that is (<paramref name="InFlightBasis"/>), the pool threads one request holds while it blocks, the pool threads
/// the process had at the peak and how fast the pool grew, the queue and the runtime's starvation injections.
/// </summary>
public sealed record DiagnosisInputs(
    double RequestsInFlight,
    string InFlightBasis,
    double ThreadsPerRequest,
    int PoolThreadsAtPeak,
    double GrowthPerSecond,
    long PeakQueueLength,
    int StarvationAdjustments,
    string? CallSite)
{
    /// <summary>When the pool starved over the whole run and what it held up (<see cref="StarvedSpell.None"/> when never).</summary>
    public StarvedSpell Spell { get; init; } = StarvedSpell.None;

    /// <summary>
    /// The stack sample (taken again when it found none) found no pool thread in user code: the requests in flight held
    /// no pool thread while they waited (async handlers, work handed to a dedicated pool), so they need none.
    /// </summary>
    public bool RequestsHoldNoPoolThread { get; init; }

    /// <summary>The user method the blocked pool threads wait in (the call site's first user frame), to make async.</summary>
    public string? BlockingMethod { get; init; }

    /// <summary>How many methods <see cref="BlockingMethod"/> lists because the runner could not tell which blocks (1: it names the one).</summary>
    public int BlockingCandidates { get; init; } = 1;

    /// <summary>
    /// The other methods whose call sites hold a share of the blocked threads comparable to <see cref="BlockingMethod"/>'s
    /// (<see cref="BlockingSites.Holding"/>): each blocks too, so each is to be made async; empty when one dominates.
    /// </summary>
    public IReadOnlyList<string> AlsoBlocking { get; init; } = [];

    /// <summary>
    /// The stack sample's biggest group of busy pool threads, in the report's words, when it found pool threads in user
    /// code and every one running, none blocked (<see cref="BlockingSites.RunsWithoutBlocking"/>); null otherwise. Such
    /// requests hold their threads to compute: more threads would not help, so they need none blocked.
    /// </summary>
    public string? BusySite { get; init; }

    /// <summary>
    /// Nothing showed a pool thread blocked: the stack sample found none parked in a wait in user code
    /// (<see cref="BlockingSites.Top"/> null), or, without a sample, the pool's adjustments were seen and the runtime never
    /// added a thread for a blocked one (no Starvation or CooperativeBlocking injection, hill climbing alone). The pool's threads ran, idled or awaited, so
    /// it was short of nothing a thread would fix: no starvation, whatever the queue did or why the pool added threads
    /// (issue 38 item 1: a queue that grows while the threads run on the cores, or while the work is awaited, is the CPU or the upstream).
    /// </summary>
    public bool NoneSampledBlocked { get; init; }

    /// <summary>Whether the requests ran on their pool threads rather than blocking them (<see cref="BusySite"/>).</summary>
    public bool RequestsRunNotBlock => BusySite is not null;

    /// <summary>How long one request holds its pool thread while it blocks: the fastest request's latency (one that never queued), in ms.</summary>
    public double HoldMs { get; init; }

    /// <summary>
    /// The background service <see cref="BlockingMethod"/> blocks in, outside any request (null when it serves requests):
    /// the requests' latency (<see cref="HoldMs"/>) is then no measure of its wait (the cold service Reports rendered each
    /// queued report in a 150 ms .Result while its requests took 17 ms).
    /// </summary>
    public string? BlockingBackground { get; init; }

    /// <summary>Whether <see cref="HoldMs"/> is only a lower bound: no request was answered faster than the client's timeout, so the fastest is a timeout, not a wait.</summary>
    public bool HoldIsLowerBound { get; init; }

    /// <summary>The process's CPU time per completed request, in ms; null when unknown.</summary>
    public double? CpuMsPerRequest { get; init; }

    /// <summary>The observed process's processors.</summary>
    public int ProcessorCount { get; init; }

    /// <summary>The load's unit (<see cref="Engine.IWorkload.LoadUnit"/>: "users", or "rate" for an open model): the predicted capacities are in it.</summary>
    public string LoadUnit { get; init; } = "users";
}

/// <summary>
/// Little's law sizes the pool the load needs: N = requests in flight x pool threads each holds while blocked. Starved
/// when at any time of the run work waited that the pool's threads could not take (<see cref="DiagnosisInputs.Spell"/>,
/// <see cref="PoolSample.Starved"/>: fewer threads than the load then needed, or the pool adding threads with (nearly)
/// all of them blocked, or adding them because they blocked while the requests waited), or at the peak the runtime
/// injected threads for starvation or as many items queued as threads were missing; the fix is to stop blocking (make
/// the call async) or to raise the pool's minimum to N, each with the capacity it predicts, and
/// <see cref="SecondsToGrow"/> says how long the pool's own injection would take instead (null when it did not grow).
/// </summary>
public sealed record StarvationDiagnosis(DiagnosisInputs Inputs, int NeededThreads, bool Starved, double? SecondsToGrow)
{
    /// <summary>The runtime's starvation injection: one thread per 500 ms while work waits and no thread frees up.</summary>
    public const double InjectionSeconds = 0.5;

    public static StarvationDiagnosis From(DiagnosisInputs inputs)
    {
        var needed = inputs.RequestsHoldNoPoolThread || inputs.RequestsRunNotBlock || inputs.NoneSampledBlocked ? 0 : (int)Math.Ceiling(inputs.RequestsInFlight * Math.Max(1, inputs.ThreadsPerRequest) - 1e-9);
        var shortBy = needed - inputs.PoolThreadsAtPeak;
        // A pool short of threads starves when the runtime injected threads for starvation, or work piled up for the missing ones.
        var starvedAtPeak = shortBy > 0 && (inputs.StarvationAdjustments > 0 || inputs.PeakQueueLength >= shortBy);
        // Starvation is threads blocked: a stack sample that caught none parked in a wait rules it out.
        var starved = !inputs.NoneSampledBlocked && (starvedAtPeak || inputs.Spell.Happened);
        double? secondsToGrow = starvedAtPeak && inputs.GrowthPerSecond > 0 ? shortBy / inputs.GrowthPerSecond : null;
        return new StarvationDiagnosis(inputs, needed, starved, secondsToGrow);
    }

    /// <summary>
    /// Pool threads one request holds: 1 when only request threads block; when the request also queues blocking work
    /// on the pool (a fan-out), the pool work items each request caused, all counted as holding a thread, so the
    /// minimum errs high rather than low.
    /// </summary>
    public static double ThreadsPerRequest(bool blocksQueuedWork, double workItemsPerRequest) =>
        blocksQueuedWork ? Math.Max(1, workItemsPerRequest) : 1;

    /// <summary>
    /// Pool threads one request holds, measured where Little's law said the pool had enough but it starved all the same
    /// (its threads blocked while work queued, or the runtime adding threads for them while the requests waited): at each
    /// such sample (sized with <paramref name="threadsPerRequest"/>), the threads the pool had plus the items waiting for
    /// one over the requests then in flight; <paramref name="threadsPerRequest"/> when no sample starved that way or it is
    /// higher. A pool that caught up by injecting starved up to the threads it grew to, so the minimum that avoids the
    /// wait is at least those, not the Little's-law need the pool had already passed while it waited.
    /// </summary>
    public static double MeasuredThreadsPerRequest(IReadOnlyList<PoolSample> samples, double threadsPerRequest) =>
        samples
            .Where(s => s.Starved && !s.ShortOfThreads && s.NeededThreads > 0)
            .Select(s => (s.Threads + s.Queued) / (s.NeededThreads / threadsPerRequest))
            .Append(threadsPerRequest)
            .Max();

    /// <summary>Threads the pool added per second over a run of samples (first to highest), 0 for fewer than two.</summary>
    public static double Growth(IReadOnlyList<(double Seconds, int Threads)> series)
    {
        if (series.Count < 2)
        {
            return 0;
        }
        var first = series[0];
        var peak = series.MaxBy(s => s.Threads);
        return peak.Seconds > first.Seconds ? (peak.Threads - first.Threads) / (peak.Seconds - first.Seconds) : 0;
    }

    /// <summary>
    /// The load the service carries once the blocking call is async (Little's law without the held threads): no pool
    /// thread waits, so the process's cores bound it, processors x 1000 / CPU ms per request requests/s, which at the
    /// unqueued latency is that times <see cref="DiagnosisInputs.HoldMs"/> users in flight. Null without a CPU figure or
    /// without a wait to hold (<see cref="WaitKnown"/>): it would read "about 0 users", which nothing measured.
    /// </summary>
    public double? AsyncCapacity => Inputs.CpuMsPerRequest is { } cpuMs && cpuMs > 0 && Inputs.ProcessorCount > 0 && WaitKnown
        ? InUnit(Inputs.ProcessorCount * 1000 / cpuMs * Inputs.HoldMs / 1000)
        : null;

    /// <summary>
    /// Whether the fastest request shows how long one holds its pool thread: at least <see cref="ShortestWaitMs"/>. A
    /// fastest request under it (a random delay that was 0 for one request) shows no wait, not a wait of 0 ms.
    /// </summary>
    public bool WaitKnown => !Inputs.HoldIsLowerBound && Inputs.HoldMs >= ShortestWaitMs;

    /// <summary>The shortest fastest request read as a wait: below it the figure would print as "0 ms".</summary>
    public const double ShortestWaitMs = 1;

    /// <summary>"queue peaked at 12"; while starved with an empty queue at every counter sample, that it was not seen, and why, never "peaked at 0".</summary>
    public string Queue => Starved && Inputs.PeakQueueLength == 0
        ? "the queue was empty at every counter sample, one a second, so how long it grew between them is not known"
        : Invariant($"queue peaked at {Inputs.PeakQueueLength}");

    /// <summary>The load a pool started at <see cref="NeededThreads"/> threads carries without waiting for the runtime's injection: N / threads per request in flight.</summary>
    public double MinimumCapacity => InUnit(NeededThreads / Math.Max(1, Inputs.ThreadsPerRequest));

    // Requests in flight as the load's unit: users, or an arrival rate (in flight / the time each holds).
    private double InUnit(double inFlight) => Inputs.LoadUnit != "rate" || Inputs.HoldMs <= 0 ? inFlight : inFlight / (Inputs.HoldMs / 1000);

    /// <summary>What a starved sample is (<see cref="PoolSample.Starved"/>), in the paragraph's words.</summary>
    private static readonly string StarvedMeans = Invariant($"fewer threads than the load needed, or (nearly) all of them blocked while the pool added more, or the runtime injecting threads for starvation while they blocked, or for their blocking waits while an interval's p99 passed {PoolSample.WaitedFactor:0} x the fastest request, or (nearly) all of them waiting inside requests, with no outgoing HTTP call traced, while it did");

    /// <summary>The report's paragraph: when and how long the pool starved, what it held up, the need, and each fix with what it buys.</summary>
    public string Describe()
    {
        var i = Inputs;
        var where = i.CallSite is null ? "" : i.AlsoBlocking.Count > 0 ? $" The blocking call sites: {i.CallSite}." : $" The blocking call site: {i.CallSite}.";
        var inFlight = Invariant($"{CountText.Amount(i.RequestsInFlight, "request")} in flight ({i.InFlightBasis})");
        var sizing = i.RequestsHoldNoPoolThread
            ? Invariant($"held no pool thread while it waited ({inFlight}, and the stack sample found no pool thread in user code)")
            : i.RequestsRunNotBlock
            ? Invariant($"kept its pool threads busy, not blocked ({inFlight}; the stack sample found {i.BusySite}, and none blocked in user code), so more pool threads or an async call would not help (the cores bound it)")
            : i.NoneSampledBlocked
            ? Invariant($"held no pool thread blocked ({inFlight}, and neither the stack sample nor the runtime's injections showed a pool thread parked in a wait)")
            : Invariant($"needed about {CountText.Of(NeededThreads, "thread")} ({inFlight} x {CountText.Amount(Math.Max(1, i.ThreadsPerRequest), "pool thread")} each, Little's law)");
        if (!Starved)
        {
            // Injections for starvation with no thread sampled blocked are said as what they are, not read as starvation.
            var added = i.NoneSampledBlocked && i.StarvationAdjustments > 0
                ? Invariant($"; the pool added threads ({i.StarvationAdjustments} starvation injections), none sampled blocked")
                : Invariant($", {CountText.Of(i.StarvationAdjustments, "starvation injection")}");
            return Invariant($"Not starved: at no sample of the run did work wait that the pool's threads could not take ({StarvedMeans}); at the peak the load {sizing} and the pool had {i.PoolThreadsAtPeak} (queue peaked at {i.PeakQueueLength}{added}).{where}");
        }
        var growth = SecondsToGrow is { } s
            ? Invariant($"growing {i.GrowthPerSecond:0.#}/s, it would take about {s:0} s to get there by itself")
            : i.GrowthPerSecond > 0 ? Invariant($"growing {i.GrowthPerSecond:0.#}/s") : "and it did not grow during the run";
        // The spell says the injections once, by reason; without one, the peak's starvation injections are the evidence.
        var queue = i.Spell.Happened ? Queue : Invariant($"{Queue}, {CountText.Of(i.StarvationAdjustments, "starvation injection")}");
        return Invariant($"Starved{Spell()}: at the peak the load {sizing}; the pool had {i.PoolThreadsAtPeak}, {growth} ({queue}).{where} {Fixes()}");
    }

    /// <summary>" for 19.2 s (0.8 s to 20.0 s of the run; ...)": the spell, empty when only the peak showed it.</summary>
    private string Spell()
    {
        var spell = Inputs.Spell;
        if (!spell.Happened)
        {
            return "";
        }
        var waited = spell.HeldUpMeanMs is { } meanMs ? Invariant($", answered after {meanMs:0} ms on average") : "";
        var timedOut = spell.HeldUpTimedOut > 0 ? Invariant($", {CountText.Of(spell.HeldUpTimedOut)} timed out") : "";
        return Invariant($" for {spell.StarvedSeconds:0.#} s ({spell.FromSeconds:0.#} s to {spell.ToSeconds:0.#} s of the run, work waiting that the pool's threads could not take ({StarvedMeans}), {spell.DescribeInjections()} meanwhile); {CountText.Of(spell.HeldUpRequests, "request")} waited behind it (sent during it, or in flight when it began){waited}{timedOut}");
    }

    /// <summary>"about 12 users", or "fewer than 1 user" for a capacity that would round to 0.</summary>
    public static string About(double load, string unit) =>
        load >= 0.5 ? Invariant($"about {load:0} {unit}") : $"fewer than 1 {(unit == "users" ? "user" : unit)}";

    /// <summary>The two fixes, each with the capacity it predicts.</summary>
    private string Fixes()
    {
        var i = Inputs;
        var unit = i.LoadUnit == "rate" ? "requests/s" : i.LoadUnit;
        var method = i.BlockingMethod is not { } m ? "make the blocking call async"
            : i.BlockingCandidates > 1 ? $"make the blocking call async in whichever it is of {m}"
            : i.AlsoBlocking.Count > 0 ? $"make `{m}` and {string.Join(" and ", i.AlsoBlocking.Select(a => $"`{a}`"))} async (each holds the pool's threads)"
            : $"make `{m}` async";
        var holds = i.BlockingBackground is { } background ? $": it runs in the background service {background}, outside any request, so the requests' latency says nothing of how long it holds a pool thread"
            : WaitKnown ? Invariant($": it holds a pool thread for its whole {i.HoldMs:0} ms wait")
            : i.HoldIsLowerBound ? Invariant($": how long it holds a pool thread is not known (no request was answered before the client gave up after at least {i.HoldMs:0} ms, a lower bound, not a wait)")
            : Invariant($": how long it holds a pool thread is not known (the fastest request took {i.HoldMs:0.###} ms, which shows no wait)");
        var asyncBuys = AsyncCapacity is { } a
            ? Invariant($"; async, no thread waits and the cores bound the load: {About(a, unit)} ({i.ProcessorCount} cores / {i.CpuMsPerRequest:0.##} CPU ms per request, Little's law without the held threads)")
            : WaitKnown ? "" : "; what async buys is not predicted, since that needs the wait";
        return Invariant($"Fix: {method}{holds}{asyncBuys}. Or set the pool's minimum to {NeededThreads} (ThreadPool.SetMinThreads; for any .NET process {FixCheck.RuntimeMinimumSetting}={FixCheck.RuntimeMinimum(NeededThreads)} in its environment, a hexadecimal value; ThreadPool__MinWorkerThreads={NeededThreads} for the sandbox API and the sample service): it then carries {About(MinimumCapacity, unit)} with no wait; above that each missing thread waits for the runtime's injection, one per {InjectionSeconds * 1000:0} ms while starved.");
    }
}
