using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Running;

/// <summary>
/// How a load run measures its variants in interleaved rounds: round 1 in the experiment's order, round 2 reversed,
/// and so on (A B, B A, A B ...: for two variants "A B B A" over two rounds), so a change in the machine's speed that
/// lasts seconds falls on both variants. Each round is the load shape shortened so the whole run stays within
/// <see cref="LengthFactor"/> x a single ramp per variant.
/// </summary>
internal static class Rounds
{
    public const int Min = 1;
    public const int Max = 50;

    /// <summary>The rounds together last at most this many times one ramp per variant (the length before rounds).</summary>
    public const double LengthFactor = 1.5;

    /// <summary>A shortened step or reporting interval never goes below this (shorter steps measure only the process start).</summary>
    public static readonly TimeSpan ShortestStep = TimeSpan.FromSeconds(0.5);

    /// <summary>The variants of each round: even rounds (0-based) in the given order, odd rounds reversed.</summary>
    public static IReadOnlyList<IReadOnlyList<T>> Order<T>(IReadOnlyList<T> variants, int rounds) =>
        [.. Enumerable.Range(0, rounds).Select(r => r % 2 == 0 ? variants : (IReadOnlyList<T>)[.. variants.Reverse()])];

    /// <summary>"A B | B A | A B": the order as the report names it.</summary>
    public static string Describe(IReadOnlyList<IReadOnlyList<string>> order) => string.Join(" | ", order.Select(round => string.Join(' ', round)));

    /// <summary>
    /// One round's load: every step and the reporting interval scaled by <see cref="LengthFactor"/> / rounds (never
    /// longer than the original, never below <see cref="ShortestStep"/>), so the ramp keeps its loads and its shape.
    /// </summary>
    public static LoadShape Shorten(LoadShape shape, int rounds)
    {
        var factor = Math.Min(1, LengthFactor / rounds);
        return factor >= 1 ? shape : new LoadShape(
            [.. shape.Steps.Select(s => s with { During = Scaled(s.During, factor) })],
            Scaled(shape.ReportingInterval, factor));
    }

    /// <summary>
    /// Whether another round fits: the time spent so far plus the longest round yet must stay within the budget. The
    /// first round always runs (nothing to judge without it).
    /// </summary>
    public static bool NextFits(TimeSpan spent, TimeSpan longestRound, TimeSpan budget) => spent + longestRound <= budget;

    /// <summary>The default budget: twice the load the rounds plan, plus <paramref name="perVariantStart"/> for each variant's fresh API.</summary>
    public static TimeSpan DefaultBudget(TimeSpan roundShape, int variants, int rounds, TimeSpan perVariantStart) =>
        2 * ((roundShape * variants * rounds) + (perVariantStart * variants * rounds));

    private static TimeSpan Scaled(TimeSpan span, double factor) => span * factor < ShortestStep ? (span < ShortestStep ? span : ShortestStep) : span * factor;
}
