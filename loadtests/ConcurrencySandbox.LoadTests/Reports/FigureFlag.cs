using System.Globalization;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>Why a figure is flagged: it cannot be true on this machine, or its repeats disagree too much to trust it.</summary>
public enum FlagKind
{
    Impossible,
    Noisy,
}

/// <summary>A figure that is printed but should not be believed as it stands, and why.</summary>
public sealed record FigureFlag(string Figure, string Value, FlagKind Kind, string Reason)
{
    /// <summary>The mark put next to the flagged figure in a table.</summary>
    public string Mark => Kind == FlagKind.Impossible ? "(impossible)" : "(noisy)";

    public override string ToString() => $"{Figure} = {Value} {Mark}: {Reason}";
}

/// <summary>The checks behind <see cref="FigureFlag"/>: efficiency beyond what the cores allow, repeats that spread too far.</summary>
public static class FigureChecks
{
    /// <summary>Repeats whose (max - min) / median exceeds this are too noisy to compare.</summary>
    public const double MaxSpreadPercent = 20;

    /// <summary>
    /// Task.Run's efficiency (sync / Task.Run x 100) can at most be cores x 100 %: two units of work on N cores finish
    /// at best N times sooner. Above that, the sync run was disturbed (a noisy neighbour, a GC, a frequency change).
    /// </summary>
    public static FigureFlag? Efficiency(string figure, double efficiencyPercent, int cores) =>
        efficiencyPercent > cores * 100.0
            ? new FigureFlag(figure, Percent(efficiencyPercent), FlagKind.Impossible,
                Invariant($"efficiency above {cores} core(s) x 100 % = {cores * 100} % cannot come from running in parallel; the sync timing was disturbed, re-run on a quiet machine"))
            : null;

    /// <summary>Flags a median whose repeats spread more than <see cref="MaxSpreadPercent"/> of it.</summary>
    public static FigureFlag? Spread(string figure, double medianSeconds, double minSeconds, double maxSeconds)
    {
        var spreadPercent = medianSeconds > 0 ? (maxSeconds - minSeconds) / medianSeconds * 100 : 0;
        return spreadPercent > MaxSpreadPercent
            ? new FigureFlag(figure, Invariant($"{medianSeconds:G4} s"), FlagKind.Noisy,
                Invariant($"its repeats spread {spreadPercent:0} % of the median ({minSeconds:G4} to {maxSeconds:G4} s), above {MaxSpreadPercent:0} %"))
            : null;
    }

    private static string Percent(double percent) => Invariant($"{percent:0.##} %");

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
