using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>One counter sample of the pool as <c>watch</c> reads it: its threads and queued work items, seconds since the watch began.</summary>
public readonly record struct PoolReading(double ElapsedSeconds, int Threads, long Queued);

/// <summary>
/// A span in which the runtime injected threads because the pool's threads were blocked while work waited: from the
/// reading where the queue began to hold work (the first of the readings with work queued just before the first
/// injection, else the injection itself) to the first reading after the last injection whose queue is empty
/// (<see cref="Drained"/>), or to the watch's end.
/// </summary>
/// <param name="ThreadsAtStart">The pool's threads at the start: the reading there, else the last before it, else the first after it.</param>
/// <param name="PeakThreads">The most threads in the span, by a reading or by an injection's new thread count.</param>
/// <param name="StarvationInjections">ThreadPoolWorkerThreadAdjustment events with reason Starvation in the span: the gate thread saw the queue stand still.</param>
/// <param name="BlockingInjections">Those with reason CooperativeBlocking in the span while work was queued: a pool thread blocked in a wait on a Task (.NET 8+), a thread added at once.</param>
/// <param name="OtherInjections">The pool's other adjustments in the span by reason (hill climbing's, and CooperativeBlocking with nothing queued), for the report.</param>
public sealed record StarvationEpisode(
    double StartSeconds, double EndSeconds, bool Drained, int ThreadsAtStart, long QueuedAtStart, int PeakThreads, long PeakQueued,
    int StarvationInjections, int BlockingInjections, IReadOnlyList<(string Reason, int Count)> OtherInjections)
{
    public double DurationSeconds => EndSeconds - StartSeconds;
}

/// <summary>
/// The starvation episodes of a watch, a pure function of the pool's readings and adjustments. An episode needs at least
/// one injection that says the pool's threads were blocked while work waited: one for <see cref="PoolSample.StarvationReason"/>
/// (the gate thread found the queue standing still), or one for <see cref="PoolSample.CooperativeBlockingReason"/> with work
/// queued at the reading before or after it (since .NET 8 a thread blocked in .Result, .Wait() or GetResult() gets a thread
/// added at once, so the sample service's .Result starves the queue with no Starvation injection at all). Hill climbing
/// alone, or a queue that is long but keeps moving, is no episode. Such injections with no empty queue read between them
/// are one episode.
/// </summary>
public static class StarvationEpisodes
{
    public static IReadOnlyList<StarvationEpisode> Find(IReadOnlyList<PoolReading> readings, IReadOnlyList<AdjustmentMark> adjustments, double watchedSeconds)
    {
        var ordered = readings.OrderBy(r => r.ElapsedSeconds).ToList();
        var injections = adjustments.Where(a => Starves(ordered, a)).OrderBy(a => a.ElapsedSeconds).ToList();
        var episodes = new List<StarvationEpisode>();
        for (var first = 0; first < injections.Count;)
        {
            // The injections that come before the queue is next read empty belong to this episode.
            var last = first;
            var drain = FirstEmptyAfter(ordered, injections[last].ElapsedSeconds);
            while (last + 1 < injections.Count && (drain < 0 || injections[last + 1].ElapsedSeconds < ordered[drain].ElapsedSeconds))
            {
                last++;
                drain = FirstEmptyAfter(ordered, injections[last].ElapsedSeconds);
            }
            episodes.Add(Episode(ordered, adjustments, injections[first].ElapsedSeconds, drain < 0 ? null : ordered[drain].ElapsedSeconds, watchedSeconds));
            first = last + 1;
        }
        return episodes;
    }

    /// <summary>Whether <paramref name="adjustment"/> says the pool starved: for Starvation, or for CooperativeBlocking with work queued at the reading before or after it.</summary>
    public static bool Starves(IReadOnlyList<PoolReading> ordered, AdjustmentMark adjustment)
    {
        if (adjustment.Reason == PoolSample.StarvationReason)
        {
            return true;
        }
        if (adjustment.Reason != PoolSample.CooperativeBlockingReason)
        {
            return false;
        }
        var after = ordered.FirstOrDefault(r => r.ElapsedSeconds > adjustment.ElapsedSeconds);
        var before = ordered.LastOrDefault(r => r.ElapsedSeconds <= adjustment.ElapsedSeconds);
        return after.Queued > 0 || before.Queued > 0;
    }

    private static int FirstEmptyAfter(List<PoolReading> readings, double seconds) => readings.FindIndex(r => r.ElapsedSeconds > seconds && r.Queued == 0);

