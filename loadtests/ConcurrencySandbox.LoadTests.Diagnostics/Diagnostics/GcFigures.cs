using ConcurrencySandbox.LoadTests.Engine;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// The GC over one step, from the observer's counters: the share of the step's time the GC paused the process
/// (total-pause-time-by-gc), the bytes allocated per request (alloc-rate over the requests that ended) and the largest
/// heap (gc-heap-size), all read over the step's counted span (<see cref="VariantResult.CountedSpan"/>).
/// </summary>
public sealed record GcFigures(double PauseShare, double BytesPerRequest, long PeakHeapBytes)
{
    /// <summary>The share of a step's time in GC pauses from which the GC is a cause at the break.</summary>
    public const double CauseShare = 0.05;

    /// <summary>How much larger the break's pause share or allocation per request must be than the lowest step's to have grown toward it.</summary>
    public const double GrowthFactor = 1.5;

    /// <summary>The pause share below which the GC's growth is no cause: 0.1 % grown to 0.2 % is noise, not a break.</summary>
    public const double GrowthFloorShare = 0.01;

    /// <summary>The step's figures over its whole run (<see cref="Between"/>); null without two counter samples over it.</summary>
    public static GcFigures? Of(VariantResult step) => Between(step, double.NegativeInfinity, step.ElapsedSeconds).Figures;

    /// <summary>
    /// The figures over the counter samples from <paramref name="fromSeconds"/> to <paramref name="toSeconds"/> (a step of
    /// a stepped load; a capacity search's step is its whole run), or why they could not be read.
    /// </summary>
    public static (GcFigures? Figures, string? NotReadBecause) Between(VariantResult result, double fromSeconds, double toSeconds)
    {
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
