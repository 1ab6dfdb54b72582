using System.Globalization;
using System.Text;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.Experiments.Work;

namespace ConcurrencySandbox.Api.Work;

/// <summary>
/// The sweep endpoint's text forms: writes a sweep as CSV or as a Markdown table with the seed's columns, ready to paste
/// beside the seed's. Figures that cannot be true or are too noisy (<see cref="FigureChecks"/>) are marked in both.
/// </summary>
public static class SweepFormat
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>The CSV column of each figure a flag can name.</summary>
    private static readonly (string Figure, string Column)[] CsvFlaggable =
    [
        (FigureChecks.EfficiencyFigure, "efficiencyPercent"),
        (FigureChecks.SyncFigure, "syncSeconds"),
        (FigureChecks.TaskRunFigure, "taskRunSeconds"),
    ];

    public static string ToCsv(SweepReport report)
    {
        var csv = new StringBuilder();
        csv.AppendLine($"{report.AmountName},syncSeconds,taskRunSeconds,efficiencyPercent,taskRunAddedSeconds,syncMinSeconds,syncMaxSeconds,taskRunMinSeconds,taskRunMaxSeconds,repeat,seedFourCoresPercent,seedOneCorePercent,flags");
        foreach (var m in report.Rows)
        {
            var flags = m.Flags(report.AmountName, report.ProcessorCount);
            csv.AppendLine(string.Join(
                ',',
                m.Amount.ToString(Invariant),
                Seconds(m.SyncSeconds),
                Seconds(m.TaskRunSeconds),
                Percent(m.EfficiencyPercent),
                Seconds(m.TaskRunAddedSeconds),
                Seconds(m.Sync.Min),
                Seconds(m.Sync.Max),
                Seconds(m.TaskRun.Min),
                Seconds(m.TaskRun.Max),
                m.Repeat.ToString(Invariant),
                OptionalPercent(m.Seed?.FourCoresPercent),
                OptionalPercent(m.Seed?.OneCorePercent),
                CsvFlags(flags)));
        }

        return csv.ToString();
    }

    public static string ToMarkdown(SweepReport report)
    {
        var amountHeader = CultureInfo.InvariantCulture.TextInfo.ToTitleCase(report.AmountName);
        var md = new StringBuilder();
        md.AppendLine($"| {amountHeader} | Sync (s) | Async (s) | % Efficiency | Seed 4 cores % | Seed 1 core % |");
        md.AppendLine("|---:|---:|---:|---:|---:|---:|");
        foreach (var m in report.Rows)
        {
            var flags = m.Flags(report.AmountName, report.ProcessorCount);
            md.AppendLine($"| {m.Amount.ToString(Invariant)} | {Seconds(m.SyncSeconds)}{FigureChecks.MarkOf(flags, FigureChecks.SyncFigure)} | " +
                $"{Seconds(m.TaskRunSeconds)}{FigureChecks.MarkOf(flags, FigureChecks.TaskRunFigure)} | {Percent(m.EfficiencyPercent)}{FigureChecks.MarkOf(flags, FigureChecks.EfficiencyFigure)} | " +
                $"{OptionalPercent(m.Seed?.FourCoresPercent, "-")} | {OptionalPercent(m.Seed?.OneCorePercent, "-")} |");
        }

        var allFlags = report.Flags;
        if (allFlags.Count > 0)
        {
            md.AppendLine();
            md.AppendLine($"Flagged figures (do not quote them; judged on {report.ProcessorCount.ToString(Invariant)} processors):");
            md.AppendLine();
            foreach (var flag in allFlags)
            {
                md.AppendLine($"- {flag}");
            }
        }

        var machine = report.Machine;
        md.AppendLine();
        md.AppendLine($"Break-even {report.AmountName}: {(report.BreakEvenAmount is { } b ? b.ToString(Invariant) : "none (Task.Run never caught up)")}. " +
            $"{machine.ProcessorCount} processors ({machine.CpuModel}), {machine.RuntimeVersion}, {(machine.IsServerGC ? "server" : "workstation")} GC, " +
            $"median of {report.Rows.FirstOrDefault()?.Repeat ?? 0} runs per cell, {report.TotalSeconds.ToString("0.0", Invariant)} s in all.");
        return md.ToString();
    }

    /// <summary>"efficiencyPercent impossible; syncSeconds noisy": the flagged columns and why, with no comma or quote to escape.</summary>
    private static string CsvFlags(IReadOnlyList<FigureFlag> flags) =>
        string.Join("; ", CsvFlaggable
            .Select(c => (c.Column, Flag: FigureChecks.Find(flags, c.Figure)))
            .Where(c => c.Flag is not null)
            .Select(c => $"{c.Column} {c.Flag!.Kind.ToString().ToLowerInvariant()}"));

    private static string Seconds(double seconds) => seconds.ToString("0.0000000", Invariant);

    private static string Percent(double percent) => percent.ToString("0.00", Invariant);

    private static string OptionalPercent(double? percent, string missing = "") => percent is { } p ? Percent(p) : missing;
}
