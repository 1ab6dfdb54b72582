using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.Platform.Statistics;
using ConcurrencySandbox.Contracts.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Running;

/// <summary>
/// Turns the findings of each round into the run's one verdict: the rounds' verdict figures give a median and its
/// distribution-free 95 % CI (<see cref="Estimates"/>); the verdict is stated only when the whole CI lies on one side
/// of the threshold, else it is inconclusive and says why. Rounds whose figure was impossible are left out and named.
/// </summary>
internal static class RoundVerdict
{
    /// <summary>The run's finding and the round (0-based) whose results stand for the variants in the report: the one nearest the median.</summary>
    /// <remarks>The verdict says how many rounds, not their order: each round's order is listed under it (<see cref="Reports.ReportWriter.RoundLines"/>).</remarks>
    public static (Finding Finding, int ShownRound) Judge(IReadOnlyList<Finding> rounds, int planned, string? stoppedBecause)
    {
        if (rounds.Count == 0)
        {
            throw new ArgumentException("At least one round is needed.", nameof(rounds));
        }
        var judged = rounds.Select((f, i) => (Finding: f, Round: i)).Where(r => r.Finding.Figure is not null && r.Finding.Outcome != Outcome.Impossible).ToList();
        var impossible = rounds.Select((f, i) => (Finding: f, Round: i)).Where(r => r.Finding.Outcome == Outcome.Impossible).ToList();
        var left = impossible.Count == 0 ? "" : Invariant($"; left out as impossible: {string.Join("; ", impossible.Select(r => $"round {r.Round + 1}: {r.Finding.Detail}"))}");
        var stopped = stoppedBecause is null ? "" : $"; {stoppedBecause}";
        if (judged.Count == 0)
        {
            // Nothing to judge: every round impossible, or the experiment gave no figure (not assessed).
            var last = rounds.Count - 1;
            return (impossible.Count > 0 ? impossible[^1].Finding : rounds[last], impossible.Count > 0 ? impossible[^1].Round : last);
        }

        var figure = judged[0].Finding.Figure!;
        var estimate = Estimates.Of([.. judged.Select(r => r.Finding.Figure!.Value)]);
        var shown = judged.MinBy(r => Math.Abs(r.Finding.Figure!.Value - estimate.Median));
        var lowerBound = judged.Any(r => r.Finding.Figure!.LowerBound);
        var quoted = Invariant($"{figure.Name} {figure.Show(estimate.Median)} {estimate.Interval(figure.Format)} over {judged.Count} of {CountText.Of(planned, "round")}{(lowerBound ? ", a lower bound (requests timed out)" : "")}");
        var side = figure.SideOf(estimate.Low, estimate.High, lowerBound);
        // The claim that rests on the verdict figure is stated from the rounds' CI, not from the shown round's alone.
        var claims = shown.Finding.Claims.Select(c => c.OnVerdictFigure
            ? c with
            {
                Verdict = VerdictFigure.ClaimOf(side),
                Interval = Invariant($"{estimate.Interval(figure.Format)} over {judged.Count} rounds (median {figure.Show(estimate.Median)}{(lowerBound ? ", a lower bound" : "")})"),
                Why = side is null ? Why(estimate, figure, lowerBound) : Invariant($"the rounds' 95 % CI lies {(side.Value ? "on the reproduced side of" : "on the other side of")} {figure.Show(figure.Threshold)}"),
            }
            : c).ToList();
        var (outcome, why) = side switch
        {
            // Another condition of the experiment's (e.g. lock contentions seen, another claim refuted) can still say not reproduced.
            true => (claims.Count > 0 ? Finding.OutcomeOf(claims) : shown.Finding.Outcome, ""),
            false => (Outcome.NotReproduced, ""),
            null => (Outcome.Inconclusive, Why(estimate, figure, lowerBound) + ": "),
        };
        // An inconclusive run quotes the median round's sentence as what one round alone would say, never as the verdict.
        var median = outcome == Outcome.Inconclusive ? "what the median round alone would say (no verdict)" : "the median round";
        var detail = Invariant($"{why}{quoted}{left}{stopped}; {median}: {shown.Finding.Detail}");
        return (shown.Finding with { Outcome = outcome, Detail = detail, Interval = estimate, Claims = claims }, shown.Round);
    }

    /// <summary>
    /// A run that gives figures but no verdict (<paramref name="why"/>: the smoke profile, or too short a load): the
    /// figures it measured, none of the verdict's words.
    /// </summary>
    public static Finding NoVerdict(Finding measured, string why)
    {
        var figure = measured.Figure is { } f
            ? measured.Interval is { } i ? Invariant($"{f.Name} {f.Show(i.Median)} {i.Interval(f.Format)}") : Invariant($"{f.Name} {f.Show(f.Value)}")
            : null;
        var figures = string.Join("; ", new[] { figure }.Concat(measured.Comparisons.Select(c => $"{c.Figure}: {c.Today}")).OfType<string>());
        var impossible = measured.Outcome == Outcome.Impossible ? $" Impossible besides: {measured.Detail}" : "";
        return measured with
        {
            Outcome = Outcome.NoVerdict,
            Detail = $"{why}; figures: {(figures.Length > 0 ? figures : "none")}.{impossible}",
            // Each claim keeps its figure and loses its verdict: a smoke run confirms and refutes nothing.
            Claims = [.. measured.Claims.Select(c => c with { Verdict = ClaimVerdict.Inconclusive, Why = "no verdict from this run: figure only" })],
        };
    }

    private static string Why(Contracts.Statistics.Estimate estimate, VerdictFigure figure, bool lowerBound) =>
        estimate.Low is null
            ? Invariant($"{CountText.Of(estimate.Count, "round")} {(estimate.Count == 1 ? "gives" : "give")} no 95 % CI (at least {MedianInterval.MinimumCount} needed; --rounds)")
            : lowerBound
                ? Invariant($"the figure is only a lower bound and its CI does not clear {figure.Show(figure.Threshold)}")
                : Invariant($"the 95 % CI straddles the threshold of {figure.Show(figure.Threshold)}");
}