    private static StarvationEpisode Episode(List<PoolReading> readings, IReadOnlyList<AdjustmentMark> adjustments, double firstInjection, double? drainedAt, double watchedSeconds)
    {
        // Back from the first injection over the readings that already had work queued: the queue began to wait there.
        var start = firstInjection;
        var before = readings.FindLastIndex(r => r.ElapsedSeconds <= firstInjection);
        for (var i = before; i >= 0 && readings[i].Queued > 0; i--)
        {
            start = readings[i].ElapsedSeconds;
        }
        var end = drainedAt ?? Math.Max(watchedSeconds, Math.Max(firstInjection, readings.Count > 0 ? readings[^1].ElapsedSeconds : 0));
        var onOrBefore = readings.FindLastIndex(r => r.ElapsedSeconds <= start);
        // No reading before the start (an injection in the watch's first second): the first one after it.
        var atStart = onOrBefore >= 0 ? readings[onOrBefore] : readings.FirstOrDefault(r => r.ElapsedSeconds >= start);
        var inside = readings.Where(r => r.ElapsedSeconds >= start && r.ElapsedSeconds <= end).ToList();
        var moves = adjustments.Where(a => a.ElapsedSeconds >= start && a.ElapsedSeconds <= end).ToList();
        var peakThreads = inside.Select(r => r.Threads).Concat(moves.Select(a => a.NewWorkerThreadCount)).Append(atStart.Threads).Max();
        var peakQueued = inside.Select(r => r.Queued).Append(atStart.Queued).Max();
        var starving = moves.Where(a => Starves(readings, a)).ToList();
        var others = moves.Except(starving)
            .GroupBy(a => a.Reason).Select(g => (g.Key, g.Count())).OrderByDescending(g => g.Item2).ThenBy(g => g.Key, StringComparer.Ordinal).ToList();
        return new StarvationEpisode(start, end, drainedAt is not null, atStart.Threads, atStart.Queued, peakThreads, peakQueued,
            starving.Count(a => a.Reason == PoolSample.StarvationReason), starving.Count(a => a.Reason == PoolSample.CooperativeBlockingReason), others);
    }
}

/// <summary>What an episode's stack sample says waited, and the fix it supports.</summary>
/// <param name="WhatWaited">The sentence for the biggest group of pool threads in user code, or why there is none.</param>
/// <param name="Fix">The fix in one sentence, or null when the sample supports none.</param>
/// <param name="Site">The call site the sentence names, when it was resolved to source words.</param>
/// <param name="CpuBound">The pool's threads were running code on a core, not parked in a wait.</param>
/// <param name="PoolThreads">The pool's threads in the sample, 0 without one.</param>
public sealed record EpisodeDiagnosis(string WhatWaited, string? Fix, BlockingSite? Site, bool CpuBound, int PoolThreads = 0)
{
    /// <summary>
    /// The call sites holding comparable shares of the episode's blocked threads (<see cref="BlockingSites.Holding"/>),
    /// <see cref="Site"/> first, when two or more do: the sentence and the fix name them all, as the run's headline does; empty otherwise.
    /// </summary>
    public IReadOnlyList<BlockingSite> Holding { get; init; } = [];

    /// <summary>
    /// The diagnosis of <paramref name="episode"/> from the stack sample taken in it (<paramref name="sites"/>, null when
    /// none was taken, with <paramref name="notSampledBecause"/>): a site parked in a known blocking primitive is to be made
    /// asynchronous, with the pool's minimum raised to the episode's peak as a stopgap; a site running on a core is CPU-bound,
    /// which neither async nor more threads fix; anything else is said as seen, with no fix. Busy or blocked is
    /// <see cref="BlockingSite.Busy"/>'s rule, the one the diagnosis under load uses.
    /// </summary>
    public static EpisodeDiagnosis Of(StarvationEpisode episode, BlockingSites? sites, string? notSampledBecause = null)
    {
        if (sites is null)
        {
            return new EpisodeDiagnosis($"not sampled ({notSampledBecause ?? "no stack sample was taken during the episode"})", null, null, false);
        }
        // Busy threads (running on a core, BlockingSites' rule) outnumbering the blocked ones: CPU-bound.
        if (sites.TopBusy is { } busy && (sites.Top is null || busy.Threads > sites.Top.Threads))
        {
            var running = busy.Source?.Method ?? busy.CallSite.Split(" -> ")[0];
            return new EpisodeDiagnosis(sites.Describe(busy),
                Invariant($"CPU-bound: the pool's threads were busy on a core in {running}, so making it asynchronous or raising the pool's minimum would not help; make the work cheaper, or give the process more cores."),
                busy, true, sites.PoolThreads);
        }
        if (sites.Top is not { } top)
        {
            var idle = sites.Sites.FirstOrDefault();
            return new EpisodeDiagnosis(idle is null
                ? Invariant($"the stack sample found no pool thread ({sites.AllThreads} threads in all)")
                : Invariant($"no pool thread was in user code: {sites.Describe(idle)}"), null, null, false, sites.PoolThreads);
        }
        // Two or more comparable sites: which the sample ranked first is luck, so all are named (BlockingSites.Holding).
        var holding = sites.Holding is { Count: > 1 } several ? several : [];
        var whatWaited = holding.Count > 1 ? sites.DescribeHolding()! : sites.Describe(top);
        if (top.Source is { } call && BlockingPrimitive.IsKnown(call.Primitive))
        {
            var peak = episode.PeakThreads;
            var change = holding.Count > 1
                ? $"make {string.Join(" and ", holding.Select(BlockingSites.NameOf))} asynchronous and await what they now wait for"
                : $"make {sites.MethodToChange ?? top.CallSite} asynchronous and await what it now waits for with {call.Primitive}";
            return new EpisodeDiagnosis(whatWaited,
                Invariant($"{change}. As a stopgap, raise the pool's minimum to the {peak} threads this episode peaked at: {FixCheck.RuntimeMinimumSetting}={FixCheck.RuntimeMinimum(peak)} (hexadecimal) in the process's environment, ThreadPool.SetMinThreads({peak}, ...) in code, or {FixCheck.MinimumSetting}={peak} for the sandbox API and the sample service."),
                top, false, sites.PoolThreads) { Holding = holding };
        }
        return new EpisodeDiagnosis(whatWaited, null, top, false, sites.PoolThreads) { Holding = holding };
    }
}
