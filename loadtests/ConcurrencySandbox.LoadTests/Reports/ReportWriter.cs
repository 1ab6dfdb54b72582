using System.Globalization;
using System.Text;
using System.Text.Json;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>Writes a report folder: curves.csv, telemetry.csv, summary.json, summary.md, chart.svg and report.html.</summary>
public static class ReportWriter
{
    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web) { WriteIndented = true };

    /// <param name="commandLine">The runner's command line as typed (see <see cref="RunnerCommandLine"/>), printed in the report.</param>
    public static void Write(string folder, ExperimentReport report, string commandLine)
    {
        Directory.CreateDirectory(folder);
        var chart = ReportChart.Render(report);
        File.WriteAllText(Path.Combine(folder, "curves.csv"), CurvesCsv(report.Variants));
        File.WriteAllText(Path.Combine(folder, "telemetry.csv"), TelemetryCsv(report.Variants));
        File.WriteAllText(Path.Combine(folder, "summary.json"), JsonSerializer.Serialize(SummaryDocument(report, commandLine), Json));
        File.WriteAllText(Path.Combine(folder, "summary.md"), SummaryMarkdown(report, commandLine));
        File.WriteAllText(Path.Combine(folder, "chart.svg"), chart);
        File.WriteAllText(Path.Combine(folder, "report.html"), ReportHtml(report, commandLine, chart));
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
            var (t, p, g) = (row.Snapshot.ThreadPool, row.Snapshot.Process, row.Snapshot.GC);
            csv.AppendLine(Invariant($"{row.Variant.Label},{row.ElapsedSeconds:0.###},{t.ThreadCount},{t.PendingWorkItemCount},{t.CompletedWorkItemCount},{p.CpuPercent:0.#},{p.OsThreadCount},{p.WorkingSetBytes},{g.HeapSizeBytes},{g.TotalAllocatedBytes},{g.Gen0Collections},{g.Gen1Collections},{g.Gen2Collections},{g.TotalPauseDurationMs:0.###},{row.Snapshot.LockContentionCount},{row.Snapshot.InFlightRequests}"));
        }
        return csv.ToString();
    }

    private static object SummaryDocument(ExperimentReport r, string commandLine) => new
    {
        SchemaVersion = SummaryFile.SchemaVersion,
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
            PeakLoadMeanMs = double.IsNaN(v.PeakLoadMeanMs) ? (double?)null : v.PeakLoadMeanMs,
            PeakStepSeconds = new[] { v.PeakStep().FromSeconds, v.PeakStep().ToSeconds },
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
        CommandLine = commandLine,
    };

    public static string SummaryMarkdown(ExperimentReport r, string commandLine)
    {
        var md = new StringBuilder();
        md.AppendLine(Invariant($"# {r.Experiment} ({r.Profile})"));
        md.AppendLine();
        md.AppendLine(r.Finding.Verdict);
        md.AppendLine();
        md.AppendLine(Invariant($"Started {r.StartedAt:u} against {r.Target}. Load shape: {r.LoadShape}."));
        md.AppendLine(MachineLine(r.Machine, r.ApiProcessorCount));
        md.AppendLine();
        md.AppendLine($"Command: `{commandLine}`. The same report with its charts inline: [report.html](report.html).");
        md.AppendLine();
        md.AppendLine("![chart](chart.svg)");
        md.AppendLine();
        md.Append(VariantTable(r).ToMarkdown());
        if (FiguresTable(r) is { } figures)
        {
            md.AppendLine();
            md.Append(figures.ToMarkdown());
        }
        md.AppendLine();
        md.AppendLine(PeakNote);
        md.AppendLine();
        md.AppendLine(Invariant($"## Seed {r.Seed} beside today"));
        md.AppendLine();
        md.Append(SeedTable(r).ToMarkdown());
        md.AppendLine();
        md.AppendLine("## Thresholds");
        md.AppendLine();
        md.Append(ThresholdTable(r).ToMarkdown());
        return md.ToString();
    }

    /// <summary>report.html: the verdict first, then the seed beside today, the variants, thresholds, machine, command line and charts.</summary>
    public static string ReportHtml(ExperimentReport r, string commandLine, string chartSvg)
    {
        var verdictClass = r.Finding.Outcome switch
        {
            Outcome.Reproduced => "verdict reproduced",
            Outcome.NotReproduced => "verdict not",
            _ => "verdict",
        };
        return new HtmlPage(Invariant($"Seed {r.Seed}: {r.Experiment} ({r.Profile})"))
            .Paragraph(r.Finding.Verdict, verdictClass)
            .Heading(2, Invariant($"Seed {r.Seed} beside today"))
            .Table(SeedTable(r))
            .Heading(2, "Per variant")
            .Table(VariantTable(r))
            .Table(FiguresTable(r))
            .Paragraph(PeakNote)
            .Heading(2, "Thresholds")
            .Table(ThresholdTable(r))
            .Paragraph(r.Passed ? "All thresholds passed." : "At least one threshold failed: the run exits with code 1.")
            .Heading(2, "Machine and run")
            .List(
            [
                MachineLine(r.Machine, r.ApiProcessorCount),
                Invariant($"Started {r.StartedAt:u} against {r.Target}."),
                $"Load shape: {r.LoadShape}.",
            ])
            .Paragraph("Command line:")
            .Preformatted(commandLine)
            .Heading(2, "Charts")
            .Figure(chartSvg)
            .ToString();
    }

    private const string PeakNote = "Mean at peak load: the mean latency of the requests sent during the peak step (the first intervals at the highest load), wherever they completed. Peak threads and queue: the highest values the API recorded while the variant ran.";

    public static TextTable VariantTable(ExperimentReport r) => new(
        ["variant", "request", "requests", "mean (ms)", "p50 (ms)", "p99 (ms)", "max (ms)", "RPS", "errors", "mean at peak load (ms)", "peak threads", "peak queue"],
        [.. r.Variants.Select(v => (IReadOnlyList<string>)
        [
            v.Key.Label, v.Request, Invariant($"{v.Total.Requests}"), Invariant($"{v.Total.MeanMs:0.#}"), Invariant($"{v.Total.P50Ms:0.#}"),
            Invariant($"{v.Total.P99Ms:0.#}"), Invariant($"{v.Total.MaxMs:0.#}"), Invariant($"{v.RequestsPerSecond:0.##}"), Invariant($"{v.Total.Failed}"),
            PeakLoadMean(v),
            v.PeakThreads?.ToString(CultureInfo.InvariantCulture) ?? "n/a (no telemetry)", v.PeakQueue?.ToString(CultureInfo.InvariantCulture) ?? "n/a (no telemetry)",
        ])],
        new HashSet<int> { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 });

    /// <summary>The experiment's own figures (e.g. CPU per request), when it computes any.</summary>
    private static TextTable? FiguresTable(ExperimentReport r)
    {
        var rows = r.Variants.SelectMany(v => v.Figures.Select(f => (IReadOnlyList<string>)[v.Key.Label, f.Name, Invariant($"{f.Value:0.###} {f.Unit}")])).ToList();
        return rows.Count == 0 ? null : new TextTable(["variant", "figure", "value"], rows, new HashSet<int> { 2 });
    }

    /// <summary>The mean at peak load for a table cell: "n/a (none sent at peak)" when no request was sent in the peak step.</summary>
    public static string PeakLoadMean(VariantResult v) => double.IsNaN(v.PeakLoadMeanMs) ? "n/a (none sent at peak)" : Invariant($"{v.PeakLoadMeanMs:0.#}");

    private static TextTable SeedTable(ExperimentReport r) => new(
        ["figure", "seed", "today"],
        [.. r.Finding.Comparisons.Select(c => (IReadOnlyList<string>)[c.Figure, c.Seed, c.Today])],
        new HashSet<int>());

    private static TextTable ThresholdTable(ExperimentReport r) => new(
        ["threshold", "variant", "actual", "result"],
        [.. r.Thresholds.Select(t => (IReadOnlyList<string>)[t.Threshold, t.Variant, Invariant($"{t.Actual:0.###}"), t.Passed ? "pass" : "FAIL"])],
        new HashSet<int> { 2 });

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
