using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using HdrHistogram;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// Latency statistics of a set of requests, in milliseconds, as HdrHistogram holds the answered ones (3 significant
/// digits) with each timed-out request counted at the time it was given up after (<see cref="TimedOutAtMs"/>): its
/// latency was at least that. A figure whose rank falls among those censored values is a lower bound
/// (<see cref="LowerBounds"/>, and <see cref="LatencyFigure.IsLowerBound"/> on <see cref="P50"/>, <see cref="P99"/>...):
/// "p50 &gt;= 60 s" when half timed out. A connection error has no latency and no bound: it is counted, not ranked.
/// When no request got an answer or timed out the positional figures are 0 and the <see cref="LatencyFigure"/>s say "no answer".
/// </summary>
public sealed record LatencyStats(OutcomeCounts Outcomes, double MeanMs, double MinMs, double P50Ms, double P75Ms, double P95Ms, double P99Ms, double P999Ms, double MaxMs)
{
    public static readonly LatencyStats Empty = new(default(OutcomeCounts), 0, 0, 0, 0, 0, 0, 0, 0);

    public long Requests => Outcomes.Requests;
    public long Ok => Outcomes.Ok;
    public long Failed => Outcomes.Failed;
    public long TimedOut => Outcomes.TimedOut;
    public long Completed => Outcomes.Completed;

    /// <summary>The shortest time a timed-out request was given up after (the censoring point); null when none timed out, or the source did not say.</summary>
    public double? TimedOutAtMs { get; init; }

    /// <summary>Which figures are lower bounds because timed-out requests rank at or below them.</summary>
    public LatencyBounds LowerBounds { get; init; }

    /// <summary>
    /// How sure the p99's low end is: the true p99 is at least this with <see cref="P99LowConfidence"/> confidence, whatever
    /// the distribution (the order statistic at <see cref="P99LowRank"/> of the requests ranked, timeouts at their timeout).
    /// Below <see cref="P99Ms"/> by as much as the step's request count leaves the p99 unsure. 0 with no answer.
    /// </summary>
    public double P99LowMs { get; init; }

    /// <summary>The confidence of <see cref="P99LowMs"/>: a step whose true p99 is at a threshold reads above it by that bound at most 5 % of the time.</summary>
    public const double P99LowConfidence = 0.95;

    /// <summary>
    /// The rank (1-based, of <paramref name="ranked"/> values) whose order statistic is a one-sided lower confidence bound on
    /// the <paramref name="quantile"/> (0-1) at <paramref name="confidence"/>: the highest rank r with P(X(r) &gt; the true
    /// quantile) = P(Binomial(ranked, quantile) &lt; r) at most 1 - confidence. 0 when none (no value ranked).
    /// </summary>
    public static long P99LowRank(long ranked, double quantile = 0.99, double confidence = P99LowConfidence)
    {
        // X(r) > q exactly when at most r - 1 values fall at or below q, i.e. at least ranked - r + 1 fall above it: those
        // above are Binomial(ranked, 1 - quantile), so r = ranked - m + 1 for the least m with P(above >= m) <= 1 - confidence.
        var above = 1 - quantile;
        var logPmf = ranked * Math.Log(quantile);
        var belowM = 0.0;
        for (long m = 0; m <= ranked; m++)
        {
            if (1 - belowM <= 1 - confidence + 1e-12)
            {
                return ranked - m + 1;
            }
            belowM += Math.Exp(logPmf);
            logPmf += Math.Log((double)(ranked - m) / (m + 1)) + Math.Log(above / quantile);
        }
        return 0;
    }

    /// <summary>True when no request got an answer or timed out: there is no latency, and 0 must not read as a fast one.</summary>
    public bool NoAnswer => Completed == 0 && TimedOut == 0;

    public LatencyFigure Mean => Figure(MeanMs, LatencyBounds.Mean);
    public LatencyFigure Min => Figure(MinMs, LatencyBounds.Min);
    public LatencyFigure P50 => Figure(P50Ms, LatencyBounds.P50);
    public LatencyFigure P75 => Figure(P75Ms, LatencyBounds.P75);
    public LatencyFigure P95 => Figure(P95Ms, LatencyBounds.P95);
    public LatencyFigure P99 => Figure(P99Ms, LatencyBounds.P99);
    public LatencyFigure P999 => Figure(P999Ms, LatencyBounds.P999);
    public LatencyFigure Max => Figure(MaxMs, LatencyBounds.Max);

