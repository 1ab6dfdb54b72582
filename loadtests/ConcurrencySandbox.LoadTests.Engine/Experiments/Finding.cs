using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Statistics;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>What a run says about a seed's effect.</summary>
public enum Outcome
{
    Reproduced,
    NotReproduced,

    /// <summary>The variants the verdict needs did not all produce data (not selected, or no completed request).</summary>
    NotAssessed,

    /// <summary>The verdict's figure has no 95 % CI, or its CI straddles the threshold: no verdict either way.</summary>
    Inconclusive,

    /// <summary>The figure cannot be true on the machine it came from (a ratio above the cores, a latency below the work's own delay): never a verdict.</summary>
    Impossible,

    /// <summary>A smoke run, or one shorter than the experiment needs: figures only.</summary>
    NoVerdict,
}

/// <summary>A figure from the seed beside today's.</summary>
public sealed record SeedComparison(string Figure, string Seed, string Today);

/// <summary>
/// The figure a verdict is judged on, from one round of the variants: reproduced when it is at or above
/// <paramref name="Threshold"/> (<paramref name="ReproducedAbove"/>) or at or below it. <paramref name="LowerBound"/>:
/// timed-out requests make the value only a lower bound.
/// </summary>
public sealed record VerdictFigure(string Name, double Value, double Threshold, bool ReproducedAbove, string Format, string Unit)
{
    public bool LowerBound { get; init; }

    public string Show(double value) => value.ToString(Format, System.Globalization.CultureInfo.InvariantCulture) + Unit;

    /// <summary>
    /// Which side of <see cref="Threshold"/> a 95 % CI from <paramref name="low"/> to <paramref name="high"/> lies on:
    /// true when all of it is on the reproduced side, false on the other, null when there is no CI, it straddles the
    /// threshold, or (<paramref name="lowerBound"/>: timed-out requests) it is only a lower bound that falls short.
    /// </summary>
    public bool? SideOf(double? low, double? high, bool lowerBound)
    {
        if (low is not { } l || high is not { } h)
        {
            return null;
        }
        var reproduced = ReproducedAbove ? l >= Threshold : h <= Threshold;
        var not = ReproducedAbove ? h < Threshold : l > Threshold;
        // A lower bound can only show that the true figure is at least as high.
        return reproduced && (!lowerBound || ReproducedAbove) ? true
            : not && !lowerBound ? false
            : null;
    }

    /// <summary>The claim verdict a side gives (<see cref="SideOf"/>): confirmed, refuted or inconclusive.</summary>
    public static ClaimVerdict ClaimOf(bool? side) => side switch
    {
        true => ClaimVerdict.Confirmed,
        false => ClaimVerdict.Refuted,
        null => ClaimVerdict.Inconclusive,
    };
}

/// <summary>What today's figure says about one claim of a seed.</summary>
public enum ClaimVerdict
{
    Confirmed,
    Refuted,

    /// <summary>The figure cannot decide: its interval straddles the claim's line, it is a bound on the wrong side, or it was not measured.</summary>
    Inconclusive,
}

/// <summary>
/// One claim of a seed (seed 001's "the heap halves"), judged on its own: the verdict, the figure it rests on and that
/// figure's 95 % CI or why there is none, and why the figure decides as it does.
/// </summary>
public sealed record Claim(string What, ClaimVerdict Verdict, string Figure, string Interval, string Why)
{
    /// <summary>
    /// The claim rests on the finding's <see cref="Finding.Figure"/>: measured in rounds, it is stated from the rounds'
    /// CI (Running/RoundVerdict.cs) instead of the one round's, so it is judged once.
    /// </summary>
    public bool OnVerdictFigure { get; init; }

    /// <summary>The claim as the summary holds it, which every report prints.</summary>
    public SummaryClaim Summary => new(What, Verdict.ToString(), Figure, Interval, Why);

    /// <summary>"heap halved: refuted: saea-pooled 153 % of allocating's [148, 160] (the seed's about 50 %)".</summary>
    public string Line => Summary.Line;
}

