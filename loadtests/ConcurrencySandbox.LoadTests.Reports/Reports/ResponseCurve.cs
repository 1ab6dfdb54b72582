using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Engine;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>Where a response curve bends: the point and why (<see cref="ResponseCurve.FindKnee"/>).</summary>
public sealed record Knee(int Index, string Reason);

/// <summary>A curve's knee, or why none is stated (null when the curve simply does not bend).</summary>
public sealed record KneeFinding(Knee? Knee, string? NoKneeBecause);

/// <summary>
/// The analysis of a variant's response curve: its latency (p50, p99) and throughput (ok answers per second) against
/// the offered load, one point per loaded step, and the knee. Every figure of a step is that of the requests SENT in it,
/// wherever they ended: the latencies of those that got an answer (null when none did: "no answer", never 0), those
/// that timed out with the time they were given up after (a lower bound, never a latency), and ok answers per second.
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

    /// <summary>
    /// The requests a step needs (answered, or timed out: each has a latency or a bound) to state a knee at it, or to
    /// give the unloaded latency when it is the first: a p99 of three requests is their maximum, noise.
    /// </summary>
    public const int MinimumRequestsPerStep = 20;

    /// <summary>A rate as the knee's sentence prints it, with the digits a small one needs to read as what it is, not "0".</summary>
    private static string Rate(double perSecond) => Invariant(perSecond switch
    {
        >= 100 => $"{perSecond:0}",
        >= 1 => $"{perSecond:0.#}",
        _ => $"{perSecond:0.###}",
    });

    /// <summary>The load's unit as a curve's axis and sentences print it ("users", "req/s").</summary>
    public static string UnitOf(string loadUnit) => loadUnit == "rate" ? "req/s" : loadUnit;

    /// <summary>A latency in milliseconds written with its unit, as a knee's reason says it: 1 ms, 100 ms, 1 s, 10 s.</summary>
    public static string Milliseconds(double ms) => ms >= 1000
        ? (ms / 1000).ToString("0.##", CultureInfo.InvariantCulture) + " s"
        : ms.ToString(ms >= 1 ? "0.##" : "0.###", CultureInfo.InvariantCulture) + " ms";

    /// <summary>
    /// A load as every page prints it: users or clients a count ("40 users", "1 user", "5,124 clients", <see cref="CountText"/>),
    /// a rate with its decimals ("20 req/s", "2.5 req/s").
    /// </summary>
    public static string LoadText(double load, string loadUnit)
    {
        var unit = UnitOf(loadUnit);
        return unit.Contains('/') || load != Math.Floor(load) ? Invariant($"{load:0.##} {unit}")
            : CountText.Of((long)load, unit.EndsWith('s') ? unit[..^1] : unit, unit);
    }

    /// <summary>The curve of one variant from its loaded steps, its knee and its sentence; null when the load had fewer than two steps (no curve to draw).</summary>
    /// <param name="sent">What the load sent, as the sentences count it ("requests", "messages": the summary's words).</param>
    public static SummaryCurve? Of(VariantResult variant, string sent)
    {
        if (variant.Steps.Count < 2)
        {
            return null;
        }
        // A step with no load (a drain after the load ended) is no point of a response curve.
        var loaded = variant.Steps.Select((step, index) => (step, index)).Where(s => s.step.Load > 0).ToList();
        return Of(variant.Key.Label, variant.LoadUnit, [.. loaded.Select(s => PointOf(s.step))], [.. loaded.Select(s => s.index)], sent);
    }

    /// <summary>
    /// The curve of points already taken (a variant's, or a summary's as written), with its knee and its sentence by
    /// this build's rule; <paramref name="stepOfPoint"/> is each point's index among the variant's steps.
    /// </summary>
    /// <param name="sent">What the load sent, as the sentences count it ("requests", "messages").</param>
    public static SummaryCurve Of(string name, string loadUnit, IReadOnlyList<SummaryCurvePoint> points, IReadOnlyList<int> stepOfPoint, string sent)
    {
        var unit = UnitOf(loadUnit);
        var (knee, noKneeBecause) = FindKnee(points, unit, sent);
        var line = knee is not null ? $"{name}: knee at {LoadText(points[knee.Index].Load, unit)} ({knee.Reason}; {RestsOn(points, [knee.Index, knee.Index + 1], unit, sent)})"
            : noKneeBecause is not null ? $"{name}: no knee stated: {noKneeBecause}"
            : Invariant($"{name}: no knee up to {LoadText(points[^1].Load, unit)} (p99 within {LatencyKneeFactor:0} x unloaded, throughput growing with the load; {RestsOn(points, [], unit, sent)})");
        return new SummaryCurve(points, knee is null ? null : new SummaryKnee(knee.Index, stepOfPoint[knee.Index], knee.Reason), line);
    }

    /// <summary>
    /// "from 143 requests at 8 users and 212 at 16 users, the unloaded p99 from 96 at 4 users": the requests (answered or
    /// timed out, <see cref="Measured"/>) the knee's steps and the unloaded latency rest on, as the summary's points hold them.
    /// </summary>
    private static string RestsOn(IReadOnlyList<SummaryCurvePoint> points, IReadOnlyList<int> steps, string unit, string sent)
    {
        var first = points[0];
        var unloaded = $"the unloaded p99 from {Count(Measured(first), sent)} at {LoadText(first.Load, unit)}";
        return steps.Count == 0 ? unloaded
            : $"from {string.Join(" and ", steps.Select(i => $"{Count(Measured(points[i]), sent)} at {LoadText(points[i].Load, unit)}"))}, {unloaded}";
    }

    /// <summary>"1 message", "407,833 requests": <paramref name="count"/> of what the load sent, its noun in the number it takes.</summary>
    private static string Count(long count, string sent) => CountText.Of(count, sent.TrimEnd('s'), sent);

    /// <summary>The requests of a step with a latency or a bound: answered, or sent in it and timed out.</summary>
    private static long Measured(SummaryCurvePoint point) => point.Answered + point.SentTimedOut;

    /// <summary>
    /// The knee: the first step after the first, with at least <see cref="MinimumRequestsPerStep"/> requests, whose p99
    /// (or, with no answer, the time its timed-out requests were given up after) exceeds <see cref="LatencyKneeFactor"/>
    /// x the unloaded p99 (the first step's), or whose throughput stops growing while the load rises (it rises by less
    /// than <see cref="ThroughputGrowthShare"/> of the load's relative rise after a step that had some throughput), and
    /// which the next step confirms (it meets either against the knee's step too). No knee is stated, with the reason,
    /// when the first step got no answer or too few requests (no unloaded latency), or when a bend is not confirmed
    /// because it is the last step; a curve that never bends has no knee and no reason.
    /// </summary>
    /// <param name="unit">The load's unit as the reasons print it ("users", "req/s").</param>
    /// <param name="sent">What the load sent, as the reasons count it ("requests", "messages").</param>
    public static KneeFinding FindKnee(IReadOnlyList<SummaryCurvePoint> points, string unit = "users", string sent = "requests")
    {
        if (points.Count == 0)
        {
            return new KneeFinding(null, null);
        }
        var first = points[0];
        if (first.P99Ms is not { } unloaded)
        {
            return new KneeFinding(null, $"its first step ({LoadText(first.Load, unit)}) got no answer within it, so there is no unloaded latency to compare with (saturated at the lowest load measured, its knee at or below it, or its {sent} outlast a step)");
        }
        if (Measured(first) < MinimumRequestsPerStep)
        {
            return new KneeFinding(null, $"its first step ({LoadText(first.Load, unit)}) had {Count(Measured(first), sent)} with a latency, fewer than the {MinimumRequestsPerStep} a step needs to give an unloaded latency");
        }
        string? unconfirmed = null;
        for (var i = 1; i < points.Count; i++)
        {
            if (Measured(points[i]) < MinimumRequestsPerStep || BendOf(points[i - 1], points[i], unloaded) is not { } reason)
            {
                continue;
            }
            if (i + 1 == points.Count)
            {
                unconfirmed = $"the bend at {LoadText(points[i].Load, unit)} ({reason}) is the last step, so no later step confirms it";
                break;
            }
            if (BendOf(points[i], points[i + 1], unloaded) is not null)
            {
                return new KneeFinding(new Knee(i, $"{reason}; confirmed at {LoadText(points[i + 1].Load, unit)}"), null);
            }
        }
        return new KneeFinding(null, unconfirmed);
    }

    /// <summary>Why <paramref name="point"/> bends after <paramref name="before"/>: its latency above the factor, or its throughput not growing with the load; null when it does not.</summary>
    private static string? BendOf(SummaryCurvePoint before, SummaryCurvePoint point, double unloadedMs)
    {
        // No answer in the step: its timed-out requests' bound stands for its latency (at least that long).
        if ((point.P99Ms ?? point.TimedOutAtLeastMs) is { } p99 && p99 > LatencyKneeFactor * unloadedMs)
        {
            return $"p99 {(point.P99Ms is null ? "\u2265 " : "")}{Milliseconds(p99)} > {LatencyKneeFactor:0} x unloaded {Milliseconds(unloadedMs)}";
        }
        // Throughput can only stop growing after a step that had some: from no answer to no answer is no knee.
        if (point.Load > before.Load && before.Load > 0 && before.OkPerSecond > 0)
        {
            var loadRise = point.Load / before.Load - 1;
            var throughputRise = point.OkPerSecond / before.OkPerSecond - 1;
            if (throughputRise < ThroughputGrowthShare * loadRise)
            {
                return Invariant($"throughput {Rate(point.OkPerSecond)}/s after {Rate(before.OkPerSecond)}/s while the load rose {100 * loadRise:0} %");
            }
        }
        return null;
    }

    /// <summary>A step's point: its figures are those of the requests sent in it, wherever they ended (<see cref="StepRow"/>).</summary>
    private static SummaryCurvePoint PointOf(StepRow step)
    {
        var (stats, seconds) = (step.Stats, step.ToSeconds - step.FromSeconds);
        return new SummaryCurvePoint(
            step.Load,
            stats.Completed > 0 ? stats.P50Ms : null,
            stats.Completed > 0 ? stats.P99Ms : null,
            seconds > 0 ? stats.Ok / seconds : 0,
            stats.Completed,
            stats.TimedOut,
            stats.Outcomes.ConnectionErrors,
            stats.TimedOut > 0 ? stats.TimedOutAtMs : null);
    }
}
