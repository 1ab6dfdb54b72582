using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Engine;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// One observer sample as the over-time rule reads it: when (seconds since the variant began), the pool's threads and
/// queue, the threads the load needed at that moment (Little's law on the load then), the reason of each time the
/// pool added threads since the previous sample, whatever it was (Starvation, CooperativeBlocking, hill climbing), and
/// what the variant's stack sample found: pool threads blocked in user code off a lock (<paramref name="ThreadsBlock"/>,
/// <see cref="BlockingSites.BlocksOffLock"/>), (nearly) all of them so (<paramref name="PoolBlocked"/>, <see cref="BlockingSites.PoolBlocked"/>),
/// (nearly) all of them so inside a request (<paramref name="RequestsHoldThePool"/>, <see cref="BlockingSites.RequestsHoldThePool"/>);
/// how long the requests in flight then took: the higher p99 of the reporting interval the sample fell in and the next,
/// where the requests it held up end (<paramref name="IntervalP99Ms"/>, 0 when none was answered in them) beside the run's fastest request, one that never queued (<paramref name="FastestMs"/>);
/// and whether the step's cause trace ran and saw no outgoing HTTP call (<paramref name="NoOutgoingCall"/>, <see cref="CauseTrace.Calls"/>).
/// </summary>
public readonly record struct PoolSample(double Seconds, int Threads, long Queued, double NeededThreads, IReadOnlyList<string> InjectionReasons, bool ThreadsBlock = false, bool PoolBlocked = false, double IntervalP99Ms = 0, double FastestMs = 0,
    bool RequestsHoldThePool = false, bool NoOutgoingCall = false)
{
    /// <summary>The reason of the runtime's own starvation injection: queued work made no progress for half a second.</summary>
    public const string StarvationReason = "Starvation";

    /// <summary>
    /// The reason of the runtime's injection for a blocking wait it recognises (<c>.Result</c>, <c>.Wait()</c>, ...): added
    /// as soon as a pool thread blocks so, whether or not work waits for it.
    /// </summary>
    public const string CooperativeBlockingReason = "CooperativeBlocking";

    /// <summary>
    /// How many times the run's fastest request an interval's p99 must pass for its requests to have waited
    /// (<see cref="RequestsWaited"/>): the factor of find-capacity's default SLO over the unloaded p99, so a step that
    /// broke that SLO has at least one interval past it (the fastest request is no slower than the unloaded p99).
    /// </summary>
    public const double WaitedFactor = 2;

    /// <summary>How many times the pool added threads since the previous sample.</summary>
    public int Injections => InjectionReasons.Count;

    /// <summary>
    /// The requests of the sample's interval took clearly longer than one that never queued: their p99 above
    /// <see cref="WaitedFactor"/> x the run's fastest request (an interval that answered none does not count here).
    /// </summary>
    public bool RequestsWaited => FastestMs > 0 && IntervalP99Ms > WaitedFactor * FastestMs;

    /// <summary>
    /// Short of threads with work queued: fewer threads than the load needed and items waiting, while the pool was adding
    /// threads (any reason) or with at least as many items queued as threads were missing.
    /// </summary>
    public bool ShortOfThreads
    {
        get
        {
            var shortBy = NeededThreads - Threads;
            return shortBy >= 1 && Queued > 0 && (Injections > 0 || Queued >= shortBy);
        }
    }

    /// <summary>
    /// Work waited that the pool's threads could not take, whatever Little's law estimated when not
    /// <see cref="ShortOfThreads"/> (a request's blocked thread may wait for work that itself needs a pool thread, such as
    /// a call to the same process; or the pool caught up between two samples a second apart): items waiting while the
    /// pool kept adding threads (any reason) with (nearly) all of them blocked; or, while the pool's threads block off a
    /// lock, the runtime adding threads because they blocked: its own starvation injection (queued work that made no
    /// progress for half a second, seen between two samples even when the queue had drained by the second), or a
    /// cooperative-blocking injection while the interval's requests waited (<see cref="RequestsWaited"/>). The latter
    /// needs the latency because the runtime injects that way whenever a thread blocks on a Task, also at loads where
    /// the pool already has what they need and no request waits: counted without it, every step of a blocking service
    /// would be starved. Or work queued while the pool's threads block off a lock and the interval's requests waited
    /// (<see cref="RequestsWaited"/>), whatever Little's law said: a request holds its blocked thread and the server's own
    /// work for it (reading the next request, running its continuation) needs another, so a pool with exactly as many
    /// threads as requests in flight is short (the sample service's Thread.Sleep at its break, 2026-11-29: 6 threads, 6
    /// users, 2 items queued, p99 2.8 x the fastest request, no injection for it). Lock waiters never count here: more
    /// threads would not free them (the lock is the cause). Or, whether or not a counter sample caught the queue, (nearly)
    /// all the pool's threads parked in a wait inside a request (<see cref="RequestsHoldThePool"/>) while the interval's
    /// requests waited and the step's trace saw no outgoing HTTP call (<see cref="NoOutgoingCall"/>): each request holds
    /// a thread for its wait, so the load needs a thread per user, and a pool that grows behind a climbing load leaves
    /// the server's own work waiting between two samples a second apart (the sample service's Thread.Sleep at its break,
    /// 2026-11-29: every counter sample's queue empty in about half the runs, and the break was called the upstream,
    /// which no call was made to). With an outgoing call seen, what the requests wait on may be the dependency (the
    /// upstream's rule reads it), so this clause needs none.
    /// </summary>
    public bool Starved => ShortOfThreads
        || (PoolBlocked && Queued > 0 && Injections > 0)
        || (ThreadsBlock && (InjectedFor(StarvationReason) || (InjectedFor(CooperativeBlockingReason) && RequestsWaited) || (Queued > 0 && RequestsWaited)))
        || (RequestsHoldThePool && NoOutgoingCall && RequestsWaited);

    private bool InjectedFor(string reason) => InjectionReasons.Contains(reason, StringComparer.Ordinal);
}

