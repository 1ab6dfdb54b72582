using System.Globalization;
using System.Text;
using ConcurrencySandbox.Experiments.Work;

namespace ConcurrencySandbox.Api.Work;

/// <summary>The sweep endpoint's text forms: writes a sweep as CSV or as a Markdown table with the seed's columns, ready to paste beside the seed's.</summary>
public static class SweepFormat
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    public static string ToCsv(SweepReport report)
    {
        var csv = new StringBuilder();
        csv.AppendLine($"{report.AmountName},syncSeconds,taskRunSeconds,efficiencyPercent,taskRunAddedSeconds,syncMinSeconds,syncMaxSeconds,taskRunMinSeconds,taskRunMaxSeconds,repeat,seedFourCoresPercent,seedOneCorePercent");
        foreach (var m in report.Rows)
        {
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
                OptionalPercent(m.Seed?.OneCorePercent)));
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
            md.AppendLine($"| {m.Amount.ToString(Invariant)} | {Seconds(m.SyncSeconds)} | {Seconds(m.TaskRunSeconds)} | {Percent(m.EfficiencyPercent)} | {OptionalPercent(m.Seed?.FourCoresPercent, "-")} | {OptionalPercent(m.Seed?.OneCorePercent, "-")} |");
        }

        var machine = report.Machine;
        md.AppendLine();
        md.AppendLine($"Break-even {report.AmountName}: {(report.BreakEvenAmount is { } b ? b.ToString(Invariant) : "none (Task.Run never caught up)")}. " +
            $"{machine.ProcessorCount} processors ({machine.CpuModel}), {machine.RuntimeVersion}, {(machine.IsServerGC ? "server" : "workstation")} GC, " +
            $"median of {report.Rows.FirstOrDefault()?.Repeat ?? 0} runs per cell, {report.TotalSeconds.ToString("0.0", Invariant)} s in all.");
        return md.ToString();
    }

    private static string Seconds(double seconds) => seconds.ToString("0.0000000", Invariant);

    private static string Percent(double percent) => percent.ToString("0.00", Invariant);

    private static string OptionalPercent(double? percent, string missing = "") => percent is { } p ? Percent(p) : missing;
}
