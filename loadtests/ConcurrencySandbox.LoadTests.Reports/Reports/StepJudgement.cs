namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// How one load step was judged against the SLO, as summary.json keeps it for every step: <see cref="Verdict"/> is one of
/// <see cref="Held"/>, <see cref="HeldWithinNoise"/>, <see cref="StarvedThenHeld"/>, <see cref="Broke"/> or, for a quick
/// run's climb to a step, <see cref="Climbing"/>, and
/// <see cref="Why"/> the sentence it rests on (why it broke, the noise sentence, the spell that did not repeat; null for a
/// clear hold).
/// </summary>
/// <param name="SpellSeconds">
/// A break that rests on a transient starvation spell, not yet confirmed: the seconds of the step the pool starved, which
/// the next step at or above its load confirms or not (the search repeats it; a profile's next step is the one above).
/// Null otherwise.
/// </param>
public sealed record StepJudgement(string Verdict, string? Why, double? SpellSeconds = null)
{
    public const string Held = "held";

    public const string HeldWithinNoise = "held within noise";

    /// <summary>Broke in one round on a transient starvation spell, and held when confirmed: counts as held.</summary>
    public const string StarvedThenHeld = "starved, then held";

    public const string Broke = "broke";

    /// <summary>A quick run's users climbing to its next step, as a --find-capacity step climbs: counted and shown, not judged.</summary>
    public const string Climbing = "climbing";

    /// <summary>Why the step broke the SLO; null when it counts as held.</summary>
    public string? BrokeBecause => Verdict == Broke ? Why : null;
}
