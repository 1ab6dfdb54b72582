using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Engine;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// The GC over one step, from the observer's counters: the share of the step's time the GC paused the process
/// (total-pause-time-by-gc), the bytes allocated per request (alloc-rate over the requests that ended) and the largest
/// heap (gc-heap-size), all read over the step's counted span (<see cref="VariantResult.CountedSpan"/>). The pauses and
/// the allocations are the runtime's IncrementingPollingCounters over running totals (GC.GetTotalPauseDuration,
/// GC.GetTotalAllocatedBytes): each payload is the total's growth since the payload before, so a sample that came late
/// (a busy machine, long pauses) carries the whole gap and the figures stay exact over it; only a payload the session
/// lost (<see cref="VariantObservation.EventsLost"/>) leaves them short, and then they are not read.
/// </summary>
public sealed record GcFigures(double PauseShare, double BytesPerRequest, long PeakHeapBytes)
{
    /// <summary>The share of a step's time in GC pauses from which the GC is a cause at the break.</summary>
    public const double CauseShare = 0.05;

    /// <summary>How much larger the break's pause share or allocation per request must be than the lowest step's to have grown toward it.</summary>
    public const double GrowthFactor = 1.5;

    /// <summary>The pause share below which the GC's growth is no cause: 0.1 % grown to 0.2 % is noise, not a break.</summary>
    public const double GrowthFloorShare = 0.01;

    /// <summary>The step's figures over its whole run (<see cref="Between"/>); null without two counter samples over it or with events lost.</summary>
    public static GcFigures? Of(VariantResult step, int eventsLost) => Between(step, double.NegativeInfinity, step.ElapsedSeconds, eventsLost).Figures;

    /// <summary>
    /// The figures over the counter samples from <paramref name="fromSeconds"/> to <paramref name="toSeconds"/> (a step of
    /// a stepped load; a capacity search's step is its whole run), however far apart, or why they could not be read: among
    /// others, <paramref name="eventsLost"/> events the observer's session lost (a counter payload among them leaves the sums short).
    /// </summary>
    public static (GcFigures? Figures, string? NotReadBecause) Between(VariantResult result, double fromSeconds, double toSeconds, int eventsLost)
    {
        if (eventsLost > 0)
        {
            return (null, Invariant($"the observer's session lost {CountText.Of(eventsLost, "runtime event")}, so the GC's counter sums may miss a payload"));
        }
        var (counted, why) = result.CountedSpanBetween(fromSeconds, toSeconds);
        if (counted is not { Seconds: > 0, Requests: > 0 } span)
        {
            return (null, why);
        }
        return (new GcFigures(
            span.Growth(s => s.GC.TotalPauseDurationMs) / (span.Seconds * 1000),
            span.PerRequest(s => s.GC.TotalAllocatedBytes),
            result.Telemetry.Where(t => t.ElapsedSeconds >= span.First.ElapsedSeconds && t.ElapsedSeconds <= span.Last.ElapsedSeconds).Max(t => t.Snapshot.GC.HeapSizeBytes)), null);
    }

    /// <summary>
    /// Whether the GC is a cause at the break: it paused the process at least <see cref="CauseShare"/> of the step, or at
    /// least <see cref="GrowthFloorShare"/> with its pause share or the allocation per request grown toward the break from
    /// <paramref name="lowest"/> (by <see cref="GrowthFactor"/>).
    /// </summary>
    public bool IsCauseBeside(GcFigures? lowest) =>
        PauseShare >= CauseShare || (PauseShare >= GrowthFloorShare && lowest is not null && (PauseShare >= GrowthFactor * lowest.PauseShare || BytesPerRequest >= GrowthFactor * lowest.BytesPerRequest));

    /// <summary>"the GC paused the process 34 % of the step (3 % at 2 users), 3.9 MB allocated per request (3.8 MB), the heap peaked at 120 MB".</summary>
    public string Describe(GcFigures? lowest, string lowestLoad)
    {
        var before = lowest is null ? "" : Invariant($" ({100 * lowest.PauseShare:0.#} % at {lowestLoad})");
        var allocatedBefore = lowest is null ? "" : Invariant($" ({AllocationSamples.Bytes(lowest.BytesPerRequest)} at {lowestLoad})");
        return Invariant($"the GC paused the process {100 * PauseShare:0.#} % of the step{before}, {AllocationSamples.Bytes(BytesPerRequest)} allocated per request{allocatedBefore}, the heap peaked at {AllocationSamples.Bytes(PeakHeapBytes)}");
    }
}

