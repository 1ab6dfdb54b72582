using System.Globalization;
using System.Text;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.Api.Work;

/// <summary>
/// The sweep endpoint's text forms: writes a sweep as CSV or as a Markdown table with the seed's columns, ready to paste
/// beside the seed's. Flagged figures (<see cref="FigureChecks"/>: impossible, inconclusive, busy machine, CFS throttled) are marked in both.
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
        (FigureChecks.MachineFigure, "machine"),
    ];

    public static string ToCsv(SweepReport report)
    {
        var csv = new StringBuilder();
        csv.AppendLine($"{report.AmountName},syncSeconds,taskRunSeconds,efficiencyPercent,taskRunAddedSeconds,syncLowSeconds,syncHighSeconds,syncMinSeconds,taskRunLowSeconds,taskRunHighSeconds,taskRunMinSeconds," +
            "efficiencyLowPercent,efficiencyHighPercent,pairs,stopped,otherProcessesPercent,stealPercent,throttledPeriods,throttledSeconds,calibrationBeforeSeconds,calibrationAfterSeconds,seedFourCoresPercent,seedOneCorePercent,flags");
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
                Optional(m.Sync.Low, Seconds),
                Optional(m.Sync.High, Seconds),
                Seconds(m.Sync.Min),
                Optional(m.TaskRun.Low, Seconds),
                Optional(m.TaskRun.High, Seconds),
                Seconds(m.TaskRun.Min),
                Optional(m.Efficiency.Low, Percent),
                Optional(m.Efficiency.High, Percent),
                m.Repeat.ToString(Invariant),
                m.Stopped.ToString(),
                Optional(m.Load?.OtherProcessesPercent, Percent),
                Optional(m.Load?.StealPercent, Percent),
                m.Load?.ThrottledPeriods?.ToString(Invariant) ?? "",
                Optional(m.Load?.ThrottledSeconds, Seconds),
                Seconds(m.Speed.BeforeSeconds),
                Seconds(m.Speed.AfterSeconds),
                Optional(m.Seed?.FourCoresPercent, Percent),
                Optional(m.Seed?.OneCorePercent, Percent),
                CsvFlags(flags)));
        }

        return csv.ToString();
    }

    public static string ToMarkdown(SweepReport report)
    {
        var amountHeader = CultureInfo.InvariantCulture.TextInfo.ToTitleCase(report.AmountName);
        var md = new StringBuilder();
        md.AppendLine($"| {amountHeader} | Sync (s) | Async (s) | % Efficiency | Efficiency 95 % CI | Pairs | Seed 4 cores % | Seed 1 core % | Machine while measured |");
        md.AppendLine("|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        foreach (var m in report.Rows)
        {
            var flags = m.Flags(report.AmountName, report.ProcessorCount);
            md.AppendLine($"| {m.Amount.ToString(Invariant)} | {Seconds(m.SyncSeconds)}{FigureChecks.MarkOf(flags, FigureChecks.SyncFigure)} | " +
                $"{Seconds(m.TaskRunSeconds)}{FigureChecks.MarkOf(flags, FigureChecks.TaskRunFigure)} | {Percent(m.EfficiencyPercent)}{FigureChecks.MarkOf(flags, FigureChecks.EfficiencyFigure)} | " +
                $"{m.Efficiency.Interval("0.0")} | {m.Repeat.ToString(Invariant)} | {Optional(m.Seed?.FourCoresPercent, Percent, "-")} | {Optional(m.Seed?.OneCorePercent, Percent, "-")} | " +
                $"{m.Load?.ToString() ?? "n/a"}{FigureChecks.MarkOf(flags, FigureChecks.MachineFigure)} |");
        }

        var allFlags = report.Flags;
        if (allFlags.Count > 0)
        {
            md.AppendLine();
            md.AppendLine($"Flagged figures (impossible and inconclusive ones carry no verdict; judged on {report.ProcessorCount.ToString(Invariant)} processors):");
            md.AppendLine();
            foreach (var flag in allFlags)
            {
                md.AppendLine($"- {flag}");
            }
        }

        var machine = report.Machine;
        md.AppendLine();
        var bracket = report.Bracket ?? BreakEvens.Bracket(report.Rows, report.AmountName, report.ProcessorCount);
        md.AppendLine($"Break-even {BreakEvens.BracketRule}: {bracket.Text}{(report.BreakEvenRow is { } b ? $" ({b.Amount.ToString("N0", Invariant)}: efficiency {b.Efficiency.Describe("0.0", " %")})" : "")}. " +
            $"{machine.ProcessorCount} processors ({machine.CpuModel}), {machine.RuntimeVersion}, {(machine.IsServerGC ? "server" : "workstation")} GC, " +
            $"{report.TotalSeconds.ToString("0.0", Invariant)} s in all. Calibration loop drift over the sweep: {report.SpeedDriftPercent.ToString("0.#", Invariant)} %.");
        md.AppendLine();
        md.AppendLine($"Policy: {report.Policy}.");
        return md.ToString();
    }

    /// <summary>"efficiencyPercent impossible; syncSeconds inconclusive": the flagged columns and why, with no comma or quote to escape.</summary>
    private static string CsvFlags(IReadOnlyList<FigureFlag> flags) =>
        string.Join("; ", CsvFlaggable
            .SelectMany(c => FigureChecks.Find(flags, c.Figure).Select(flag => $"{c.Column} {flag.Kind.ToString().ToLowerInvariant()}")));

    private static string Seconds(double seconds) => seconds.ToString("0.0000000", Invariant);

    private static string Percent(double percent) => percent.ToString("0.00", Invariant);

    private static string Optional(double? value, Func<double, string> format, string missing = "") => value is { } v ? format(v) : missing;
}
