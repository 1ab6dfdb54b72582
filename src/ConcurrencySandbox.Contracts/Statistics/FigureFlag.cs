using System.Globalization;

namespace ConcurrencySandbox.Contracts.Statistics;

/// <summary>Why a figure is flagged: it cannot be true on this machine, or its repeats disagree too much to trust it.</summary>
public enum FlagKind
{
    Impossible,
    Noisy,
}

/// <summary>A figure that is printed but should not be believed as it stands, and why.</summary>
/// <param name="Figure">Which figure: "10 cycles: % efficiency", "10 cycles: sync" or "10 cycles: Task.Run".</param>
/// <param name="Value">The figure as measured, with its unit.</param>
/// <param name="Reason">One sentence saying why it should not be believed.</param>
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

    /// <summary>The end of a compare row's efficiency figure's name.</summary>
    public const string EfficiencyFigure = "% efficiency";

    /// <summary>The end of a compare row's sync median's name.</summary>
    public const string SyncFigure = "sync";

    /// <summary>The end of a compare row's Task.Run median's name.</summary>
    public const string TaskRunFigure = "Task.Run";

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

    /// <summary>
    /// Everything wrong with one compare row (seed 004's sync vs Task.Run) on <paramref name="cores"/> cores: an impossible
    /// efficiency, a noisy sync or Task.Run median. Each figure is named "<paramref name="label"/>: ...".
    /// </summary>
    public static IReadOnlyList<FigureFlag> Comparison(string label, double efficiencyPercent, Spread? sync, Spread? taskRun, int cores)
    {
        FigureFlag?[] flags =
        [
            Efficiency($"{label}: {EfficiencyFigure}", efficiencyPercent, cores),
            sync is { } s ? Spread($"{label}: {SyncFigure}", s.Median, s.Min, s.Max) : null,
            taskRun is { } t ? Spread($"{label}: {TaskRunFigure}", t.Median, t.Min, t.Max) : null,
        ];
        return [.. flags.OfType<FigureFlag>()];
    }

    /// <summary>The flag among <paramref name="flags"/> on <paramref name="figure"/> (one of the *Figure constants), if any.</summary>
    public static FigureFlag? Find(IEnumerable<FigureFlag> flags, string figure) =>
        flags.FirstOrDefault(f => f.Figure.EndsWith($": {figure}", StringComparison.Ordinal));

    /// <summary>" (impossible)" or " (noisy)" when <paramref name="figure"/> is flagged, else "": what a table cell gets after its figure.</summary>
    public static string MarkOf(IEnumerable<FigureFlag> flags, string figure) => Find(flags, figure) is { } flag ? " " + flag.Mark : "";

    private static string Percent(double percent) => Invariant($"{percent:0.##} %");

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