/// <summary>
/// How long the pool starved over the whole run (the samples that were <see cref="PoolSample.Starved"/>, each counting
/// for the time since the sample before it), from when to when, the thread injections made meanwhile, and the requests
/// that waited behind it: those sent while it starved and those already in flight when a starved stretch began (how
/// many, how many timed out, and the answered ones' mean latency, null when none was answered).
/// </summary>
public sealed record StarvedSpell(double StarvedSeconds, double FromSeconds, double ToSeconds, int Injections, long HeldUpRequests, long HeldUpTimedOut, double? HeldUpMeanMs)
{
    /// <summary>The pool never starved.</summary>
    public static readonly StarvedSpell None = new(0, 0, 0, 0, 0, 0, null);

    /// <summary>The <see cref="Injections"/> by their reason, most frequent first (empty when the reasons are not known).</summary>
    public IReadOnlyList<(string Reason, int Count)> InjectionsByReason { get; init; } = [];

    public bool Happened => StarvedSeconds > 0;

    /// <summary>
    /// The starved stretches (seconds since the variant began), oldest first: what a step's share of the spell is read
    /// from (<see cref="SecondsBetween"/>); empty when the pool never starved, or when the spell was built without them.
    /// </summary>
    public IReadOnlyList<(double From, double To)> Spans { get; init; } = [];

    /// <summary>How many of the starved seconds (<see cref="Spans"/>) fell between <paramref name="fromSeconds"/> and <paramref name="toSeconds"/>.</summary>
    public double SecondsBetween(double fromSeconds, double toSeconds) =>
        Spans.Sum(s => Math.Max(0, Math.Min(s.To, toSeconds) - Math.Max(s.From, fromSeconds)));

    /// <summary>"780 thread injections (CooperativeBlocking 760, Starvation 20)": the injections once, by reason.</summary>
    public string DescribeInjections()
    {
        var reasons = InjectionsByReason.Count == 0 ? "" : $" ({string.Join(", ", InjectionsByReason.Select(r => Invariant($"{r.Reason} {CountText.Of(r.Count)}")))})";
        return Invariant($"{CountText.Of(Injections, "thread injection")}{reasons}");
    }

    /// <summary>
    /// The starved spell of a run from its samples (oldest first) and its requests by when they were sent; the first
    /// sample covers the second before it (the counters are published once a second). A request held up is one sent
    /// during a starved stretch, or sent before it and still in flight when it began (its slice's mean latency, a
    /// timed-out request counted at its timeout, reaches past the stretch's start).
    /// </summary>
    public static StarvedSpell Of(IReadOnlyList<PoolSample> samples, IReadOnlyList<SentSlice> sent)
    {
        var spans = new List<(double From, double To)>();
        var reasons = new List<string>();
        for (var i = 0; i < samples.Count; i++)
        {
            if (!samples[i].Starved)
            {
                continue;
            }
            var from = i == 0 ? Math.Max(0, samples[i].Seconds - 1) : samples[i - 1].Seconds;
            spans.Add((from, samples[i].Seconds));
            reasons.AddRange(samples[i].InjectionReasons);
        }
        if (spans.Count == 0)
        {
            return None;
        }
        var heldUp = SentSummary.Of(sent.Where(s => spans.Any(span => s.FromSeconds < span.To && (s.FromSeconds >= span.From || StillInFlightAt(s, span.From)))));
        return new StarvedSpell(spans.Sum(s => s.To - s.From), spans[0].From, spans[^1].To, reasons.Count, heldUp.Requests, heldUp.TimedOut,
            heldUp.Completed > 0 ? heldUp.CompletedMeanMs : null)
        {
            InjectionsByReason = [.. reasons.GroupBy(r => r).OrderByDescending(g => g.Count()).ThenBy(g => g.Key, StringComparer.Ordinal).Select(g => (g.Key, g.Count()))],
            Spans = spans,
        };
    }

    // NaN (only connection errors) is never in flight.
    private static bool StillInFlightAt(SentSlice slice, double seconds) => slice.FromSeconds + (SentSummary.Of([slice]).AtLeastMeanMs / 1000) > seconds;
}