/// <summary>
/// The GC's share of a break's time: its pauses (<paramref name="PauseShare"/> of the step, every thread stopped) and,
/// between them, the allocator's work on the requests' threads (<see cref="InAllocator"/>, the share of the CPU samples in
/// native code called straight from a frame that allocated at the allocator's rate, by frame:
/// <see cref="HotMethods.AllocatorCalls"/>). Either null when not read; the share then counts it as 0, a lower bound.
/// </summary>
public sealed record GcShare(double? PauseShare, IReadOnlyDictionary<string, double>? AllocatorCalls)
{
    /// <summary>
    /// The pause share from which the GC ranks before the CPU. Between the causes measured (2026-11-29, seed 37's corpus,
    /// docs/notebook/diagnostics.md): every allocating service's GC paused it 16-74 % of each step read, every hashing
    /// one's 0.1-2.4 %.
    /// </summary>
    public const double LeadPauseShare = 0.10;

    /// <summary>
    /// The share of the CPU samples in the allocator from which the GC is a cause, and ranks before the CPU, whatever its
    /// counters said (or when they were lost). Measured as for <see cref="LeadPauseShare"/>: an allocating service 17 % and
    /// 32 % (native code below String.Concat, 54 and 127 CPU samples), the hashing ones 0-2.5 % (below SHA256.HashData).
    /// </summary>
    public const double AllocatorLeadShare = 0.1;

    /// <summary>Whether the GC ranks before the CPU: it paused the process at least <see cref="LeadPauseShare"/> of the step, or at least <see cref="AllocatorLeadShare"/> of the CPU samples were in the allocator.</summary>
    public bool Leads => PauseShare >= LeadPauseShare || InAllocator >= AllocatorLeadShare;

    /// <summary>
    /// The CPU finding's weight beside the GC: <paramref name="cpuWeight"/> less the GC's share of the break (its pauses and
    /// the allocator are the cores' time too), and no more than the GC's own when the GC leads (<see cref="Leads"/>).
    /// </summary>
    public double CpuWeight(double cpuWeight) => Math.Min(cpuWeight * (1 - OfTheBreak), Leads ? OfTheBreak : 1);

    /// <summary>The share of the CPU samples in the allocator; null when not read (no stack sample, or no allocation sample).</summary>
    public double? InAllocator => AllocatorCalls?.Values.Sum();

    /// <summary>The share of the break's time that was the GC's: the pauses, and the allocator's share of the rest, <c>p + (1 - p) x a</c>.</summary>
    public double OfTheBreak => (PauseShare ?? 0) + ((1 - (PauseShare ?? 0)) * (InAllocator ?? 0));

    /// <summary>"87 % of the break's time was the GC's: its pauses, 30 % of the step, and between them the allocator, in 81 % of the CPU samples (native code called by System.String.Concat, which allocated at the allocator's rate)".</summary>
    public string Describe()
    {
        var pauses = PauseShare is { } p ? Invariant($"its pauses, {100 * p:0.#} % of the step") : "its pauses not read";
        var allocator = AllocatorCalls is not { } calls ? "the allocator's share of the CPU not known (no stack sample, no allocation sample or no CPU time of the step)"
            : calls.Count == 0 ? "none of the CPU samples in the allocator"
            : Invariant($"between them the allocator, in {100 * InAllocator:0} % of the CPU samples (native code called by {string.Join(", ", calls.OrderByDescending(c => c.Value).Take(AllocationSamples.Listed).Select(c => SourceNames.Describe(c.Key)))}, which allocated at the allocator's rate)");
        var atLeast = PauseShare is null || AllocatorCalls is null ? "at least " : "";
        var leads = Leads ? Invariant($"; the GC ranks before the CPU (from {100 * LeadPauseShare:0} % of the step paused, or {100 * AllocatorLeadShare:0} % of the CPU samples in the allocator)") : "";
        return Invariant($"{atLeast}{100 * OfTheBreak:0} % of the break's time was the GC's: {pauses}, and {allocator}{leads}");
    }
}
