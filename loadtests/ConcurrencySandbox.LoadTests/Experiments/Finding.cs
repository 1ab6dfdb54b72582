namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>What a run says about a seed's effect.</summary>
public enum Outcome
{
    Reproduced,
    NotReproduced,

    /// <summary>The variants the verdict needs did not all produce data (not selected, or no completed request).</summary>
    NotAssessed,
}

/// <summary>A figure from the seed beside today's.</summary>
public sealed record SeedComparison(string Figure, string Seed, string Today);

/// <summary>What the data says about the seed's effect: the outcome, the figures side by side and one computed sentence.</summary>
public sealed record Finding(Outcome Outcome, IReadOnlyList<SeedComparison> Comparisons, string Detail)
{
    /// <summary>The sentence the reports print: "Reproduced: ...", "Not reproduced: ..." or "Not assessed: ...".</summary>
    public string Verdict => $"{Outcome switch
    {
        Outcome.Reproduced => "Reproduced",
        Outcome.NotReproduced => "Not reproduced",
        _ => "Not assessed",
    }}: {Detail}";

    public static Finding NotAssessed(string why) => new(Outcome.NotAssessed, [], why);
}
