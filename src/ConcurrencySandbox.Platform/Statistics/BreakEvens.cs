using System.Globalization;
using ConcurrencySandbox.Contracts.Work;

namespace ConcurrencySandbox.Platform.Statistics;

/// <summary>Seed 004's break-even as a bracket (<see cref="BreakEvenBracket"/>), by one rule shared by the API's sweep and the runner's matrix.</summary>
public static class BreakEvens
{
    /// <summary>The bracket's rule in words, for reports.</summary>
    public const string BracketRule = "(between the largest amount conclusively at or below 100 % and the smallest from which every row is conclusively at least 100 %; a flagged row widens the bracket instead of moving it)";

    /// <summary>
    /// The break-even as a bracket (<see cref="BreakEvenBracket"/>): the rows by amount from the largest down, as long as
    /// each passed its checks and is at least 100 % across its CI, give the upper end; the largest row below that whose
    /// CI is at or below 100 % gives the lower end. A flagged row stops the upper run (so the bracket widens past it
    /// rather than moving) and is named with the other flagged rows between the ends.
    /// </summary>
    public static BreakEvenBracket Bracket(IEnumerable<ComparisonRow> rows, string amountName, int cores)
    {
        var byAmount = rows.OrderBy(r => r.Amount).Select(r => (r.Amount, r.Efficiency, Conclusive: FigureChecks.Conclusive(r.Flags(amountName, cores)))).ToList();
        long? above = null;
        foreach (var row in Enumerable.Reverse(byAmount))
        {
            if (!row.Conclusive || row.Efficiency.Low is not >= 100)
            {
                break;
            }
            above = row.Amount;
        }
        var below = byAmount.LastOrDefault(r => r.Conclusive && r.Efficiency.High <= 100 && (above is null || r.Amount < above)) is { Conclusive: true } b ? b.Amount : (long?)null;
        List<long> widened = [.. byAmount.Where(r => !r.Conclusive && (below is null || r.Amount > below) && (above is null || r.Amount < above)).Select(r => r.Amount)];
        return new BreakEvenBracket(below, above, widened, Describe(below, above, widened, amountName));
    }

    private static string Describe(long? below, long? above, IReadOnlyList<long> widened, string amountName)
    {
        static string N(long amount) => amount.ToString("N0", CultureInfo.InvariantCulture);
        var span = (below, above) switch
        {
            ({ } l, { } u) => $"between {N(l)} and {N(u)} {amountName}",
            (null, { } u) => $"at or below {N(u)} {amountName} (no smaller row conclusively at or below 100 %)",
            ({ } l, null) => $"above {N(l)} {amountName} or never (no amount from which every row is conclusively at least 100 %)",
            (null, null) => $"nowhere in the sweep (no row conclusively on either side of 100 %)",
        };
        return widened.Count == 0 ? span : $"inconclusive {span} (flagged: {string.Join(", ", widened.Select(N))})";
    }

}
