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

    /// <summary>"heap halved: refuted: saea-pooled 153 % of allocating's [148, 160] (the seed's about 50 %)".</summary>
    public string Line => new SummaryClaim(What, Verdict.ToString(), Figure, Interval, Why).Line;
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
    /// True when the claims disagree (one confirmed, another refuted) in a finding judged from them: the headline says
    /// "Partly reproduced". Never for a finding that is no verdict (smoke, impossible), whatever its claims.
    /// </summary>
    public bool Partly => Outcome == Outcome.Inconclusive && Claims.Any(c => c.Verdict == ClaimVerdict.Confirmed) && Claims.Any(c => c.Verdict == ClaimVerdict.Refuted);

    /// <summary>The sentence the reports print: "Reproduced: ...", "Partly reproduced: ...", "Not reproduced: ...", "Inconclusive: ..." or "Not assessed: ...".</summary>
    public string Verdict => $"{(Partly ? "Partly reproduced" : Outcome switch
    {
        Outcome.Reproduced => "Reproduced",
        Outcome.NotReproduced => "Not reproduced",
        Outcome.Inconclusive => "Inconclusive",
        Outcome.Impossible => "Impossible figure, no verdict",
        Outcome.NoVerdict => "smoke: no verdict",
        _ => "Not assessed",
    })}: {Detail}";

    public static Finding NotAssessed(string why) => new(Outcome.NotAssessed, [], why);

    /// <summary>A figure that cannot be true: <paramref name="why"/> names the limit it broke and the likely cause.</summary>
    public static Finding Impossible(IReadOnlyList<SeedComparison> comparisons, string why) => new(Outcome.Impossible, comparisons, why);

    /// <summary>
    /// A finding from the claims its figures decide (inconclusive ones decide nothing, and the detail names them):
    /// reproduced when every decided claim is confirmed, not reproduced when every one is refuted, else inconclusive as
    /// a whole (printed "Partly reproduced" when they disagree).
    /// </summary>
    public static Finding OfClaims(IReadOnlyList<Claim> claims, IReadOnlyList<SeedComparison> comparisons, string detail) =>
        new(OutcomeOf(claims), comparisons, $"{detail} Claims: {Tally(claims)}.") { Claims = claims };

    /// <summary>
    /// Reproduced when every decided claim is confirmed, not reproduced when every one is refuted, else (none decided, or
    /// they disagree) inconclusive; inconclusive too when the claim on the verdict figure is (<see cref="Claim.OnVerdictFigure"/>):
    /// the other claims cannot state the verdict without it.
    /// </summary>
    public static Outcome OutcomeOf(IReadOnlyList<Claim> claims)
    {
        if (claims.Any(c => c.OnVerdictFigure && c.Verdict == ClaimVerdict.Inconclusive))
        {
            return Outcome.Inconclusive;
        }
        var decided = claims.Where(c => c.Verdict != ClaimVerdict.Inconclusive).ToList();
        return decided.Count == 0 ? Outcome.Inconclusive
            : decided.All(c => c.Verdict == ClaimVerdict.Confirmed) ? Outcome.Reproduced
            : decided.All(c => c.Verdict == ClaimVerdict.Refuted) ? Outcome.NotReproduced
            : Outcome.Inconclusive;
    }

    /// <summary>"latency under load confirmed, max latency inconclusive".</summary>
    private static string Tally(IReadOnlyList<Claim> claims) => string.Join(", ", claims.Select(c => $"{c.What} {c.Verdict.ToString().ToLowerInvariant()}"));
}
