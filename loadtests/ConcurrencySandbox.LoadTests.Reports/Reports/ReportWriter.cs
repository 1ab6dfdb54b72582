using System.Text;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Experiments;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// Writes a report folder from a run's one result (<see cref="RunSummary"/>): summary.json, then curves.csv, steps.csv,
/// telemetry.csv, summary.md and report.html (which draws the charts), each a function of the summary alone (so
/// <c>report PATH/summary.json</c> renders them again).
/// </summary>
public static class ReportWriter
{
    /// <summary>The run's one result in a report folder: every other file is rendered from it.</summary>
    public const string SummaryFileName = "summary.json";

    /// <summary>Analyses a run's raw results once (<see cref="RunAnalysis"/>) and writes the report folder from the summary; returns the summary.</summary>
    /// <param name="commandLine">The runner's command line as typed (see <see cref="RunnerCommandLine"/>), printed in the report.</param>
    public static RunSummary Write(string folder, ExperimentReport report, string commandLine)
    {
        var summary = RunAnalysis.Of(report, commandLine);
        Write(folder, summary);
        return summary;
    }

    /// <summary>Writes summary.json and every file rendered from it.</summary>
    public static void Write(string folder, RunSummary summary)
    {
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, SummaryFileName), summary.ToJson());
        Render(folder, summary);
    }

    /// <summary>Renders every file of a report folder but summary.json from the summary.</summary>
    private static void Render(string folder, RunSummary summary)
    {
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "curves.csv"), CurvesCsv(summary.Variants));
        File.WriteAllText(Path.Combine(folder, "telemetry.csv"), TelemetryCsv(summary.Variants));
        File.WriteAllText(Path.Combine(folder, StepsFileName), StepsCsv(summary.Variants));
        var page = ReportPage(summary);
        File.WriteAllText(Path.Combine(folder, "summary.md"), page.ToMarkdown());
        File.WriteAllText(Path.Combine(folder, "report.html"), page.ToString());
    }

    /// <summary>The evidence charts worth drawing: a distribution, or bars of which at least one is not 0.</summary>
    public static IReadOnlyList<SummaryEvidence> EvidenceDrawn(RunSummary r) => [.. r.Evidence.Where(e => !AllZero(e))];

    /// <summary>An evidence chart of bars all at 0 said in words, not drawn as an empty panel under a finding: "gen0 collections: 0 for every variant".</summary>
    public static IReadOnlyList<string> EvidenceAllZero(RunSummary r) =>
        [.. r.Evidence.Where(AllZero).Select(e => $"{e.Title}: 0 for every variant ({string.Join(", ", e.Values.Select(v => v.Name))}), so no chart is drawn.")];

    private static bool AllZero(SummaryEvidence e) => e.Distributions is not { Count: > 0 } && e.Values.All(v => v.Value == 0);


    public static string CurvesCsv(IEnumerable<SummaryVariant> variants)
    {
        var csv = new StringBuilder("variant,elapsed_s,partial,load_unit,load,rps,ok,http_errors,timed_out,connection_errors,mean_ms,p50_ms,p75_ms,p95_ms,p99_ms,p999_ms,max_ms\n");
        foreach (var (v, s) in variants.SelectMany(v => v.Intervals.Select(s => (v, s))))
        {
            csv.AppendLine(Invariant($"{v.Name},{s.ElapsedSeconds:0.###},{(s.Tail ? 1 : 0)},{v.LoadUnit},{s.Load:0.##},{s.RequestsPerSecond:0.##},{s.Ok},{s.HttpErrors},{s.TimedOut},{s.ConnectionErrors},{s.MeanMs:0.###},{s.P50Ms:0.###},{s.P75Ms:0.###},{s.P95Ms:0.###},{s.P99Ms:0.###},{s.P999Ms:0.###},{s.MaxMs:0.###}"));
        }
        return csv.ToString();
    }

    /// <summary>Every step of every variant, which the reports' step table may summarise (<see cref="StepsShown"/>).</summary>
    public const string StepsFileName = "steps.csv";

    public static string StepsCsv(IEnumerable<SummaryVariant> variants)
    {
        var csv = new StringBuilder("variant,load_unit,load,from_s,to_s,requests,rps,p50_ms,p99_ms,failed,timed_out\n");
        foreach (var v in variants)
        {
            foreach (var step in v.Steps)
            {
                var o = step.Outcomes;
                // No answer in the step: no latency, an empty cell rather than 0.
                var (p50, p99) = o.Completed > 0 ? (Invariant($"{step.P50Ms:0.###}"), Invariant($"{step.P99Ms:0.###}")) : ("", "");
                csv.AppendLine(Invariant($"{v.Name},{v.LoadUnit},{step.Load:0.##},{step.FromSeconds:0.###},{step.ToSeconds:0.###},{o.Requests},{step.RequestsPerSecond:0.##},{p50},{p99},{o.Failed},{o.TimedOut}"));
            }
        }
        return csv.ToString();
    }

    public static string TelemetryCsv(IEnumerable<SummaryVariant> variants)
    {
        var csv = new StringBuilder("variant,elapsed_s,thread_count,queue_length,completed_items,cpu_percent,os_threads,working_set_bytes,heap_bytes,allocated_bytes,gen0,gen1,gen2,gc_pause_ms,lock_contentions,in_flight\n");
        foreach (var (v, t) in variants.SelectMany(v => v.Telemetry.Select(t => (v, t))))
        {
            csv.AppendLine(Invariant($"{v.Name},{t.ElapsedSeconds:0.###},{t.ThreadCount},{t.QueueLength},{t.CompletedItems},{t.CpuPercent:0.#},{t.OsThreads},{t.WorkingSetBytes},{t.HeapBytes},{t.AllocatedBytes},{t.Gen0},{t.Gen1},{t.Gen2},{t.GcPauseMs:0.###},{t.LockContentions},{t.InFlight}"));
        }
        return csv.ToString();
    }

    /// <summary>The causes seen at a capacity search's break after the first (the headline's), each with its place and evidence.</summary>
    private static List<string> OtherFindings(RunSummary r) =>
        [.. (r.Capacity?.Findings ?? []).Skip(1).Select(f => Invariant($"{f.Cause}{(f.Place is null ? "" : $" at {f.Place}")} ({f.Evidence}; {100 * f.Weight:0} % of the break by its measure)"))];

    /// <summary>summary.md: report.html's blocks as Markdown (<see cref="HtmlPage.ToMarkdown"/>), so the two say the same in the same order.</summary>
    public static string SummaryMarkdown(RunSummary r) => ReportPage(r).ToMarkdown();

    /// <summary>
    /// The report's opening, the same blocks in report.html and summary.md: the partial note, the plain answer, the tiles
    /// (so the first screen holds both, on a phone too), the headline, the other findings, the verdict and its claims,
    /// the rounds in the order they ran, and how the requests ended. What the headline rests on follows, under its own
    /// heading (<see cref="HeadlineDetailsHeading"/>), so the first screen says the finding in a few sentences.
    /// </summary>
    private static HtmlPage Opening(HtmlPage page, RunSummary r)
    {
        var claims = r.Claims ?? [];
        var verdictClass = r.Outcome switch
        {
            // Green only when nothing under it is unsure: "Reproduced" over claims needs every one confirmed (ClaimsVerdict).
            nameof(Outcome.Reproduced) => "verdict reproduced",
            nameof(Outcome.NotReproduced) => "verdict not",
            _ => "verdict",
        };
        page = page.Paragraph(r.Partial is { } partial ? $"PARTIAL REPORT: {PartialNote(partial)}" : null, HtmlPage.PartialClass)
            .Paragraph(r.Answer, HtmlPage.AnswerClass)
            .Tiles(Tiles(r))
            .Paragraph(r.Variants.Count == 0 ? null : TileLegend(r), "legend")
            .Paragraph(r.Headline, "verdict");
        if (OtherFindings(r) is { Count: > 0 } others)
        {
            page = page.Paragraph("Also seen at the break:").List(others);
        }
        page = page.Paragraph(r.Verdict, verdictClass);
        if (claims.Count > 0)
        {
            page = page.List([.. claims.Select(c => c.Line)]);
        }
        if (RoundsIntro(r) is { } rounds)
        {
            page = page.Paragraph(rounds).List(RoundLines(r));
        }
        return page.Paragraph(OutcomeLine(r), r.Variants.Any(v => v.Failed > 0) ? "outcomes failed" : "outcomes");
    }

    /// <summary>
    /// The heading over what a headline rests on (<see cref="RunSummary.HeadlineDetails"/>: a <c>run --url</c>'s finding in
    /// full, the state its steps started from, the diagnosis), under the first screen on the page and above the headline
    /// in the console, whose last lines are the ones in view.
    /// </summary>
    public const string HeadlineDetailsHeading = "What the headline rests on";

    /// <summary>report.html, from the same blocks as summary.md.</summary>
    public static string ReportHtml(RunSummary r) => ReportPage(r).ToString();

    /// <summary>
    /// The report's blocks: the answer first, then the curves, the experiment's own evidence, the seed beside today, the
    /// variants, thresholds, machine and command line, and the charts of each variant over time.
    /// </summary>
    private static HtmlPage ReportPage(RunSummary r)
    {
        var page = Opening(new HtmlPage(PageTitle(r), r), r)
            .Heading(2, r.HeadlineDetails is null ? null : HeadlineDetailsHeading)
            .Paragraph(r.HeadlineDetails, "details");
        var chart = new SummaryChart(string.Join(" \u00b7 ", ChartTitle.Lines(r, seedIntroduced: r.Answer is not null)));
        page = ResponseCurveSection(page, "Response curve", chart, r);
        // Every variant's latency on one time axis, for more than one variant of a load run; a capacity search's steps are
        // one service at one load each: its curve is the picture, not a time axis of steps drawn over each other.
        if (r.Variants.Count > 1 && r.Capacity is null && r.Variants.All(v => v.LoadUnit != "burst") && r.Variants.Any(v => v.Intervals.Count > 0))
        {
            page = page.Heading(2, "Every variant on one time axis").Chart(SummaryCharts.LatencyOverTime, chart);
        }
        page = page.Heading(2, r.Evidence.Count > 0 ? "The experiment's own evidence" : null);
        page = EvidenceDrawn(r).Select(BarsModel.Of).Aggregate(page, (p, chart) => p.Chart(chart.Kind, chart.Model))
            .List(EvidenceAllZero(r))
            .Heading(2, SeedHeading(r))
            .Table(SeedHeading(r) is null ? null : SeedTable(r))
            .Heading(2, "Per variant")
            .Paragraph(SharedRequestNote(r))
            .Table(VariantTable(r))
            .Paragraph(r.Words.LatencyNote)
            .Paragraph(RoundsNote(r))
            .Table(RoundsTable(r))
            .Table(FiguresTable(r))
            .Heading(2, $"Outcomes: how the {r.Words.Unit} ended")
            .Table(OutcomeTable(r))
            .Table(StepTable(r), foldAbove: FoldedStepRows, summary: "Per step")
            .Table(CapacityStepTable(r), foldAbove: FoldedStepRows, summary: "Per step")
            .Paragraph(StepSummaryNote(r))
            .Table(AgentTable(r))
            .Paragraph(PeakNote);
        page = ObserverSection.AppendTo(page, r).Heading(2, "Thresholds");
        page = r.Thresholds.Count == 0
            ? page.Paragraph(NoThresholds)
            : page.Table(ThresholdTable(r))
                .Paragraph(ThresholdNote(r));
        page = page
            .Paragraph(r.Partial is not null ? "The run was stopped before it finished, so it exits with code 130 whatever its thresholds say."
                : r.Thresholds.Count == 0 ? null
                : r.Passed ? "All thresholds passed." : "At least one threshold failed: the run exits with code 1.")
            .Heading(2, "Machine and run")
            .List(
            [
                MachineLine(r.Machine, r.ApiProcessorCount),
                Invariant($"Started {r.StartedAt:u} against {r.Target}."),
                $"Load shape: {r.LoadShape}.",
            ])
            .Links("Files of this report: ", ReportFiles)
            .Paragraph("Command line:")
            .Preformatted(r.CommandLine);
        return SummaryChartSections(page, r.Variants);
    }

    /// <summary>
    /// The charts drawn from the page's summary (<see cref="SummaryCharts"/>): each variant over time, then the latency
    /// distribution when any request has a latency or a bound; nothing for a run without variants.
    /// </summary>
    public static HtmlPage SummaryChartSections(HtmlPage page, IReadOnlyList<SummaryVariant> variants)
    {
        if (variants.Count > 0)
        {
            page = page.Heading(2, "Per variant over time").Chart(SummaryCharts.VariantPanels);
        }
        return variants.Any(v => v.Distribution.Count > 0) ? page.Heading(2, "Latency distribution").Chart(SummaryCharts.LatencyDistribution) : page;
    }

    /// <summary>The interactive response curve of <paramref name="r"/> (charts.js draws it from the page's summary) under its heading, then <see cref="CurveLines"/>; the page unchanged when the load was not stepped.</summary>
    public static HtmlPage ResponseCurveSection(HtmlPage page, string heading, SummaryChart chart, RunSummary r) =>
        CurveLines(r) is { Count: > 0 } lines ? page.Heading(2, heading).Chart(SummaryCharts.ResponseCurve, chart).List(lines) : page;

    /// <summary>
    /// Each curve in words: a variant's knee as the analysis put it ("threadpool: knee at 8 users (p99 2.4 s > 2 x unloaded
    /// 1.01 s)", or that it has none), a capacity search's ramp held up to and broke at; none when the load was not stepped.
    /// </summary>
    public static IReadOnlyList<string> CurveLines(RunSummary r) => r.Capacity is { Steps.Count: > 0 } capacity
        ? [.. capacity.Steps.GroupBy(s => s.Ramp).Select(ramp =>
        {
            var held = ramp.Where(s => s.BrokeBecause is null).Select(s => s.Load).ToList();
            var broke = ramp.OrderBy(s => s.Load).FirstOrDefault(s => s.BrokeBecause is not null);
            return $"{ramp.Key}: held {(held.Count == 0 ? "at no load" : $"up to {ResponseCurve.LoadText(held.Max(), capacity.Unit)}")}; "
                + (broke is null ? "no step broke the SLO" : $"broke at {ResponseCurve.LoadText(broke.Load, capacity.Unit)} ({broke.BrokeBecause})");
        })]
        : [.. r.Variants.Where(v => v.Curve is not null).Select(v => v.Curve!.Line)];

    /// <summary>
    /// The first screen's tiles, one per variant: its rate, p50 and p99, failures and timeouts, peak load, and the pool's
    /// peak threads and queue, each read from its summary field (the tables read the same); "no answer", never 0, where
    /// no request of the variant got one. Their labels are <see cref="TileLabels"/>, defined once under the tiles.
    /// </summary>
    public static IReadOnlyList<ReportTile> Tiles(RunSummary r)
    {
        var labels = TileLabels(r).Select(l => l.Label).ToList();
        return
        [
            .. r.Variants.Select(v =>
            {
                var noAnswer = v.Outcomes.Completed == 0;
                return new ReportTile(v.Name, v.Color,
                [
                    // The rate counts failed requests too (the tables print it so): "no answer" only where none ended at all.
                    new(labels[0], v.Outcomes.NoAnswer ? NoAnswer : Invariant($"{v.RequestsPerSecond:0.##}")),
                    new(labels[1], HeldStep(r, v) is { } held ? HeldLatency(held)
                        : noAnswer ? NoAnswer : $"{Latency(v, v.P50Ms, "p50Ms")} / {Latency(v, v.P99Ms, "p99Ms")}"),
                    new(labels[2], $"{CountText.Of(v.Failed)} of {CountText.Of(v.Requests)}"),
                    new(labels[3], CountText.Of(v.Outcomes.TimedOut)),
                    new(labels[4], v.LoadUnit == "burst" ? $"a burst of {CountText.Of(v.Requests)}" : ResponseCurve.LoadText(v.PeakLoad, v.LoadUnit)),
                    new(labels[5], v.PeakThreads is { } threads ? $"{CountText.Of(threads)} / {PoolCount(v.PeakQueue)}" : NoTelemetry),
                ]);
            }),
        ];
    }

    /// <summary>
    /// A capacity search's step of <paramref name="v"/>: judged over the part that held its load, its climb left out, whose
    /// p50 and p99 the first line, the headline, the curve and the step table give; null outside a search.
    /// </summary>
    private static SummaryCapacityStep? HeldStep(RunSummary r, SummaryVariant v) => r.Capacity?.Steps?.FirstOrDefault(s => s.Variant == v.Name);

    /// <summary>A search step's held p50 / p99 as its tile gives them ("≥" on a bound); <see cref="NoAnswer"/> when none of its requests had a latency.</summary>
    public static string HeldLatency(SummaryCapacityStep s) => s.P50Ms is { } p50 && s.P99Ms is { } p99
        ? $"{Cell(p50, "p50Ms", s.LowerBounds, noAnswer: false)} / {Cell(p99, "p99Ms", s.LowerBounds, noAnswer: false)}"
        : NoAnswer;

    /// <summary>What a tile's pool figure reads when the variant's runtime was not recorded.</summary>
    public const string NoTelemetry = "n/a (no telemetry)";

    /// <summary>A pool count (peak threads, peak queue) as a cell: the count, or <see cref="NoTelemetry"/> without telemetry.</summary>
    public static string PoolCount(long? count) => count is { } n ? CountText.Of(n) : NoTelemetry;

    /// <summary>The tiles' labels in their order, each with what it means: <see cref="TileLegend"/> says them once under the tiles.</summary>
    public static IReadOnlyList<(string Label, string Meaning)> TileLabels(RunSummary r) =>
    [
        (r.Words.PerSecond, $"the variant's {r.Words.Unit} (answered or failed) per second of its whole run"),
        r.Capacity?.Steps is { Count: > 0 }
            ? ($"{r.Words.LatencyPrefix}p50 / p99 held (ms)", $"the median and the 99th percentile, in milliseconds, of the {r.Words.Unit} sent while the step held its load (its climb left out: the part judged against the SLO), that got an answer or timed out")
            : ($"{r.Words.LatencyPrefix}p50 / p99 (ms)", $"the median and the 99th percentile, in milliseconds, of the {r.Words.Unit} that got an answer or timed out"),
        ("failed", $"the {r.Words.Unit} that failed (HTTP errors, timeouts, connection errors) of all it sent"),
        ("timed out", $"the {r.Words.Unit} given up after the client's timeout, counted in failed too"),
        ("peak load", "the highest load the variant was put under (users, arrival rate, clients, or a burst's size)"),
        ("pool threads / queue", "the most thread-pool threads and the longest thread-pool queue the API recorded while the variant ran"),
    ];

    /// <summary>
    /// The tiles' legend: each label and what it means, once for every tile, and what "\u2265", "no answer" and "n/a"
    /// say only where a tile shows one, so the first screen defines what it prints and nothing else.
    /// </summary>
    /// <param name="tiles">Which tiles it defines, where a page has more than one set (the matrix's).</param>
    public static string TileLegend(RunSummary r, string tiles = "the tiles")
    {
        var values = Tiles(r).SelectMany(t => t.Figures).Select(f => f.Value).ToList();
        (string Mark, string Meaning)[] marks =
        [
            ("\u2265", $"\u2265 marks a lower bound, where timed-out {r.Words.Unit} reach that rank"),
            (NoAnswer, $"{NoAnswer}: not one of the variant's {r.Words.Unit} got an answer, so it has no latency to show (the tables below give the time its timed-out {r.Words.Unit} waited, at least, marked \u2265)"),
            (NoTelemetry, $"{NoTelemetry}: the API's runtime was not recorded"),
        ];
        return $"In {tiles}: " + string.Join("; ", TileLabels(r).Select(l => $"{l.Label}: {l.Meaning}")
            .Concat(marks.Where(m => values.Any(v => v.Contains(m.Mark, StringComparison.Ordinal))).Select(m => m.Meaning))) + ".";
    }

    /// <summary>The report folder's other files, as report.html links them.</summary>
    private static readonly string[] ReportFiles = ["curves.csv", StepsFileName, "telemetry.csv", SummaryFileName, "summary.md"];

    /// <summary>
    /// report.html's heading, in plain words: what was tested (the variants compared, or the capacity searched for), the
    /// profile, the peak load ("2000 clients") and the API's core count, so two reports never read the same. No seed
    /// number: the first sentence under it introduces the seed in words the first time the page names it.
    /// </summary>
    public static string PageTitle(RunSummary r)
    {
        var peak = r.Variants.MaxBy(v => v.PeakLoad);
        var load = peak is null || peak.LoadUnit == "burst" ? "" : $", up to {ResponseCurve.LoadText(peak.PeakLoad, peak.LoadUnit)}";
        var cores = r.ApiProcessorCount is { } n ? $", API on {CountText.Of(n, "core")}" : "";
        var names = r.Variants.Select(v => v.Name).ToList();
        var tested = r.Capacity is { } capacity ? $"the most load {r.Target} takes within its SLO ({PlainAnswer.Slo(capacity)})"
            : names.Count == 0 ? $"{r.Experiment}, stopped before any variant was measured"
            : names.Count == 1 ? $"{names[0]} under load"
            : $"{CountText.Listed(names)} compared";
        return Invariant($"{r.Experiment}: {tested} ({r.Profile} profile){load}{cores}{(r.Partial is null ? "" : ", PARTIAL")}");
    }

    private const string PeakNote = "At peak load: the p50 and p99 of the requests sent in the peak step (the first step at the highest load, whose row the step table shows when the load stepped), wherever they completed; \u2265 where timed-out requests reach that rank. Peak threads and queue: the highest values the API recorded while the variant ran.";

    /// <summary>
    /// The per-variant table; when every variant sent the same request (streaming's 30-word description of its clients),
    /// without that column: <see cref="SharedRequestNote"/> says it once above the table.
    /// </summary>
    public static TextTable VariantTable(RunSummary r) => SharedRequest(r) is null ? EveryVariantTable(r) : EveryVariantTable(r).WithoutColumn(1);

    /// <summary>"Every variant's stream: 50 TCP clients ..." when every variant sent the same request; null when they differ.</summary>
    public static string? SharedRequestNote(RunSummary r) => SharedRequest(r) is { } request ? $"Every variant's {r.Words.What}: {request}." : null;

    private static string? SharedRequest(RunSummary r) => r.Variants.Select(v => v.Request).Distinct().Count() == 1 ? r.Variants[0].Request : null;

    private static TextTable EveryVariantTable(RunSummary r) => new(
        [
            "variant", r.Words.What, r.Words.Unit, "failed", "timed out",
            .. new[] { "mean", "p50", "p75", "p95", "p99", "p99.9", "max" }.Select(column => $"{r.Words.LatencyPrefix}{column} (ms)"),
            r.Words.PerSecond, $"{r.Words.LatencyPrefix}{AtPeakLoadColumn}", "peak threads", "peak queue",
        ],
        [.. r.Variants.Select(v => (IReadOnlyList<string>)
        [
            Expectation(v) is { } expectation ? $"{v.Name} ({expectation})" : v.Name, v.Request, CountText.Of(v.Requests),
            Invariant($"{CountText.Of(v.Failed)} ({v.Outcomes.FailedPercent:0.#} %)"), CountText.Of(v.Outcomes.TimedOut),
            Latency(v, v.MeanMs, "meanMs"), Latency(v, v.P50Ms, "p50Ms"), Latency(v, v.P75Ms, "p75Ms"), Latency(v, v.P95Ms, "p95Ms"),
            Latency(v, v.P99Ms, "p99Ms"), Latency(v, v.P999Ms, "p999Ms"), Latency(v, v.MaxMs, "maxMs"), Invariant($"{v.RequestsPerSecond:0.##}"),
            AtPeakLoad(v),
            PoolCount(v.PeakThreads), PoolCount(v.PeakQueue),
        ])],
        new HashSet<int>(Enumerable.Range(2, 14)));

    /// <summary>How the rounds ran and which one the per-variant tables show; empty for a single round without a figure.</summary>
    public static string RoundsNote(RunSummary r) => r.Rounds is not { } rounds ? "" : Invariant(
        $"Measured in {rounds.Rounds.Count} of {CountText.Of(rounds.Planned, "interleaved round")}, each against fresh API processes, in the order listed under the verdict; the per-variant tables show the round nearest the median{(rounds.Figure is { } figure ? $" of {figure}" : "")}, every round is below.");

    /// <summary>What the rounds' list under the verdict holds; null for a single round without a figure.</summary>
    public static string? RoundsIntro(RunSummary r) => r.Rounds is not { } rounds ? null
        : $"The rounds, each with its variants in the order they ran{(rounds.Figure is { } figure ? $", its {figure}" : "")} and what it alone would say:";

    /// <summary>
    /// The rounds under the verdict, one line each, the same in the console, summary.md and report.html: "round 2:
    /// min-workers-200 then default-pool: 7.6 (reproduced)", the figure at its one format (<see cref="SummaryRounds.Show"/>). The verdict itself says only how many rounds there were.
    /// </summary>
    public static IReadOnlyList<string> RoundLines(RunSummary r) =>
        r.Rounds is not { } rounds ? [] : [.. rounds.Rounds.Select(round => Invariant(
            $"round {round.Round}: {string.Join(" then ", round.Order)}: {(round.Figure is { } value ? rounds.Show(value) : "no figure")} ({OutcomeWords(round.Outcome)})"))];

    /// <summary>An outcome's name in words: "NotReproduced" reads "not reproduced".</summary>
    public static string OutcomeWords(string outcome) =>
        string.Concat(outcome.Select((c, i) => i > 0 && char.IsUpper(c) ? $" {char.ToLowerInvariant(c)}" : $"{char.ToLowerInvariant(c)}"));

    /// <summary>One row per round and variant, in the order they ran, with the round's verdict figure; null for a single round without a figure.</summary>
    public static TextTable? RoundsTable(RunSummary r) => r.Rounds is not { } rounds ? null : new TextTable(
        ["round", "order", "variant", "RPS", "mean (ms)", "p99 (ms)", "seconds", rounds.Figure ?? "verdict figure", "round alone"],
        [.. rounds.Rounds.SelectMany(round => round.Variants.Select(v => (IReadOnlyList<string>)
        [
            Invariant($"{round.Round}"), string.Join(' ', round.Order), v.Variant,
            Invariant($"{v.RequestsPerSecond:0.##}"), v.MeanMs is { } mean ? Invariant($"{mean:0.#}") : "no answer", v.P99Ms is { } p99 ? Invariant($"{p99:0.#}") : "no answer",
            Invariant($"{v.ElapsedSeconds:0.#}"), round.Figure is { } value ? rounds.Show(value) : "none", round.Outcome,
        ]))],
        new HashSet<int> { 0, 3, 4, 5, 6, 7 });

    /// <summary>Every variant's outcome counts in one line: "Requests: threadpool 32 of 52 failed (32 timed out); async all 40 ok." ("Messages: ..." for streaming).</summary>
    public static string OutcomeLine(RunSummary r) =>
        $"{r.Words.Sentence}: " + string.Join("; ", r.Variants.Select(v => $"{v.Name} {v.Outcomes.Describe()}{(Expectation(v) is { } expectation ? $" ({expectation})" : "")}")) + ".";

    /// <summary>
    /// How a variant expected to fail (a starving one) is marked beside its result: "expected to fail" when its failed
    /// share passed the limit every other variant is held to, else the expectation and that it was not met ("expected to
    /// fail, but all 160 were answered"); null for a variant not expected to fail.
    /// </summary>
    public static string? Expectation(SummaryVariant v) => !v.ExpectedToFail ? null : "expected to fail" + (ExpectationNotMet(v) is { } unmet ? $", {unmet}" : "");

    /// <summary>"but all 160 were answered", "but only 1 of 160 failed (0.6 %, within the 1 % limit)" or "but it sent none"; null when the variant failed as expected.</summary>
    private static string? ExpectationNotMet(SummaryVariant v) =>
        v.Outcomes.FailedPercent > Experiment.MaxFailedPercent ? null
        : v.Requests == 0 ? "but it sent none"
        : v.Failed == 0 ? $"but all {CountText.Of(v.Requests)} were answered"
        : Invariant($"but only {CountText.Of(v.Failed)} of {CountText.Of(v.Requests)} failed ({v.Outcomes.FailedPercent:0.#} %, within the {Experiment.MaxFailedPercent:0} % limit)");

    /// <summary>How each variant's requests ended: ok, then each HTTP status, timeout and connection error message with its count.</summary>
    public static TextTable OutcomeTable(RunSummary r) => new(
        ["variant", "outcome", r.Words.Unit],
        [.. r.Variants.SelectMany(v => new[] { new SummaryOutcomeCount(r.Words.Ok, v.Ok) }.Concat(v.Failures)
            .Select(o => (IReadOnlyList<string>)[v.Name, o.What, CountText.Of(o.Count)]))],
        new HashSet<int> { 2 });

    /// <summary>
    /// One row per step of a stepped load (users, rate, p50, p99, failed), each over the requests sent in the step,
    /// wherever they ended, so each variant's rows add up to its total; a step in which no request got an answer reads
    /// "no answer", not a latency of 0. Null when no variant had more than one step.
    /// </summary>
    public static TextTable? StepTable(RunSummary r)
    {
        if (r.Variants.All(v => v.Steps.Count < 2))
        {
            return null;
        }
        var withGc = r.Variants.Any(v => v.Steps.Any(s => s.Gc is not null));
        return new TextTable(
            ["variant", "load", "seconds", r.Words.Unit, r.Words.PerSecond, $"{r.Words.LatencyPrefix}p50 (ms)", $"{r.Words.LatencyPrefix}p99 (ms)", "failed", "timed out", .. withGc ? GcColumns : []],
            [.. r.Variants.SelectMany(v => StepsShown(v).Select(i => (Step: v.Steps[i], Knee: i == KneeStep(v)))
                .Select(s => (IReadOnlyList<string>)
                [
                    .. StepCells(v, $"{ResponseCurve.LoadText(s.Step.Load, v.LoadUnit)}{(s.Knee ? " (knee)" : "")}", s.Step.FromSeconds, s.Step.ToSeconds, s.Step.Outcomes,
                        Cell(s.Step.P50Ms, "p50Ms", s.Step.LowerBounds, s.Step.Outcomes.NoAnswer), Cell(s.Step.P99Ms, "p99Ms", s.Step.LowerBounds, s.Step.Outcomes.NoAnswer), Invariant($"{s.Step.RequestsPerSecond:0.##}")),
                    .. withGc ? GcCells(s.Step.Gc) : [],
                ]))],
            new HashSet<int> { 3, 4, 5, 6, 7, 8, 9, 10, 11 });
    }

    /// <summary>
    /// A capacity search's steps in the order they ran (each a run of its own at one load): its load, p99, whether it
    /// broke the SLO and why, and the GC over it when the runtime was observed (the figures the GC finding reads). Null
    /// without steps.
    /// </summary>
    public static TextTable? CapacityStepTable(RunSummary r)
    {
        if (r.Capacity?.Steps is not { Count: > 0 } steps)
        {
            return null;
        }
        var withGc = steps.Any(s => s.Gc is not null);
        var withCalls = steps.Any(s => s.Upstream is not null);
        return new TextTable(
            ["step", "ramp", "load", $"{r.Words.LatencyPrefix}p99 (ms)", "SLO", .. withGc ? GcColumns : [], .. withCalls ? [CallsColumn] : Array.Empty<string>()],
            [.. steps.Select(s => (IReadOnlyList<string>)
            [
                s.Variant, s.Ramp, ResponseCurve.LoadText(s.Load, r.Capacity.Unit), s.P99Ms is { } p99 ? Cell(p99, "p99Ms", s.LowerBounds, noAnswer: false) : NoAnswer,
                s.BrokeBecause is { } why ? $"broke: {why}" : s.Why is { } note && s.Verdict is { } verdict ? $"{verdict}: {note}" : "held",
                .. withGc ? GcCells(s.Gc) : [],
                .. withCalls ? [CallsCell(s.Upstream)] : Array.Empty<string>(),
            ])],
            new HashSet<int> { 2, 3, 5, 6, 7 });
    }

    private static readonly string[] GcColumns = ["time in GC pauses", "allocated per request", "peak heap"];

    /// <summary>The capacity step table's column of the outgoing calls (<see cref="CallsCell"/>), shown when any step's calls were traced.</summary>
    public const string CallsColumn = "outgoing calls (the upstream finding's figures)";

    /// <summary>
    /// A capacity step's outgoing calls as the upstream finding read them, slowest p99 first: "pricing:5001/quotes/{id}:
    /// 240 calls, 280 attempts on the wire (200 x 240, 503 x 40), p99 250 ms"; the attempts only where they were read
    /// (nothing, never 0, where not); "none" for a step that made no call; "n/a" with why where its trace was not read.
    /// </summary>
    public static string CallsCell(SummaryStepUpstream? upstream) => upstream switch
    {
        null => "n/a (the runtime was not observed)",
        { NotReadBecause: { } why } => $"n/a ({why})",
        { Calls.Count: 0 } => "none",
        _ => string.Join("; ", upstream.Calls.Select(c =>
            $"{c.Call}: {CountText.Of(c.Requests, "call")}{(c.Attempts is { } attempts ? $", {SummaryUpstreamCall.OnTheWire(attempts, c.AttemptStatuses)}" : "")}, p99 {Invariant($"{c.P99Ms:0.#}")} ms")),
    };

    /// <summary>
    /// A step's GC columns from its summary fields: the pause share, bytes allocated per request and peak heap; "n/a" with
    /// why, never 0, where its counters could not be read or the runtime was not observed.
    /// </summary>
    public static IReadOnlyList<string> GcCells(SummaryStepGc? gc) => gc is { PauseShare: { } pause, AllocatedBytesPerRequest: { } bytes, PeakHeapBytes: { } heap }
        ? [Invariant($"{100 * pause:0.#} %"), AllocationSamples.Bytes(bytes), AllocationSamples.Bytes(heap)]
        : [$"n/a ({gc?.NotReadBecause ?? "the runtime was not observed"})", "n/a", "n/a"];

    /// <summary>A variant with more steps than this is summarised in the step table (<see cref="StepsShown"/>); steps.csv keeps every step.</summary>
    public const int SummarisedStepsAbove = 12;

    private const int SummaryStepRows = 10;

    /// <summary>
    /// The steps of a variant its table row shows: all of them up to <see cref="SummarisedStepsAbove"/>; beyond, every
    /// n-th from the first (about ten rows), the knee and the last. A quick run's climbs to its steps
    /// (<see cref="StepJudgement.Climbing"/>) are left to steps.csv: its rows are the steps held and judged, and the knee.
    /// </summary>
    public static IReadOnlyList<int> StepsShown(SummaryVariant v)
    {
        if (v.Steps.Count <= SummarisedStepsAbove)
        {
            return [.. Enumerable.Range(0, v.Steps.Count)];
        }
        if (Climbed(v))
        {
            return [.. Enumerable.Range(0, v.Steps.Count).Where(i => v.Steps[i].Verdict != StepJudgement.Climbing || i == KneeStep(v))];
        }
        var stride = StrideOf(v);
        var shown = Enumerable.Range(0, v.Steps.Count).Where(i => i % stride == 0).Append(v.Steps.Count - 1).ToHashSet();
        if (KneeStep(v) is { } knee)
        {
            shown.Add(knee);
        }
        return [.. shown.Order()];
    }

    private static int StrideOf(SummaryVariant v) => (int)Math.Ceiling(v.Steps.Count / (double)SummaryStepRows);

    private static bool Climbed(SummaryVariant v) => v.Steps.Any(s => s.Verdict == StepJudgement.Climbing);

    /// <summary>The step the response curve's knee is at, or null.</summary>
    private static int? KneeStep(SummaryVariant v) => v.Curve?.Knee?.Step;

    /// <summary>Which variants' step rows are a summary and where every step is; null when every step is shown.</summary>
    public static string? StepSummaryNote(RunSummary r)
    {
        var summarised = r.Variants.Where(v => v.Steps.Count > SummarisedStepsAbove).ToList();
        return summarised.Count == 0 ? null
            : "Per step, summarised: " + string.Join("; ", summarised.Select(v => $"{v.Name} shows {CountText.Of(StepsShown(v).Count)} of its {CountText.Of(v.Steps.Count, "step")} ({(Climbed(v) ? "the steps held and judged and the knee, not the climbs to them" : $"every {CountText.Of(StrideOf(v), "step")} from the first, the knee and the last")})"))
                + $"; {StepsFileName} holds every step, so these rows do not add up to the totals.";
    }

    /// <summary>One row per load agent per variant, when agents made the load: its requests, CPU use, and whether it was client-bound or failed.</summary>
    public static TextTable? AgentTable(RunSummary r)
    {
        var rows = r.Variants.SelectMany(v => (v.Agents ?? []).Select(a => (IReadOnlyList<string>)[
            v.Name, Invariant($"{a.Index}"), a.Host, CountText.Of(a.Requests), Invariant($"{a.CpuSeconds:0.0} s"), Invariant($"{a.CpuPercent:0} % of {a.ProcessorCount}"),
            a.Fault is { } fault ? $"FAILED: {fault}" : a.ClientBound ? "client-bound" : "ok",
            string.Join(" ", a.MissingIntervalSeconds.Select(seconds => Invariant($"{seconds:0.#}"))),
        ])).ToList();
        return rows.Count == 0 ? null : new TextTable(["variant", "agent", "host", "requests", "cpu", "cpu use", "health", "intervals without its data (t, s)"], rows, new HashSet<int> { 1, 3, 4, 5 });
    }

    private static IReadOnlyList<string> StepCells(SummaryVariant v, string load, double fromSeconds, double toSeconds, SummaryOutcomes outcomes, string p50, string p99, string rps) =>
    [
        v.Name, load, Invariant($"{fromSeconds:0.#}-{toSeconds:0.#}"), CountText.Of(outcomes.Requests), rps,
        p50, p99,
        CountText.Of(outcomes.Failed), CountText.Of(outcomes.TimedOut),
    ];

    /// <summary>A latency cell of a row in which no request got an answer or timed out: there is no latency, and 0 would read as a fast one.</summary>
    public const string NoAnswer = LatencyText.NoAnswer;

    /// <summary>A variant's latency figure as a cell: "\u2265" when timed-out requests make it a lower bound, "no answer" when it has none.</summary>
    public static string Latency(SummaryVariant v, double ms, string member, string format = "0.#") => Cell(ms, member, v.LowerBounds, v.Outcomes.NoAnswer, format);

    /// <summary>A latency member of a row (<paramref name="member"/> among its <paramref name="lowerBounds"/>: a bound; a bound of 0 is one of unknown value).</summary>
    public static string Cell(double ms, string member, IReadOnlyList<string>? lowerBounds, bool noAnswer, string format = "0.#")
    {
        var bound = lowerBounds?.Contains(member) == true;
        return noAnswer ? NoAnswer : LatencyText.Format(bound && ms == 0 ? double.NaN : ms, bound, format);
    }

    /// <summary>Step tables longer than this are folded in report.html (a click opens them); summary.md keeps every row.</summary>
    public const int FoldedStepRows = 24;

    /// <summary>The experiment's own figures (e.g. CPU per request), when it computes any.</summary>
    private static TextTable? FiguresTable(RunSummary r)
    {
        var rows = r.Variants.SelectMany(v => v.Figures.Select(f => (IReadOnlyList<string>)[v.Name, f.Name, FigureCell(f)])).ToList();
        return rows.Count == 0 ? null : new TextTable(["variant", "figure", "value"], rows, new HashSet<int> { 2 });
    }

    /// <summary>
    /// An experiment's figure as a cell: a count ("30,199 messages", "21") as every count is printed (<see cref="CountText"/>);
    /// another amount under its noise (<see cref="Noise"/>) reads as no finding, with the measured value.
    /// </summary>
    public static string FigureCell(SummaryFigure f) => CountUnits.Contains(f.Unit) && f.Value >= 0 && f.Value == Math.Floor(f.Value)
        ? $"{CountText.Of((long)f.Value)} {f.Unit}".TrimEnd()
        : Noise.Amount(f.Value, f.Unit);

    /// <summary>The units of the figures that count things (none: "OS threads peak", "gen0 collections").</summary>
    private static readonly HashSet<string> CountUnits = ["", "clients", "messages", "requests", "users"];

    /// <summary>The per-variant tables' column of <see cref="AtPeakLoad"/> (after the latency prefix, if any).</summary>
    public const string AtPeakLoadColumn = "p50 / p99 at peak load (ms)";

    /// <summary>
    /// The peak step's p50 and p99 for a table cell, as its row in the step table prints them ("1003 / 1042.9",
    /// "\u2265 60082.1 / \u2265 60082.1" where timed-out requests reach that rank); "no answer" when none of its requests got an
    /// answer or timed out; "n/a (no step reached the peak load)" for a variant stopped before its peak step closed.
    /// </summary>
    public static string AtPeakLoad(SummaryVariant v) => v.PeakStep is not { } step ? "n/a (no step reached the peak load)"
        : step.Outcomes.NoAnswer ? NoAnswer
        : $"{Cell(step.P50Ms, "p50Ms", step.LowerBounds, noAnswer: false)} / {Cell(step.P99Ms, "p99Ms", step.LowerBounds, noAnswer: false)}";

    /// <summary>"Seed 003 beside today"; null when the run has no seed figure to set beside its own (run --url's "seed none").</summary>
    private static string? SeedHeading(RunSummary r) => r.Comparisons.Count == 0 ? null : Invariant($"Seed {r.Seed} beside today");

    private static TextTable SeedTable(RunSummary r) => new(
        ["figure", "seed", "today"],
        [.. r.Comparisons.Select(c => (IReadOnlyList<string>)[c.Figure, c.Seed, c.Today])],
        new HashSet<int>());

    /// <summary>What the thresholds section says when the run checked none: not "all passed" beside an empty table.</summary>
    public const string NoThresholds = "No thresholds: this run checks no limit (its figures are the result, judged by the verdict above).";

    private static string ThresholdNote(RunSummary r)
    {
        var expected = r.Variants.Where(v => v.ExpectedToFail).Select(v => ExpectationNotMet(v) is { } unmet ? $"{v.Name} ({unmet})" : v.Name).ToList();
        return Invariant($"Every variant not expected to fail is held to at most {Experiment.MaxFailedPercent:0} % failed requests (failedPercent). ") +
            (expected.Count == 0 ? "No variant is expected to fail." : $"Expected to fail, as the effect shown: {string.Join(", ", expected)}.");
    }

    private static TextTable ThresholdTable(RunSummary r) => new(
        ["threshold", "variant", "actual", "result"],
        [.. r.Thresholds.Select(t => (IReadOnlyList<string>)[t.Threshold, t.Variant, Invariant($"{t.Actual:0.###}"), t.Passed ? "pass" : "FAIL"])],
        new HashSet<int> { 2 });

    /// <summary>A stopped run's opening words: where it stopped, and that the figures cover only what ran before.</summary>
    public static string PartialNote(string partial) => $"{partial}. The figures cover only what ran before the stop.";

    /// <summary>Prints each step's figures, what the headline rests on, the headline, the verdict and every failed limit; true when all thresholds passed.</summary>
    public static bool PrintOutcome(RunSummary report, string folder, TextWriter console)
    {
        if (report.Partial is { } partial)
        {
            console.WriteLine($"== PARTIAL REPORT: {PartialNote(partial)}");
        }
        foreach (var line in StepLines(report))
        {
            console.WriteLine(line);
        }
        // Above the headline, under the page's heading: the headline and the verdict stay the last lines, the ones in view.
        if (report.HeadlineDetails is { } details)
        {
            console.WriteLine($"-- {HeadlineDetailsHeading}: {details}");
        }
        if (report.Headline is { } headline)
        {
            console.WriteLine($"== {headline}");
        }
        console.WriteLine($"== {report.Experiment}: {report.Verdict}");
        foreach (var claim in report.Claims ?? [])
        {
            console.WriteLine($"   claim {claim.Line}");
        }
        if (RoundsIntro(report) is { } rounds)
        {
            console.WriteLine($"   {rounds}");
            foreach (var line in RoundLines(report))
            {
                console.WriteLine($"   {line}");
            }
        }
        foreach (var failed in report.Thresholds.Where(t => !t.Passed))
        {
            console.WriteLine($"THRESHOLD FAILED: {failed.Threshold} on {failed.Variant} (actual {failed.Actual:0.###})");
        }
        console.WriteLine($"report: {Path.GetFullPath(folder)}");
        return report.Passed;
    }

    /// <summary>
    /// The console's closing per-step lines, read from the summary: every request in the step it was sent in, answered,
    /// failed or timed out (issue 39 item 4), so each figure is the one the headline and the report print (a lower bound
    /// with its "≥"). The live step lines above them were running figures: the requests sent in a step that had ended by its
    /// close. A capacity search's steps are its own (<see cref="SummaryCapacity.Steps"/>, each over the part that held its
    /// load); other runs', every stepped variant's steps. None for a run without steps.
    /// </summary>
    public static IReadOnlyList<string> StepLines(RunSummary r)
    {
        List<string> lines = r.Capacity?.Steps is { Count: > 0 } search
            ? [.. search.Select(s => Invariant(
                $"   {s.Variant} ({s.Ramp}) {r.Capacity.Unit}={s.Load:0.#} sent={CountText.Of(s.Requests)} answered={CountText.Of(s.Answered)} timedout={CountText.Of(s.TimedOut)} p50={StepMs(s.P50Ms, s.LowerBounds, "p50Ms")} p99={StepMs(s.P99Ms, s.LowerBounds, "p99Ms")} {s.Verdict ?? (s.BrokeBecause is null ? "held" : "broke")}"))]
            : [.. r.Variants.SelectMany(v => v.Steps.Select(s => Invariant(
                $"   {r.Experiment}/{v.Name} step {v.LoadUnit}={s.Load:0.#} {s.FromSeconds:0.0}-{s.ToSeconds:0.0}s sent={CountText.Of(s.Outcomes.Requests)} sent/s={s.RequestsPerSecond:0.#} p50={StepMs(s.NoAnswer is true ? null : s.P50Ms, s.LowerBounds, "p50Ms")} p99={StepMs(s.NoAnswer is true ? null : s.P99Ms, s.LowerBounds, "p99Ms")} failed={CountText.Of(s.Outcomes.Failed)} timedout={CountText.Of(s.Outcomes.TimedOut)}{(s.Verdict is { } verdict ? $" {verdict}" : "")}")))];
        return lines.Count == 0 ? [] : ["== each step's requests by the step they were sent in (the figures of the headline and the report; the step lines above counted those ended by each step's close):", .. lines];
    }

    /// <summary>"3868.7ms", "≥30000ms" for a lower bound, "n/a" for no answer: as the headline rounds it.</summary>
    private static string StepMs(double? ms, IReadOnlyList<string>? lowerBounds, string name) => ms is { } value
        ? Invariant($"{(lowerBounds?.Contains(name) == true ? "\u2265" : "")}{value:0.#}ms")
        : "n/a";

    /// <summary>The machine in one line; the API's processor count only when it is known (the matrix lists it per core count).</summary>
    public static string MachineLine(SummaryMachine m, int? apiProcessorCount) => Invariant(
        $"Machine: {m.CpuModel}, {m.LogicalCores} logical cores, runner ProcessorCount {m.ProcessorCount}{(apiProcessorCount is { } n ? Invariant($", API ProcessorCount {n}") : "")}, {m.Runtime}, {m.Os}.");
}
