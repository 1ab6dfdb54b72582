using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Engine;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>Where a response curve bends: the point and why (<see cref="ResponseCurve.FindKnee"/>).</summary>
public sealed record Knee(int Index, string Reason);

/// <summary>
/// The analysis of a variant's response curve: its latency (p50, p99) and throughput (ok answers per second) against
/// the offered load, one point per loaded step, and the knee. Latencies cover the requests that got an answer in the
/// step (null when none did: "no answer", never 0); the requests sent during the step that timed out are counted by when
/// they were sent, with the time they were given up after as a lower bound, never as a latency.
/// </summary>
public static class ResponseCurve
{
    /// <summary>The p99 at a step must exceed this multiple of the unloaded p99 (the first answered step's) to be the knee.</summary>
    public const double LatencyKneeFactor = 2;

    /// <summary>
    /// Throughput "stops growing" when it rises by less than this share of the load's relative rise from the step before
    /// (a healthy server's throughput rises in proportion to the users or the arrival rate).
    /// </summary>
    public const double ThroughputGrowthShare = 0.5;

    /// <summary>A rate as the knee's sentence prints it, with the digits a small one needs to read as what it is, not "0".</summary>
    private static string Rate(double perSecond) => Invariant(perSecond switch
    {
        >= 100 => $"{perSecond:0}",
        >= 1 => $"{perSecond:0.#}",
        _ => $"{perSecond:0.###}",
    });

    /// <summary>The load's unit as a curve's axis and sentences print it ("users", "req/s").</summary>
    public static string UnitOf(string loadUnit) => loadUnit == "rate" ? "req/s" : loadUnit;

    /// <summary>The curve of one variant from its loaded steps, its knee and its sentence; null when the load had fewer than two steps (no curve to draw).</summary>
    public static SummaryCurve? Of(VariantResult variant)
    {
        if (variant.Steps.Count < 2)
        {
            return null;
        }
        // A step with no load (a drain after the load ended) is no point of a response curve.
        var loaded = variant.Steps.Select((step, index) => (step, index)).Where(s => s.step.Load > 0).ToList();
        var points = loaded.Select(s => PointOf(variant, s.step)).ToList();
        var knee = FindKnee(points);
        var unit = UnitOf(variant.LoadUnit);
        var name = variant.Key.Label;
        var line = knee is not null
            ? Invariant($"{name}: knee at {points[knee.Index].Load:0.##} {unit} ({knee.Reason})")
            : points.Count > 0 && points[0].P99Ms is null
            ? Invariant($"{name}: no knee stated: its first step ({points[0].Load:0.##} {unit}) got no answer within it, so there is no unloaded latency to compare with (saturated at the lowest load measured, its knee at or below it, or its requests outlast a step)")
            : Invariant($"{name}: no knee up to {points[^1].Load:0.##} {unit} (p99 within {LatencyKneeFactor:0} x unloaded, throughput growing with the load)");
        return new SummaryCurve(points, knee is null ? null : new SummaryKnee(knee.Index, loaded[knee.Index].index, knee.Reason), line);
    }

    /// <summary>
    /// The knee: the first step after the first whose p99 exceeds <see cref="LatencyKneeFactor"/> x the unloaded p99
    /// (the first step's), or whose throughput stops growing while the load rises (it rises by less than
    /// <see cref="ThroughputGrowthShare"/> of the load's relative rise after a step that had some throughput; a step
    /// with no answer after one with answers has stopped). Null when no step meets either, and when the first step got
    /// no answer: there is no unloaded latency to compare with.
    /// </summary>
    public static Knee? FindKnee(IReadOnlyList<SummaryCurvePoint> points)
    {
        if (points.Count == 0 || points[0].P99Ms is not { } unloaded)
        {
            return null;
        }
        for (var i = 1; i < points.Count; i++)
        {
            var (before, point) = (points[i - 1], points[i]);
            if (point.P99Ms is { } p99 && p99 > LatencyKneeFactor * unloaded)
            {
                return new Knee(i, $"p99 {SvgChart.Milliseconds(p99)} > {LatencyKneeFactor:0} x unloaded {SvgChart.Milliseconds(unloaded)}");
            }
            // Throughput can only stop growing after a step that had some: from no answer to no answer is no knee.
            if (point.Load > before.Load && before.Load > 0 && before.OkPerSecond > 0)
            {
                var loadRise = point.Load / before.Load - 1;
                var throughputRise = point.OkPerSecond / before.OkPerSecond - 1;
                if (throughputRise < ThroughputGrowthShare * loadRise)
                {
                    return new Knee(i, Invariant($"throughput {Rate(point.OkPerSecond)}/s after {Rate(before.OkPerSecond)}/s while the load rose {100 * loadRise:0} %"));
                }
            }
        }
        return null;
    }

    private static SummaryCurvePoint PointOf(VariantResult variant, StepRow step)
    {
        var sent = variant.SentBetween(step.FromSeconds, step.ToSeconds);
        var answered = step.Stats.Completed;
        var seconds = step.ToSeconds - step.FromSeconds;
        return new SummaryCurvePoint(
            step.Load,
            answered > 0 ? step.Stats.P50Ms : null,
            answered > 0 ? step.Stats.P99Ms : null,
            seconds > 0 ? step.Stats.Ok / seconds : 0,
            answered,
            sent.TimedOut,
            sent.ConnectionErrors,
            sent.TimedOut > 0 ? sent.TimedOutAtMs : null);
    }
}