/// <summary>
/// The one rule that words a verdict over a seed's claims, for a run's finding (<see cref="Finding.Verdict"/>), for a
/// summary rendered again (<c>report</c>) and for the first sentence: a verdict rests only on the claims whose figures
/// passed their checks, so "Reproduced" only when every claim is confirmed; some confirmed and the rest inconclusive or
/// refuted reads "Partly reproduced: 1 of 3 claims confirmed, 2 inconclusive (heap halved: an interval straddles the
/// line; less CPU: an interval straddles the line)", an inconclusive outcome.
/// </summary>
public static class ClaimsVerdict
{
    /// <summary>True when some claims are confirmed and not all, in an outcome that is no verdict either way.</summary>
    public static bool Partly(Outcome outcome, IReadOnlyList<SummaryClaim> claims) =>
        outcome == Outcome.Inconclusive && claims.Any(c => Is(c, ClaimVerdict.Confirmed)) && !AllConfirmed(claims);

    /// <summary>True when every claim is confirmed (and there is one): what "Reproduced" over claims needs.</summary>
    public static bool AllConfirmed(IReadOnlyList<SummaryClaim> claims) => claims.Count > 0 && claims.All(c => Is(c, ClaimVerdict.Confirmed));

    /// <summary>
    /// The outcome a run stated, held to this rule: "Reproduced" over claims not all confirmed is inconclusive (partly
    /// reproduced); any other outcome as stated.
    /// </summary>
    public static Outcome Held(Outcome stated, IReadOnlyList<SummaryClaim> claims) =>
        stated == Outcome.Reproduced && claims.Count > 0 && !AllConfirmed(claims) ? Outcome.Inconclusive : stated;

    /// <summary>
    /// "1 of 3 claims confirmed, 2 inconclusive": how many claims have <paramref name="lead"/>'s verdict, then the others
    /// by verdict; empty when every claim has it.
    /// </summary>
    public static string Tally(IReadOnlyList<SummaryClaim> claims, ClaimVerdict lead)
    {
        var led = claims.Count(c => Is(c, lead));
        if (led == claims.Count)
        {
            return "";
        }
        var others = claims.Where(c => !Is(c, lead)).GroupBy(c => c.Verdict.ToLowerInvariant()).Select(g => $"{CountText.Of(g.Count())} {g.Key}");
        return $"{CountText.Of(led)} of {CountText.Of(claims.Count, "claim")} {lead.ToString().ToLowerInvariant()}, {string.Join(", ", others)}";
    }

    /// <summary>
    /// The verdict's first words: "Reproduced", "Not reproduced", "Inconclusive", ..., or "Partly reproduced: 1 of 3
    /// claims confirmed, 2 inconclusive (heap halved: why; less CPU: why)", each claim not confirmed with the first
    /// clause of its why.
    /// </summary>
    public static string Label(Outcome outcome, IReadOnlyList<SummaryClaim> claims) => Partly(outcome, claims)
        ? $"Partly reproduced: {Tally(claims, ClaimVerdict.Confirmed)} ({string.Join("; ", claims.Where(c => !Is(c, ClaimVerdict.Confirmed)).Select(c => $"{c.What}: {c.Why.Split("; ")[0]}"))})"
        : outcome switch
        {
            Outcome.Reproduced => "Reproduced",
            Outcome.NotReproduced => "Not reproduced",
            Outcome.Inconclusive => "Inconclusive",
            Outcome.Impossible => "Impossible figure, no verdict",
            Outcome.NoVerdict => "smoke: no verdict",
            _ => "Not assessed",
        };

    private static bool Is(SummaryClaim claim, ClaimVerdict verdict) => claim.Verdict == verdict.ToString();
}

/// <summary>What the data says about the seed's effect: the outcome, the figures side by side and one computed sentence.</summary>
public sealed record Finding(Outcome Outcome, IReadOnlyList<SeedComparison> Comparisons, string Detail)
{
    /// <summary>The figure the outcome was judged on in one round; null for an experiment whose verdict has none yet.</summary>
    public VerdictFigure? Figure { get; init; }

