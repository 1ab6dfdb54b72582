namespace ConcurrencySandbox.Contracts.Work;

/// <summary>
/// Where Task.Run catches up with inline, as a bracket a flagged row cannot move: between <paramref name="Below"/>, the
/// largest amount whose efficiency's whole CI is at or below 95 %, and <paramref name="Above"/>, the smallest amount from
/// which every row's whole CI is at or above 105 %. A row whose efficiency is impossible or has no CI cannot be placed:
/// inside the bracket it widens it and is named in <paramref name="Widened"/>.
/// </summary>
/// <param name="Below">Null when no row below <paramref name="Above"/> is at or below 95 % across its CI.</param>
/// <param name="Above">Null when the largest row is not at or above 105 % across its CI: no break-even in the sweep.</param>
/// <param name="Widened">The rows that could not be placed (impossible, or no CI) between the two ends (or past the one end there is): measured again when the budget allows.</param>
/// <param name="Text">"between 10,000 and 100,000 cycles", "inconclusive between 10,000 and 10,000,000 cycles (flagged: 1,000,000)".</param>
public sealed record BreakEvenBracket(long? Below, long? Above, IReadOnlyList<long> Widened, string Text)
{
    /// <summary>No unplaced row widened the bracket: it is where the rows put the crossing.</summary>
    public bool Conclusive => Widened.Count == 0;
}
