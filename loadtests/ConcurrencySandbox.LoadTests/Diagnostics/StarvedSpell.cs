using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// One observer sample as the over-time rule reads it: when (seconds since the variant began), the pool's threads and
/// queue, the threads the load needed at that moment (Little's law on the load then), and how many times the pool
/// added threads since the previous sample, whatever the reason (Starvation, CooperativeBlocking, hill climbing).
/// </summary>
public readonly record struct PoolSample(double Seconds, int Threads, long Queued, double NeededThreads, int Injections)
{
    /// <summary>
    /// Short of threads with work queued: fewer threads than the load needed and items waiting, while the pool was adding
    /// threads (any reason) or with at least as many items queued as threads were missing.
    /// </summary>
    public bool Starved
    {
        get
        {
            var shortBy = NeededThreads - Threads;
            return shortBy >= 1 && Queued > 0 && (Injections > 0 || Queued >= shortBy);
        }
    }
}

/// <summary>
/// How long the pool starved over the whole run (the samples that were <see cref="PoolSample.Starved"/>, each counting
/// for the time since the sample before it), from when to when, the thread injections made meanwhile, and the requests
/// sent while it starved, which waited behind it: how many, how many timed out, and the answered ones' mean latency
/// (null when none was answered).
/// </summary>
public sealed record StarvedSpell(double StarvedSeconds, double FromSeconds, double ToSeconds, int Injections, long HeldUpRequests, long HeldUpTimedOut, double? HeldUpMeanMs)
{
    /// <summary>The pool never starved.</summary>
    public static readonly StarvedSpell None = new(0, 0, 0, 0, 0, 0, null);

    public bool Happened => StarvedSeconds > 0;

    /// <summary>
    /// The starved spell of a run from its samples (oldest first) and its requests by when they were sent; the first
    /// sample covers the second before it (the counters are published once a second).
    /// </summary>
    public static StarvedSpell Of(IReadOnlyList<PoolSample> samples, IReadOnlyList<SentSlice> sent)
    {
        var spans = new List<(double From, double To)>();
        var injections = 0;
        for (var i = 0; i < samples.Count; i++)
        {
            if (!samples[i].Starved)
            {
                continue;
            }
            var from = i == 0 ? Math.Max(0, samples[i].Seconds - 1) : samples[i - 1].Seconds;
            spans.Add((from, samples[i].Seconds));
            injections += samples[i].Injections;
        }
        if (spans.Count == 0)
        {
            return None;
        }
        var heldUp = SentSummary.Of(sent.Where(s => spans.Any(span => s.FromSeconds >= span.From && s.FromSeconds < span.To)));
        return new StarvedSpell(spans.Sum(s => s.To - s.From), spans[0].From, spans[^1].To, injections, heldUp.Requests, heldUp.TimedOut,
            heldUp.Completed > 0 ? heldUp.CompletedMeanMs : null);
    }
}
