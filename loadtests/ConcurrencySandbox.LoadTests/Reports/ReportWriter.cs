using System.Globalization;
using System.Text;
using System.Text.Json;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>Writes a report folder: curves.csv, telemetry.csv, summary.json, summary.md and chart.svg.</summary>
public static class ReportWriter
{
    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web) { WriteIndented = true };

    public static void Write(string folder, ExperimentReport report)
    {
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "curves.csv"), CurvesCsv(report.Variants));
        File.WriteAllText(Path.Combine(folder, "telemetry.csv"), TelemetryCsv(report.Variants));
        File.WriteAllText(Path.Combine(folder, "summary.json"), JsonSerializer.Serialize(SummaryDocument(report), Json));
        File.WriteAllText(Path.Combine(folder, "summary.md"), SummaryMarkdown(report));
        File.WriteAllText(Path.Combine(folder, "chart.svg"), ReportChart.Render($"{report.Experiment} ({report.Profile})", report.Variants));
    }

    public static string CurvesCsv(IEnumerable<VariantResult> variants)
    {
        var csv = new StringBuilder("variant,elapsed_s,load_unit,load,rps,ok,failed,mean_ms,p50_ms,p75_ms,p95_ms,p99_ms,max_ms\n");
        foreach (var row in variants.SelectMany(v => v.Intervals))
        {
            var s = row.Stats;
            csv.AppendLine(Invariant($"{row.Variant.Label},{row.ElapsedSeconds:0.###},{row.LoadUnit},{row.Load:0.##},{row.RequestsPerSecond:0.##},{s.Ok},{s.Failed},{s.MeanMs:0.###},{s.P50Ms:0.###},{s.P75Ms:0.###},{s.P95Ms:0.###},{s.P99Ms:0.###},{s.MaxMs:0.###}"));
        }
        return csv.ToString();
    }

    public static string TelemetryCsv(IEnumerable<VariantResult> variants)
    {
        var csv = new StringBuilder("variant,elapsed_s,thread_count,queue_length,completed_items,cpu_percent,os_threads,working_set_bytes,heap_bytes,allocated_bytes,gen0,gen1,gen2,gc_pause_ms,lock_contentions,in_flight\n");
        foreach (var row in variants.SelectMany(v => v.Telemetry))
        {
            var (t, p, g) = (row.Snapshot.ThreadPool, row.Snapshot.Process, row.Snapshot.Gc);
            csv.AppendLine(Invariant($"{row.Variant.Label},{row.ElapsedSeconds:0.###},{t.ThreadCount},{t.PendingWorkItemCount},{t.CompletedWorkItemCount},{p.CpuPercent:0.#},{p.OsThreadCount},{p.WorkingSetBytes},{g.HeapSizeBytes},{g.TotalAllocatedBytes},{g.Gen0Collections},{g.Gen1Collections},{g.Gen2Collections},{g.TotalPauseDurationMs:0.###},{row.Snapshot.LockContentionCount},{row.Snapshot.InFlightRequests}"));
        }
        return csv.ToString();
    }

    private static object SummaryDocument(ExperimentReport r) => new
    {
        r.Experiment,
        r.Seed,
        r.Profile,
        r.LoadShape,
        r.Target,
        r.StartedAt,
        r.Machine,
        r.ApiProcessorCount,
        Variants = r.Variants.Select(v => new
        {
            Name = v.Key.Label,
            v.Request,
            v.LoadUnit,
            v.PeakLoad,
            v.ElapsedSeconds,
            Requests = v.Total.Requests,
            v.Total.Ok,
            v.Total.Failed,
            v.RequestsPerSecond,
            v.Total.MeanMs,
            v.Total.MinMs,
            v.Total.P50Ms,
            v.Total.P75Ms,
            v.Total.P95Ms,
            v.Total.P99Ms,
            v.Total.MaxMs,
            v.PeakLoadMeanMs,
            v.PeakThreads,
            v.PeakQueue,
            v.MaxQueueWaitMs,
            v.Figures,
        }),
        r.Finding.Comparisons,
        Outcome = r.Finding.Outcome.ToString(),
        r.Finding.Verdict,
        r.Thresholds,
        r.Passed,
    };

    public static string SummaryMarkdown(ExperimentReport r)
    {
        var md = new StringBuilder();
        md.AppendLine(Invariant($"# {r.Experiment} ({r.Profile})"));
        md.AppendLine();
        md.AppendLine(Invariant($"Started {r.StartedAt:u} against {r.Target}. Load shape: {r.LoadShape}."));
        md.AppendLine(MachineLine(r.Machine, r.ApiProcessorCount));
        md.AppendLine();
        md.AppendLine("![chart](chart.svg)");
        md.AppendLine();
        md.AppendLine("| variant | request | requests | mean (ms) | p95 (ms) | p99 (ms) | max (ms) | RPS | errors | mean at peak load (ms) | peak threads | peak queue |");
        md.AppendLine("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var v in r.Variants)
        {
            var t = v.Total;
            md.AppendLine(Invariant($"| {v.Key} | `{v.Request}` | {t.Requests} | {t.MeanMs:0.#} | {t.P95Ms:0.#} | {t.P99Ms:0.#} | {t.MaxMs:0.#} | {v.RequestsPerSecond:0.##} | {t.Failed} | {v.PeakLoadMeanMs:0.#} | {v.PeakThreads?.ToString(CultureInfo.InvariantCulture) ?? "n/a"} | {v.PeakQueue?.ToString(CultureInfo.InvariantCulture) ?? "n/a"} |"));
        }
        // The experiment's own figures (e.g. CPU per request), when it computes any.
        var figures = r.Variants.SelectMany(v => v.Figures.Select(f => (v.Key, Figure: f))).ToList();
        if (figures.Count > 0)
        {
            md.AppendLine();
            md.AppendLine("| variant | figure | value |");
            md.AppendLine("|---|---|---:|");
            foreach (var (key, f) in figures)
            {
                md.AppendLine(Invariant($"| {key} | {f.Name} | {f.Value:0.###} {f.Unit} |"));
            }
        }
        md.AppendLine();
        md.AppendLine(Invariant($"## Seed {r.Seed} beside today"));
        md.AppendLine();
        md.AppendLine("| figure | seed | today |");
        md.AppendLine("|---|---|---|");
        foreach (var c in r.Finding.Comparisons)
        {
            md.AppendLine($"| {c.Figure} | {c.Seed} | {c.Today} |");
        }
        md.AppendLine();
        md.AppendLine(r.Finding.Verdict);
        md.AppendLine();
        md.AppendLine("## Thresholds");
        md.AppendLine();
        md.AppendLine("| threshold | variant | actual | result |");
        md.AppendLine("|---|---|---:|---|");
        foreach (var t in r.Thresholds)
        {
            md.AppendLine(Invariant($"| `{t.Threshold}` | {t.Variant} | {t.Actual:0.###} | {(t.Passed ? "pass" : "**FAIL**")} |"));
        }
        return md.ToString();
    }

    /// <summary>Prints the verdict and every failed limit; true when all thresholds passed.</summary>
    public static bool PrintOutcome(ExperimentReport report, string folder, TextWriter console)
    {
        console.WriteLine($"== {report.Experiment}: {report.Finding.Verdict}");
        foreach (var failed in report.Thresholds.Where(t => !t.Passed))
        {
            console.WriteLine($"THRESHOLD FAILED: {failed.Threshold} on {failed.Variant} (actual {failed.Actual:0.###})");
        }
        console.WriteLine($"report: {Path.GetFullPath(folder)}");
        return report.Passed;
    }

    /// <summary>The machine in one line; the API's processor count only when it is known (the matrix lists it per core count).</summary>
    public static string MachineLine(MachineFacts m, int? apiProcessorCount) => Invariant(
        $"Machine: {m.CpuModel}, {m.LogicalCores} logical cores, runner ProcessorCount {m.ProcessorCount}{(apiProcessorCount is { } n ? Invariant($", API ProcessorCount {n}") : "")}, {m.Runtime}, {m.Os}.");

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
