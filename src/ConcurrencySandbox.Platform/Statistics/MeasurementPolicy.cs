using System.Globalization;
using ConcurrencySandbox.Contracts.Statistics;

namespace ConcurrencySandbox.Platform.Statistics;

/// <summary>
/// How every A-vs-B figure is measured (compare, the sweeps, the matrix and the container stage all go through it), after
/// BenchmarkDotNet's pilot, warm-up and target stages: warm up until the per-run time stops improving (the code has reached
/// its final JIT tier), then run A and B in pairs, alternating which goes first (AB BA AB ...) so drift in the machine's
/// speed hits both, and repeat until the 95 % interval of each median and of the ratio of their totals is within
/// +-<paramref name="TargetHalfWidthPercent"/> or the <paramref name="Budget"/> runs out.
/// </summary>
/// <param name="MinimumRepeats">Pairs always run, budget or not (6 is the fewest with a 95 % interval).</param>
public sealed record MeasurementPolicy(double TargetHalfWidthPercent, TimeSpan Budget, int MinimumRepeats, int MaximumRepeats = MeasurementPolicy.RepeatCap)
{
    public const double MinTargetHalfWidthPercent = 1;
    public const double MaxTargetHalfWidthPercent = 50;
    public const double DefaultTargetHalfWidthPercent = 5;
    public const double MinBudgetSeconds = 1;
    public const double MaxBudgetSeconds = 1800;

    /// <summary>The share of the budget the rows' warm-ups may take in all, before and on top of the budget.</summary>
    public const double WarmupBudgetShare = 0.25;

    /// <summary>The share of a sweep's budget spent, after the sweep, on measuring the rows inside the break-even bracket that could not be placed again.</summary>
    public const double CrossingBudgetShare = 0.25;

    /// <summary>
    /// The longest a sweep with <paramref name="budget"/> runs, give or take the last pair of each stage: the warm-ups
    /// (<see cref="WarmupBudgetShare"/>), the rounds (the budget) and the narrowing (<see cref="CrossingBudgetShare"/>).
    /// A client waiting for the answer must wait at least this long: at the largest budget, 1800 s, it is 2700 s.
    /// </summary>
    public static TimeSpan LongestSweep(TimeSpan budget) => budget * (1 + WarmupBudgetShare + CrossingBudgetShare);

    /// <summary>The most pairs one figure takes: at 1000 the interval is a few ranks around the median, more buys little.</summary>
    public const int RepeatCap = 1000;

    /// <summary>Tiered JIT moves a method to tier 1 after 30 calls (and a quiet 100 ms): warm-up never stops before these.</summary>
    public const int MinWarmupInvocations = 30;

    public static readonly TimeSpan MinWarmupTime = TimeSpan.FromMilliseconds(250);

    /// <summary>Warm-up ends once the best of the last few runs is no faster than this share below the best before them.</summary>
    public const double WarmupImprovementPercent = 5;

    public const int WarmupWindow = 5;

    /// <summary>
    /// The share of <see cref="Budget"/> the measurement must have run before a figure may stop as converged (zero: as soon
    /// as it is). A sweep sets a half: on this VM a row of a few microseconds reads 30 % in one stretch of seconds and 140 %
    /// in the next (whether a second pool worker is awake), so a row that converged on its first few pairs described one
    /// stretch. A share, not a time, so a policy given another budget keeps it.
    /// </summary>
    public double MinimumSpanShare { get; init; }

    /// <summary>How long the measurement must have run before a figure may stop as converged: <see cref="MinimumSpanShare"/> of the budget.</summary>
    public TimeSpan MinimumSpan => Budget * MinimumSpanShare;

    /// <summary>"the 95 % CI within +-5 %, at most 30 s": the policy in words for reports.</summary>
    public string Describe() => string.Create(CultureInfo.InvariantCulture,
        $"A and B interleaved (AB BA ...) after a warm-up to the final JIT tier; repeated until the 95 % CI of each median and of the ratio is within +-{TargetHalfWidthPercent:0.#} % (at least {MinimumRepeats} pairs{(MinimumSpan > TimeSpan.Zero ? $" and {MinimumSpan.TotalSeconds:0.#} s" : "")}, at most {Budget.TotalSeconds:0.#} s)");

    /// <summary>Which of A (false) and B (true) runs first in pair <paramref name="pair"/>: A first in even pairs, B first in odd ones.</summary>
    public static bool BFirst(int pair) => pair % 2 == 1;

    /// <summary>
    /// Whether warm-up is over, given the per-run seconds so far (each run makes <paramref name="invocationsPerRun"/> calls):
    /// enough calls for tier 1, enough time for the tiering delay, and the last <see cref="WarmupWindow"/> runs no longer
    /// faster than the best before them by more than <see cref="WarmupImprovementPercent"/>.
    /// </summary>
    public static bool WarmedUp(IReadOnlyList<double> runSeconds, int invocationsPerRun, TimeSpan elapsed)
    {
        if (runSeconds.Count * invocationsPerRun < MinWarmupInvocations || elapsed < MinWarmupTime || runSeconds.Count <= WarmupWindow)
        {
            return false;
        }

        var bestBefore = runSeconds.Take(runSeconds.Count - WarmupWindow).Min();
        var bestRecent = runSeconds.Skip(runSeconds.Count - WarmupWindow).Min();
        return bestRecent >= bestBefore * (1 - (WarmupImprovementPercent / 100));
    }

    /// <summary>
    /// Whether to stop after <paramref name="pairs"/> pairs that took <paramref name="elapsed"/> in all (the last one
    /// <paramref name="lastPair"/>), with these <paramref name="figures"/>; null to keep going.
    /// </summary>
    public StopReason? ShouldStop(IReadOnlyList<Estimate> figures, int pairs, TimeSpan elapsed, TimeSpan lastPair)
    {
        if (pairs < MinimumRepeats)
        {
            return null;
        }

        if (elapsed >= MinimumSpan && figures.All(f => f.HalfWidthPercent <= TargetHalfWidthPercent))
        {
            return StopReason.Converged;
        }

        return pairs >= MaximumRepeats ? StopReason.MaximumRepeats
            : elapsed + lastPair > Budget ? StopReason.BudgetSpent
            : null;
    }

    /// <summary>A figure whose interval stays wider than the target, or that has none, is inconclusive.</summary>
    public bool IsConclusive(Estimate figure) => figure.HalfWidthPercent <= TargetHalfWidthPercent;
}
