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
}

/// <summary>What the data says about the seed's effect: the outcome, the figures side by side and one computed sentence.</summary>
public sealed record Finding(Outcome Outcome, IReadOnlyList<SeedComparison> Comparisons, string Detail)
{
    /// <summary>The figure the outcome was judged on in one round; null for an experiment whose verdict has none yet.</summary>
    public VerdictFigure? Figure { get; init; }

    /// <summary>The figure's median and 95 % CI over the rounds, once the runner has judged them (Running/RoundVerdict.cs).</summary>
    public Estimate? Interval { get; init; }

    /// <summary>The sentence the reports print: "Reproduced: ...", "Not reproduced: ...", "Inconclusive: ..." or "Not assessed: ...".</summary>
    public string Verdict => $"{Outcome switch
    {
        Outcome.Reproduced => "Reproduced",
        Outcome.NotReproduced => "Not reproduced",
        Outcome.Inconclusive => "Inconclusive",
        Outcome.Impossible => "Impossible figure, no verdict",
        Outcome.NoVerdict => "smoke: no verdict",
        _ => "Not assessed",
    }}: {Detail}";

    public static Finding NotAssessed(string why) => new(Outcome.NotAssessed, [], why);

    /// <summary>A figure that cannot be true: <paramref name="why"/> names the limit it broke and the likely cause.</summary>
    public static Finding Impossible(IReadOnlyList<SeedComparison> comparisons, string why) => new(Outcome.Impossible, comparisons, why);
}