    private LatencyFigure Figure(double ms, LatencyBounds which) => NoAnswer ? LatencyFigure.None
        : (LowerBounds & which) != 0 ? new LatencyFigure(TimedOutAtMs is null && ms == 0 ? double.NaN : ms, true)
        : new LatencyFigure(ms, false);

    /// <summary>
    /// Statistics of a histogram of answered requests' latencies in microseconds, beside the outcome counts; the timed-out
    /// requests rank above every answer at <paramref name="timedOutAtMs"/> (unknown: their figures are bounds without a value).
    /// </summary>
    public static LatencyStats From(HistogramBase completedMicros, OutcomeCounts outcomes, double? timedOutAtMs = null)
    {
        var completed = completedMicros.TotalCount;
        var timedOut = outcomes.TimedOut;
        if (completed == 0 && timedOut == 0)
        {
            return Empty with { Outcomes = outcomes };
        }
        var censorMs = timedOut > 0 ? timedOutAtMs : null;
        var bounds = LatencyBounds.None;
        double At(double percent, LatencyBounds which) => AtRank(Math.Max(1, Math.Ceiling(percent / 100 * (completed + timedOut) - 1e-9)), which);
        // The value at a rank among answers and timeouts; exact while the answer there came before the first timeout, else only "at least the timeout".
        double AtRank(double rank, LatencyBounds which)
        {
            if (rank <= completed)
            {
                var ms = completedMicros.GetValueAtPercentile(100.0 * rank / completed) / 1000.0;
                // Unknown timeout (an interval from a source that did not say): answers are taken to precede the timeouts.
                if (timedOut == 0 || censorMs is not { } c || ms < c)
                {
                    return ms;
                }
            }
            bounds |= which;
            return censorMs ?? 0;
        }
        var completedSumMs = completed == 0 ? 0 : completedMicros.GetMean() * completed / 1000;
        var mean = (completedSumMs + timedOut * (censorMs ?? 0)) / (completed + timedOut);
        // The value at 100 % is HdrHistogram's maximum (the highest equivalent of the last filled bucket), read by a
        // plain pass over the counts, where GetMaxValue walks them with its iterator's objects: each interval does this.
        var completedMaxMs = completed == 0 ? 0 : completedMicros.GetValueAtPercentile(100) / 1000.0;
        var stats = new LatencyStats(
            outcomes,
            mean,
            At(0, LatencyBounds.Min),
            At(50, LatencyBounds.P50),
            At(75, LatencyBounds.P75),
            At(95, LatencyBounds.P95),
            At(99, LatencyBounds.P99),
            At(99.9, LatencyBounds.P999),
            Math.Max(completedMaxMs, censorMs ?? 0));
        if (timedOut > 0)
        {
            bounds |= LatencyBounds.Mean | LatencyBounds.Max;
        }
        // Ranked like the p99, so where the p99 is a lower bound (timeouts) its low end is one too: no flag of its own.
        var p99Low = AtRank(Math.Max(1, P99LowRank(completed + timedOut)), LatencyBounds.None);
        return stats with { TimedOutAtMs = censorMs, LowerBounds = bounds, P99LowMs = p99Low };
    }
}

/// <summary>The figures of a <see cref="LatencyStats"/> that can be lower bounds.</summary>
[Flags]
public enum LatencyBounds
{
    None = 0,
    Mean = 1,
    Min = 2,
    P50 = 4,
    P75 = 8,
    P95 = 16,
    P99 = 32,
    P999 = 64,
    Max = 128,
}

/// <summary>
/// One latency figure: exact, a lower bound (requests behind it timed out, so the true value is at least this), or none
/// (no request got an answer). <see cref="Ms"/> is NaN when there is no value: no answer, or a bound whose timeout is unknown.
/// </summary>
public readonly record struct LatencyFigure(double Ms, bool IsLowerBound)
{
    public static LatencyFigure None { get; } = new(double.NaN, false);

    /// <summary>"1234.5", "\u2265 60000" (a lower bound), "\u2265 the timeout" (a bound of unknown value) or "no answer".</summary>
    public string Format(string format = "0.#") => LatencyText.Format(Ms, IsLowerBound, format);

    public override string ToString() => Format();
}

/// <summary>
/// One point of a latency distribution: the share of requests (answered and timed out) at or below a latency, as a
/// percentile; <see cref="IsLowerBound"/> when the point lies among the timed-out requests, drawn at their timeout.
/// </summary>
public sealed record PercentilePoint(double Percentile, double LatencyMs)
{
    public bool IsLowerBound { get; init; }
}
