using System.Globalization;
using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using static System.FormattableString;

namespace ConcurrencySandbox.Platform.Statistics;

/// <summary>The figures of one A-vs-B row as the flag rule reads them, whether from the experiment or from the API's JSON.</summary>
public sealed record ComparisonFigures(Estimate Sync, Estimate TaskRun, Estimate Efficiency, MachineLoad? Load, double TargetHalfWidthPercent);

/// <summary>
/// The one rule behind <see cref="FigureFlag"/>, shared by the API and the runner: an efficiency above cores x 100 % beyond
/// its CI, a CI wider than the target, a busy or throttled machine.
/// </summary>
public static class FigureChecks
{
    /// <summary>The end of a compare row's efficiency figure's name.</summary>
    public const string EfficiencyFigure = "% efficiency";

    /// <summary>The end of a compare row's sync median's name.</summary>
    public const string SyncFigure = "sync";

    /// <summary>The end of a compare row's Task.Run median's name.</summary>
    public const string TaskRunFigure = "Task.Run";

    /// <summary>The end of the name of the machine's state while a row was measured.</summary>
    public const string MachineFigure = "machine";

    /// <summary>
    /// Task.Run's efficiency (sync / Task.Run x 100) can at most be cores x 100 %: two units of work on N cores finish at
    /// best N times sooner. True when even the CI's lower end (the median, without a CI) is above that.
    /// </summary>
    public static bool ImpossibleBeyondInterval(Estimate efficiency, int cores) => (efficiency.Low ?? efficiency.Median) > cores * 100.0;

    public static FigureFlag? Efficiency(string figure, Estimate efficiency, int cores) =>
        ImpossibleBeyondInterval(efficiency, cores)
            ? new FigureFlag(figure, Percent(efficiency), FlagKind.Impossible,
                Invariant($"efficiency above {CountText.Of(cores, "core")} x 100 % = {cores * 100} % even at the CI's lower end cannot come from running in parallel; it persisted when re-measured, so the sync timing was disturbed"))
            : null;

    /// <summary>Flags a figure whose 95 % CI is wider than +-<paramref name="targetHalfWidthPercent"/>, or that has none.</summary>
    public static FigureFlag? Interval(string figure, string value, Estimate estimate, double targetHalfWidthPercent) =>
        estimate.HalfWidthPercent is { } width && width <= targetHalfWidthPercent
            ? null
            : new FigureFlag(figure, value, FlagKind.Inconclusive, estimate.HalfWidthPercent is { } w
                ? Invariant($"inconclusive: +-{w:0.#} % (95 % CI over {estimate.Count} repeats, target +-{targetHalfWidthPercent:0.#} %)")
                : Invariant($"inconclusive: {CountText.Of(estimate.Count, "repeat")} give no 95 % CI (at least {MedianInterval.MinimumCount} needed)"));

    /// <summary>The machine's state as a cause: busy (other processes or steal above 10 % of the CPUs), CFS throttling.</summary>
    public static IEnumerable<FigureFlag> Machine(string figure, MachineLoad? load)
    {
        if (load is { Busy: true })
        {
            yield return new FigureFlag(figure, load.ToString(), FlagKind.Busy,
                Invariant($"taken on a busy machine: other processes or steal took more than {MachineLoad.BusyPercent:0} % of the CPUs while it was measured"));
        }

        if (load is { Throttled: true })
        {
            yield return new FigureFlag(figure, load.ToString(), FlagKind.Throttled,
                Invariant($"CFS throttling: the container's CPU quota paused the process {load.ThrottledPeriods} times ({load.ThrottledSeconds:0.###} s) while it was measured; the quota, not noise, slowed it"));
        }
    }

    /// <summary>
    /// Everything wrong with one compare row (seed 004's sync vs Task.Run) on <paramref name="cores"/> cores. Each figure is
    /// named "<paramref name="label"/>: ...".
    /// </summary>
    /// <param name="duration">How the page's table prints a duration in seconds (the matrix's <see cref="DurationText.Of"/>), so a flag gives its figure as the cell it marks; null: seconds to 4 significant digits.</param>
    public static IReadOnlyList<FigureFlag> Comparison(string label, ComparisonFigures row, int cores, Func<double, string>? duration = null)
    {
        FigureFlag?[] flags =
        [
            Efficiency($"{label}: {EfficiencyFigure}", row.Efficiency, cores),
            Interval($"{label}: {EfficiencyFigure}", Percent(row.Efficiency), row.Efficiency, row.TargetHalfWidthPercent),
            Interval($"{label}: {SyncFigure}", Seconds(row.Sync, duration), row.Sync, row.TargetHalfWidthPercent),
            Interval($"{label}: {TaskRunFigure}", Seconds(row.TaskRun, duration), row.TaskRun, row.TargetHalfWidthPercent),
            .. Machine($"{label}: {MachineFigure}", row.Load),
        ];
        return [.. flags.OfType<FigureFlag>()];
    }

    /// <summary>This row's figures that cannot be true on <paramref name="cores"/> cores, are inconclusive, or were taken on a busy or throttled machine, named "10 cycles: ...".</summary>
    public static IReadOnlyList<FigureFlag> Flags(this ComparisonRow row, string amountName, int cores) =>
        Comparison(string.Create(CultureInfo.InvariantCulture, $"{row.Amount:N0} {amountName}"), row.ToFigures(), cores);

    /// <summary>Every row's flagged figures, in row order: a sweep's <see cref="SweepReport.Flags"/>.</summary>
    public static IReadOnlyList<FigureFlag> Flags(this IEnumerable<ComparisonRow> rows, string amountName, int cores) =>
        [.. rows.SelectMany(r => r.Flags(amountName, cores))];

    /// <summary>The row as the shared flag rule reads it.</summary>
    public static ComparisonFigures ToFigures(this ComparisonRow row) => new(row.Sync, row.TaskRun, row.Efficiency, row.Load, row.TargetHalfWidthPercent);

    /// <summary>Whether a verdict may use the row these flags belong to: none of its figures is impossible or inconclusive.</summary>
    public static bool Conclusive(IEnumerable<FigureFlag> flags) => !flags.Any(f => f.Excludes);

    /// <summary>The flags among <paramref name="flags"/> on <paramref name="figure"/> (one of the *Figure constants).</summary>
    public static IEnumerable<FigureFlag> Find(IEnumerable<FigureFlag> flags, string figure) =>
        flags.Where(f => f.Figure.EndsWith($": {figure}", StringComparison.Ordinal));

    /// <summary>" (impossible)", " (inconclusive)" ... for each flag on <paramref name="figure"/>, else "": what a table cell gets after its figure.</summary>
    public static string MarkOf(IEnumerable<FigureFlag> flags, string figure) => string.Concat(Find(flags, figure).Select(f => " " + f.Mark));

    private static string Percent(Estimate efficiency) => efficiency.Describe("0.#", " %");

    private static string Seconds(Estimate seconds, Func<double, string>? duration) => duration is null ? seconds.Describe("G4", " s")
        : Invariant($"{duration(seconds.Median)} {(seconds is { Low: { } low, High: { } high } ? $"[{duration(low)}, {duration(high)}]" : seconds.Interval("G4"))} n={seconds.Count}, min {duration(seconds.Min)}");
}
