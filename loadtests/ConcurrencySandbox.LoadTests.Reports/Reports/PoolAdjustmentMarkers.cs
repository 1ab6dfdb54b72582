using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// The thread pool's adjustments (the runtime's ThreadPoolWorkerThreadAdjustment events, read by the observer) as markers
/// on a variant's thread panel, at the pool's new thread count, one kind per reason: the pool forced to grow or shrink in
/// black (starvation a filled triangle, cooperative blocking a filled diamond, a thread timing out a hollow triangle
/// down), hill climbing's own moves in grey (pluses, crosses, squares, diamonds). Black and grey are no variant's colour.
/// </summary>
internal static class PoolAdjustmentMarkers
{
    private const string Forced = "#000000";
    private const string HillClimbing = "#777777";

    private sealed record Style(string Reason, MarkerShape Shape, bool Filled, string Color);

    /// <summary>Every reason the runtime names (ThreadAdjustmentReasonMap), in the order the legend lists them.</summary>
    private static readonly Style[] Styles =
    [
        new(PoolSample.StarvationReason, MarkerShape.TriangleUp, true, Forced),
        new(PoolSample.CooperativeBlockingReason, MarkerShape.Diamond, true, Forced),
        new("ThreadTimedOut", MarkerShape.TriangleDown, false, Forced),
        new("ClimbingMove", MarkerShape.Plus, false, HillClimbing),
        new("RandomMove", MarkerShape.Cross, false, HillClimbing),
        new("ChangePoint", MarkerShape.Square, false, HillClimbing),
        new("Stabilizing", MarkerShape.Square, true, HillClimbing),
        new("Warmup", MarkerShape.Diamond, false, HillClimbing),
        new("Initializing", MarkerShape.TriangleDown, false, HillClimbing),
    ];

    /// <summary>A reason the runtime may add later.</summary>
    private static readonly Style Other = new("", MarkerShape.Cross, false, Forced);

    /// <summary>One marker kind per reason that occurs, named "pool adjustment: Starvation"; empty when there were none.</summary>
    public static IReadOnlyList<ChartMarkers> Of(IReadOnlyList<SummaryAdjustment> adjustments) =>
    [
        .. adjustments.GroupBy(a => a.Reason)
            .Select(g => (Marks: g, Style: Styles.FirstOrDefault(s => s.Reason == g.Key) ?? Other))
            .OrderBy(r => Array.IndexOf(Styles, r.Style) is var rank and >= 0 ? rank : Styles.Length)
            .ThenBy(r => r.Marks.Key, StringComparer.Ordinal)
            .Select(r => new ChartMarkers($"pool adjustment: {r.Marks.Key}", [.. r.Marks.Select(a => (a.ElapsedSeconds, (double)a.NewWorkerThreadCount))], r.Style.Color, r.Style.Shape, r.Style.Filled)),
    ];
}