    /// <summary>The figure's median and 95 % CI over the rounds, once the runner has judged them (Running/RoundVerdict.cs).</summary>
    public Estimate? Interval { get; init; }

    /// <summary>The seed's claims, each with its own verdict, where the seed makes several; empty where it makes one.</summary>
    public IReadOnlyList<Claim> Claims { get; init; } = [];

    /// <summary>
    /// True when some claims are confirmed and the others not (<see cref="ClaimsVerdict.Partly"/>) in a finding judged
    /// from them: the headline says "Partly reproduced". Never for a finding that is no verdict (smoke, impossible),
    /// whatever its claims.
    /// </summary>
    public bool Partly => ClaimsVerdict.Partly(Stated, SummaryClaims);

    /// <summary>
    /// The outcome held to its claims (<see cref="ClaimsVerdict.Held"/>): what the reports print and the summary keeps,
    /// so a finding stated "Reproduced" over claims not all confirmed reads partly reproduced wherever it is made.
    /// </summary>
    public Outcome Stated => ClaimsVerdict.Held(Outcome, SummaryClaims);

    /// <summary>The sentence the reports print: "Reproduced: ...", "Partly reproduced: 1 of 3 claims confirmed, ...: ...", "Not reproduced: ...", "Inconclusive: ..." or "Not assessed: ...".</summary>
    public string Verdict => $"{ClaimsVerdict.Label(Stated, SummaryClaims)}: {Detail}";

    private IReadOnlyList<SummaryClaim> SummaryClaims => [.. Claims.Select(c => c.Summary)];

    public static Finding NotAssessed(string why) => new(Outcome.NotAssessed, [], why);

    /// <summary>A figure that cannot be true: <paramref name="why"/> names the limit it broke and the likely cause.</summary>
    public static Finding Impossible(IReadOnlyList<SeedComparison> comparisons, string why) => new(Outcome.Impossible, comparisons, why);

    /// <summary>
    /// A finding from the claims its figures decide: reproduced when every claim is confirmed, not reproduced when every
    /// decided one is refuted, else inconclusive as a whole (printed "Partly reproduced" when some are confirmed).
    /// </summary>
    public static Finding OfClaims(IReadOnlyList<Claim> claims, IReadOnlyList<SeedComparison> comparisons, string detail) =>
        new(OutcomeOf(claims), comparisons, $"{detail} Claims: {Tally(claims)}.") { Claims = claims };

    /// <summary>
    /// Reproduced when every claim is confirmed (an inconclusive one leaves part of the effect unshown: <see cref="ClaimsVerdict"/>),
    /// not reproduced when every decided one is refuted, else (none decided, some confirmed and some not) inconclusive;
    /// inconclusive too when the claim on the verdict figure is (<see cref="Claim.OnVerdictFigure"/>): the other claims
    /// cannot state the verdict without it.
    /// </summary>
    public static Outcome OutcomeOf(IReadOnlyList<Claim> claims)
    {
        if (claims.Any(c => c.OnVerdictFigure && c.Verdict == ClaimVerdict.Inconclusive))
        {
            return Outcome.Inconclusive;
        }
        var decided = claims.Where(c => c.Verdict != ClaimVerdict.Inconclusive).ToList();
        return decided.Count == 0 ? Outcome.Inconclusive
            : ClaimsVerdict.AllConfirmed([.. claims.Select(c => c.Summary)]) ? Outcome.Reproduced
            : decided.All(c => c.Verdict == ClaimVerdict.Refuted) ? Outcome.NotReproduced
            : Outcome.Inconclusive;
    }

    /// <summary>"latency under load confirmed, max latency inconclusive".</summary>
    private static string Tally(IReadOnlyList<Claim> claims) => string.Join(", ", claims.Select(c => $"{c.What} {c.Verdict.ToString().ToLowerInvariant()}"));
}
