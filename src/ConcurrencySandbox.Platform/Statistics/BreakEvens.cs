using System.Globalization;
using ConcurrencySandbox.Contracts.Work;

namespace ConcurrencySandbox.Platform.Statistics;

/// <summary>Seed 004's break-even as a bracket (<see cref="BreakEvenBracket"/>), by one rule shared by the API's sweep and the runner's matrix.</summary>
public static class BreakEvens
{
    /// <summary>
    /// How far a row's whole CI must clear 100 % to put it on one side of the crossing: the sweep's precision target (its
    /// default <c>--ci-width</c>). A row closer than that is at the crossing within what the sweep resolves, and sits
    /// inside the bracket. Without the margin the 2-core row at 10^5 cycles, at the crossing on this machine (99 %
    /// [98.9, 102.9], 99.1 % [98.7, 106.5], 107.2 % [104, 114.6] in three quiet runs of 2026-11-27), moved the bracket's
    /// top by a decade whenever its CI happened to clear 100 %.
    /// </summary>
    public const double SideMarginPercent = MeasurementPolicy.DefaultTargetHalfWidthPercent;

    /// <summary>The bracket's rule in words, for reports.</summary>
    public const string BracketRule = "(between the largest amount whose whole efficiency CI is at or below 95 % and the smallest from which every row's whole CI is at least 105 %: a row within 5 % of 100 %, or whose CI reaches into that band, is at the crossing, inside the bracket; a row whose efficiency is impossible or has no CI widens the bracket instead of moving it)";

    /// <summary>
    /// The break-even as a bracket (<see cref="BreakEvenBracket"/>): the rows by amount from the largest down, as long as
    /// each is placed (<see cref="Placed"/>) and its efficiency's whole CI is at least 100 % + <see cref="SideMarginPercent"/>,
    /// give the upper end; the largest placed row below that whose CI is at or below 100 % - <see cref="SideMarginPercent"/>
    /// gives the lower end. Whether a CI clears a line is the question, not how wide it is: a row at 46 % [39, 53] is below
    /// the crossing although its CI is wider than the sweep's +-5 % target. An unplaced row stops the upper run (so the
    /// bracket widens past it rather than moving) and is named with the other unplaced rows between the ends.
    /// </summary>
    public static BreakEvenBracket Bracket(IEnumerable<ComparisonRow> rows, string amountName, int cores)
    {
        var byAmount = rows.OrderBy(r => r.Amount).Select(r => (r.Amount, r.Efficiency, Placed: Placed(r, cores))).ToList();
        long? above = null;
        foreach (var row in Enumerable.Reverse(byAmount))
        {
            if (!row.Placed || row.Efficiency.Low is not { } low || low < 100 + SideMarginPercent)
            {
                break;
            }
            above = row.Amount;
        }
        var below = byAmount.LastOrDefault(r => r.Placed && r.Efficiency.High <= 100 - SideMarginPercent && (above is null || r.Amount < above)) is { Placed: true } b ? b.Amount : (long?)null;
        List<long> widened = [.. byAmount.Where(r => !r.Placed && (below is null || r.Amount > below) && (above is null || r.Amount < above)).Select(r => r.Amount)];
        return new BreakEvenBracket(below, above, widened, Describe(below, above, widened, byAmount.Count == 0 ? null : byAmount[^1].Amount, amountName));
    }

    /// <summary>
    /// Whether a row's efficiency can put it on a side of the crossing: it has a CI and is not impossible on
    /// <paramref name="cores"/> cores. A CI wider than the target still places the row when it clears the side's line.
    /// </summary>
    public static bool Placed(ComparisonRow row, int cores) =>
        row.Efficiency is { Low: not null, High: not null } && !FigureChecks.ImpossibleBeyondInterval(row.Efficiency, cores);

    /// <summary>
    /// What a repeat of the sweep must reproduce for its break-even to agree: with an upper end, the whole bracket (both
    /// ends and the flagged rows); without one, only that the sweep found no break-even, and whether a flagged row left
    /// that open. The lower end of an open bracket is the largest row whose CI happens to stay under 100 %: on one core,
    /// where Task.Run's efficiency levels off at 100 % from below, rows at 98-100 % fall on either side of that line by
    /// tenths of a percent (three quiet matrix runs of 2026-11-27: 10^6 [93.8, 99.9], then 10^6 [93.2, 100.3] so 10^5,
    /// then 10^6 [95.3, 99.7]), so it is a figure of the run, not part of what repeats.
    /// </summary>
    public static string Agreement(BreakEvenBracket bracket) => bracket.Above is not null
        ? bracket.Text
        : bracket.Conclusive ? "never in the sweep" : "inconclusive: never in the sweep";

    private static string Describe(long? below, long? above, IReadOnlyList<long> widened, long? largest, string amountName)
    {
        static string N(long amount) => amount.ToString("N0", CultureInfo.InvariantCulture);
        const string noneAbove = "no amount from which every row's CI is at least 105 %";
        var span = (below, above, largest) switch
        {
            ({ } l, { } u, _) => $"between {N(l)} and {N(u)} {amountName}",
            (null, { } u, _) => $"at or below {N(u)} {amountName} (no smaller row whose CI is at or below 95 %)",
            ({ } l, null, { } max) => $"never in the sweep up to {N(max)} {amountName} ({noneAbove}; the largest whose CI is at or below 95 %: {N(l)})",
            (null, null, { } max) => $"never in the sweep up to {N(max)} {amountName} ({noneAbove}, nor any whose CI is at or below 95 %)",
            _ => "nowhere: the sweep has no rows",
        };
        return widened.Count == 0 ? span : $"inconclusive {span} (flagged: {string.Join(", ", widened.Select(N))})";
    }

}
