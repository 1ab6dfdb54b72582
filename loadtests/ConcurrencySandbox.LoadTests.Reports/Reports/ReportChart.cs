using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Experiments;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// The pictures of a report, as small multiples: one set of panels per variant, every panel of a kind on one shared
/// scale, so no variant's line can hide another's and panels compare by eye (also across a matrix's core counts).
/// A load run: per-interval latency (log, p99 solid, p50 dashed), the requests that ended in each interval stacked by
/// outcome (ok / failed / timed out, failures as their own bands), the API's pool threads and queue; then the applied
/// load. A burst (coldstart): every completed request as a dot at its completion time and latency, the requests
/// served and failed so far, then the pool. The pool panel marks the observer's thread-pool adjustments by reason
/// (<see cref="PoolAdjustmentMarkers"/>). Timed-out requests are never drawn as latencies. Variants keep their
/// colour (<see cref="VariantPalette"/>).
/// </summary>
public static class ReportChart
{
    /// <summary>Colour of the requests that failed with an answer or a connection error (not a variant's colour).</summary>
    public const string FailedColor = "#b0b0b0";

    /// <summary>Colour of the requests that timed out (not a variant's colour).</summary>
    public const string TimedOutColor = "#111111";

    public static string Render(RunSummary summary) => Render(Title(summary), summary.Variants, summary.Observations, summary.Words.Unit);

    /// <param name="observations">What the runtime observer saw, by variant label: its pool adjustments are drawn on the variant's pool panel.</param>
    /// <param name="unit">What the variants sent ("requests", "messages"): the outcome panels' axis counts these.</param>
    public static string Render(IReadOnlyList<string> titleLines, IReadOnlyList<SummaryVariant> variants, IReadOnlyDictionary<string, SummaryObservation> observations, string unit = "requests")
    {
        var isBurst = variants.Count > 0 && variants.All(v => v.LoadUnit == "burst");
        IReadOnlyList<SummaryAdjustment> AdjustmentsOf(SummaryVariant v) => observations.TryGetValue(v.Name, out var o) ? o.Adjustments : [];
        var shared = SharedScales.Of(variants, [.. variants.Select(AdjustmentsOf)]);
        var panels = new List<ChartPanel>();
        foreach (var variant in variants)
        {
            if (isBurst)
            {
                panels.Add(Timeline(variant, shared));
                panels.Add(Served(variant, shared));
            }
            else
            {
                panels.Add(Latency(variant, shared));
                panels.Add(Outcomes(variant, shared, unit));
            }
            panels.Add(Pool(variant, shared, AdjustmentsOf(variant)));
        }
        if (!isBurst && variants.FirstOrDefault(v => v.Intervals.Count > 0) is { } load)
        {
            panels.Add(new ChartPanel("Applied load (the same shape for every variant)", new ChartAxis(LoadLabel(load.LoadUnit), Counts: load.LoadUnit != "rate", Span: (0, load.PeakLoad * 1.1)), null,
                [new ChartSeries($"{LoadLabel(load.LoadUnit)}, every variant", [.. load.Intervals.Where(i => !i.Tail).Select(i => (i.ElapsedSeconds, i.Load))], VariantPalette.LoadColor, Axis.Left, Stroke.Solid)],
                Height: 120));
        }
        return SvgChart.Render(titleLines, isBurst ? "seconds since the burst was sent (a fresh API per variant)" : "seconds since the variant started (variants run one after another)", panels);
    }

    /// <summary>
    /// The latency distribution of every variant's answered and timed-out requests on a "nines" axis (90 %, 99 %, 99.9 %,
    /// ...), latency on a log axis; the timed-out share is drawn dashed at the timeout, a lower bound, so a variant whose
    /// requests mostly timed out sits above one whose requests were answered. Null when no variant has a point.
    /// </summary>
    public static string? Distribution(IReadOnlyList<string> titleLines, IReadOnlyList<SummaryVariant> variants)
    {
        if (variants.All(v => v.Distribution.Count == 0))
        {
            return null;
        }
        return Nines(titleLines, "answered and timed-out requests", "Latency distribution; dashed: requests that timed out, drawn at their timeout (a lower bound)", "latency",
            [.. variants.Select(v => ($"{v.Name} ({CountText.Of(v.Outcomes.Completed)} answered, {CountText.Of(v.Outcomes.TimedOut)} timed out)", v.Color, v.Distribution))]);
    }

    /// <summary>One curve per variant of milliseconds (log axis) against the percentile of <paramref name="population"/> on a "nines" axis.</summary>
    private static string Nines(IReadOnlyList<string> titleLines, string population, string panelTitle, string quantity, IReadOnlyList<(string Name, string Color, IReadOnlyList<SummaryPercentile> Points)> curves)
    {
        var nines = new ChartAxis($"percentile of {population} (log \"nines\" axis)", TickLabel: n => Invariant($"{100 * (1 - Math.Pow(10, -n)):0.####} %"), Counts: true);
        return SvgChart.Render(titleLines, nines,
        [
            new ChartPanel(panelTitle, new ChartAxis($"{quantity} (log scale)", Log: true, SvgChart.Milliseconds), null,
                [.. curves.SelectMany(c => NinesSeries(c.Name, c.Color, c.Points))],
                Height: 300),
        ]);
    }

    /// <summary>A curve's exact points as a solid line, then its lower bounds (timed-out requests) dashed, joined to the last exact point.</summary>
    private static IEnumerable<ChartSeries> NinesSeries(string name, string color, IReadOnlyList<SummaryPercentile> points)
    {
        static (double, double) At(SummaryPercentile p) => (-Math.Log10(1 - p.Percentile / 100), p.LatencyMs);
        var exact = points.Where(p => !p.IsLowerBound).ToList();
        var bounds = points.Where(p => p.IsLowerBound).ToList();
        if (exact.Count > 0)
        {
            yield return new ChartSeries(name, [.. exact.Select(At)], color, Axis.Left, Stroke.Solid);
        }
        if (bounds.Count > 0)
        {
            yield return new ChartSeries(Invariant($"{name}: timed out, \u2265 {bounds[0].LatencyMs:0} ms"), [.. exact.TakeLast(1).Concat(bounds).Select(At)], color, Axis.Left, Stroke.Dashed);
        }
    }

    /// <summary>
    /// An experiment's evidence chart: one bar per variant in its colour (x axis: the variants in order), the seed's
    /// figures as dashed grey reference lines across the whole width; or a distribution's curves on a "nines" axis.
    /// </summary>
    public static string Evidence(SummaryEvidence chart)
    {
        if (chart.Distributions is { Count: > 0 } distributions)
        {
            return Nines([chart.Title], chart.Unit, chart.Title, "lateness", [.. distributions.Select(d => (d.Name, VariantPalette.ColorOf(d.Name.Split('@')[0]), d.Points))]);
        }
        var names = chart.Values.Select(v => v.Name).ToList();
        var right = names.Count + 1.0;
        var variantAxis = new ChartAxis("variant", TickLabel: x => x >= 1 && x <= names.Count && x == Math.Floor(x) ? names[(int)x - 1] : "", Counts: true);
        return SvgChart.Render([chart.Title], variantAxis,
        [
            // A count has no unit: no empty "()" in the title, the axis says "count".
            new ChartPanel(chart.Unit.Length == 0 ? chart.Title : $"{chart.Title} ({chart.Unit})", new ChartAxis(chart.Unit.Length == 0 ? "count" : chart.Unit), null,
            [
                .. chart.Values.Select((v, i) => new ChartSeries($"{v.Name}: {Noise.Amount(v.Value, chart.Unit)}", [(i + 0.6, double.NaN), (i + 1.4, Noise.Drawn(v.Value))], VariantPalette.ColorOf(v.Name.Split('@')[0]), Axis.Left, Stroke.Bars)),
                .. chart.SeedLines.Select(s => new ChartSeries(s.Name, [(0.0, s.Value), (right, s.Value)], VariantPalette.LoadColor, Axis.Left, Stroke.Dashed)),
            ],
            Height: 200),
        ]);
    }

    /// <summary>
    /// The response curves as a static chart: latency against the offered load (log, p99 solid, p50 dashed), timed-out
    /// requests as hollow up-triangles at the time they were given up after (a lower bound, never a latency), then ok
    /// answers per second; each variant's knee a filled diamond on both panels; a capacity search's steps that broke
    /// the SLO a filled square, and the SLO a dotted line.
    /// </summary>
    public static string ResponseCurves(IReadOnlyList<string> titleLines, ResponseCurveModel model)
    {
        (double X, double Y)[] Line(ChartCurve c, Func<SummaryCurvePoint, double?> value) => [.. c.Points.Select(p => (p.Load, value(p) ?? double.NaN))];
        ChartMarkers Knee(ChartCurve c, Func<SummaryCurvePoint, double?> value) =>
            new($"{c.Name} knee", c.Knee is { } k && value(c.Points[k.Index]) is { } y ? [(c.Points[k.Index].Load, y)] : [], c.Color, MarkerShape.Diamond, Filled: true);
        var latencies = model.Variants.SelectMany(c => c.Points).SelectMany(p => new[] { p.P50Ms, p.P99Ms, p.TimedOutAtLeastMs }).OfType<double>().Where(ms => ms > 0).ToList();
        if (model.SloMs is { } sloMs)
        {
            latencies.Add(sloMs);
        }
        var latency = new ChartPanel(
            "Latency against the offered load: p99 solid, p50 dashed (log scale); hollow triangles: timed out, at least that long; diamonds: knee",
            new ChartAxis("latency (log scale)", Log: true, SvgChart.Milliseconds, Span: (latencies.DefaultIfEmpty(1).Min(), latencies.DefaultIfEmpty(10).Max())),
            null,
            [.. model.Variants.SelectMany(c => new[]
            {
                new ChartSeries($"{c.Name} p99", Line(c, p => p.P99Ms), c.Color, Axis.Left, Stroke.Solid),
                new ChartSeries($"{c.Name} p50", Line(c, p => p.P50Ms), c.Color, Axis.Left, Stroke.Dashed),
            })],
            Height: 280,
            Markers:
            [
                .. model.Variants.Select(c => new ChartMarkers($"{c.Name} timed out (at least)", [.. c.Points.Where(p => p.TimedOutAtLeastMs is not null).Select(p => (p.Load, p.TimedOutAtLeastMs!.Value))], c.Color, MarkerShape.TriangleUp, Filled: false))
                    .Where(m => m.Points.Count > 0),
                .. model.Variants.Select(c => Knee(c, p => p.P99Ms ?? p.TimedOutAtLeastMs)).Where(m => m.Points.Count > 0),
                .. model.Variants.Where(c => c.Broke is not null).Select(c => new ChartMarkers($"{c.Name} broke the SLO",
                    [.. c.Points.Where((p, i) => c.Broke![i] is not null).Select(p => (p.Load, p.P99Ms ?? model.SloMs ?? 0))], c.Color, MarkerShape.Square, Filled: true)).Where(m => m.Points.Count > 0),
            ]);
        if (model.SloMs is { } slo)
        {
            var loads = model.Variants.SelectMany(c => c.Points).Select(p => p.Load).ToList();
            latency = latency with { Series = [.. latency.Series, new ChartSeries(Invariant($"SLO: p99 \u2264 {SvgChart.Milliseconds(slo)}"), [(loads.Min(), slo), (loads.Max(), slo)], VariantPalette.LoadColor, Axis.Left, Stroke.Dashed)] };
        }
        var throughput = new ChartPanel(
            "Throughput against the offered load: ok answers per second; diamonds: knee",
            new ChartAxis("ok answers / s"),
            null,
            [.. model.Variants.Select(c => new ChartSeries($"{c.Name} ok/s", Line(c, p => p.OkPerSecond), c.Color, Axis.Left, Stroke.Solid))],
            Height: 200,
            Markers: [.. model.Variants.Select(c => Knee(c, p => p.OkPerSecond)).Where(m => m.Points.Count > 0)]);
        return SvgChart.Render(titleLines, new ChartAxis(model.LoadLabel, Counts: model.LoadUnit != "req/s"), [latency, throughput]);
    }

    /// <summary>The spans every panel of a kind shares, so small multiples compare by eye.</summary>
    private sealed record SharedScales((double Min, double Max) LatencyMs, double RequestsPerInterval, double TimelineSeconds, double Burst, double Threads, double Queue)
    {
        public static SharedScales Of(IReadOnlyList<SummaryVariant> variants, IEnumerable<IReadOnlyList<SummaryAdjustment>> adjustments)
        {
            var latencies = variants.SelectMany(v => v.Intervals).Where(i => i.Completed > 0).SelectMany(i => new[] { i.P50Ms, i.P99Ms }).Where(ms => ms > 0).ToList();
            return new SharedScales(
                (latencies.DefaultIfEmpty(1).Min(), latencies.DefaultIfEmpty(10).Max()),
                variants.SelectMany(v => v.Intervals).Select(i => (double)i.Requests).DefaultIfEmpty(1).Max(),
                variants.SelectMany(v => v.Burst ?? []).Select(r => r.LatencyMs / 1000).DefaultIfEmpty(1).Max(),
                variants.Select(v => (double)(v.Burst?.Count ?? 0)).DefaultIfEmpty(1).Max(),
                variants.SelectMany(v => v.Telemetry).Select(t => (double)t.ThreadCount)
                    .Concat(adjustments.SelectMany(a => a).Select(a => (double)a.NewWorkerThreadCount)).DefaultIfEmpty(1).Max(),
                variants.SelectMany(v => v.Telemetry).Select(t => (double)t.QueueLength).DefaultIfEmpty(1).Max());
        }
    }

    /// <summary>
    /// The chart's title: the experiment, the seed it re-runs said in words (a chart is also a file of its own; not where
    /// <paramref name="seedIntroduced"/>, on a page whose answer already said it), the request(s) sent, and the machine.
    /// </summary>
    public static IReadOnlyList<string> Title(RunSummary s, bool seedIntroduced = false) =>
    [
        $"{s.Experiment} ({s.Profile})",
        .. !seedIntroduced && SeedReports.Introduce(s.Seed) is { } seed ? [$"re-runs {seed}"] : Array.Empty<string>(),
        RequestPattern([.. s.Variants.Select(v => v.Request)]) is var request && request.StartsWith('/') ? $"GET {request}" : request,
        $"{s.Machine.LogicalCores} logical cores{(s.ApiProcessorCount is { } n ? $", API ProcessorCount {n}" : "")}, {s.Machine.Runtime}, {s.Machine.CpuModel}",
    ];

    /// <summary>The requests as one line: the common start and end, and the parts that differ as {a|b|c}.</summary>
    public static string RequestPattern(IReadOnlyList<string> requests)
    {
        var distinct = requests.Distinct().ToList();
        if (distinct.Count <= 1)
        {
            return distinct.FirstOrDefault() ?? "";
        }
        var prefix = distinct.Aggregate((a, b) => a[..CommonLength(a, b, fromEnd: false)]);
        var rest = distinct.Select(r => r[prefix.Length..]).ToList();
        var suffix = rest.Aggregate((a, b) => a[^CommonLength(a, b, fromEnd: true)..]);
        return $"{prefix}{{{string.Join('|', rest.Select(r => r[..^suffix.Length]))}}}{suffix}";
    }

    private static int CommonLength(string a, string b, bool fromEnd)
    {
        var n = 0;
        while (n < a.Length && n < b.Length && (fromEnd ? a[^(n + 1)] == b[^(n + 1)] : a[n] == b[n]))
        {
            n++;
        }
        return n;
    }

    private static ChartPanel Latency(SummaryVariant v, SharedScales shared) => new(
        $"{v.Name}: latency of the requests completed per interval, p99 solid, p50 dashed (log scale, shared by every variant)",
        new ChartAxis("latency (log scale)", Log: true, SvgChart.Milliseconds, Span: shared.LatencyMs),
        null,
        [
            new ChartSeries($"{v.Name} p99", PerInterval(v, i => i.P99Ms), v.Color, Axis.Left, Stroke.Solid),
            new ChartSeries($"{v.Name} p50", PerInterval(v, i => i.P50Ms), v.Color, Axis.Left, Stroke.Dashed),
        ],
        Height: 170);

    /// <summary>Requests (or messages: <paramref name="unit"/>) ended per interval, stacked: ok in the variant's colour, failed and timed out in their own (only when there were any).</summary>
    private static ChartPanel Outcomes(SummaryVariant v, SharedScales shared, string unit)
    {
        var series = new List<ChartSeries>();
        if (v.Outcomes.TimedOut > 0)
        {
            series.Add(new($"{v.Name} timed out", [.. v.Intervals.Select(i => (i.ElapsedSeconds, (double)i.Requests))], TimedOutColor, Axis.Left, Stroke.Bars));
        }
        if (v.Outcomes.Failed - v.Outcomes.TimedOut > 0)
        {
            series.Add(new($"{v.Name} failed (HTTP status or connection error)", [.. v.Intervals.Select(i => (i.ElapsedSeconds, (double)(i.Requests - i.TimedOut)))], FailedColor, Axis.Left, Stroke.Bars));
        }
        series.Add(new($"{v.Name} ok", [.. v.Intervals.Select(i => (i.ElapsedSeconds, (double)i.Ok))], v.Color, Axis.Left, Stroke.Bars));
        return new ChartPanel(
            $"{v.Name}: {unit} ended per interval by outcome ({v.Outcomes.Describe()})",
            new ChartAxis(unit, Counts: true, Span: (0, shared.RequestsPerInterval)),
            null,
            series,
            Height: 110);
    }

    private static ChartPanel Timeline(SummaryVariant v, SharedScales shared)
    {
        var answered = (v.Burst ?? []).Where(r => r.Answered).ToList();
        return new(
            $"{v.Name}: every completed request, when it completed and how long it took (shared scale)",
            new ChartAxis("latency (s)", Span: (0, shared.TimelineSeconds)),
            null,
            [new ChartSeries($"{v.Name} ({CountText.Of(answered.Count)} completed)", [.. answered.Select(r => (r.CompletedSeconds, r.LatencyMs / 1000))], v.Color, Axis.Left, Stroke.Dots)],
            Height: 200);
    }

    private static ChartPanel Served(SummaryVariant v, SharedScales shared)
    {
        var completed = (v.Burst ?? []).Where(r => r.Answered).ToList();
        var failed = (v.Burst ?? []).Where(r => !r.Answered).ToList();
        List<ChartSeries> series = [new($"{v.Name} served", [(0, 0), .. completed.Select((r, i) => (r.CompletedSeconds, i + 1.0))], v.Color, Axis.Left, Stroke.Solid)];
        if (failed.Count > 0)
        {
            series.Add(new($"{v.Name} given up without an answer (a timed-out one took at least its time here)", [(0, 0), .. failed.Select((r, i) => (r.CompletedSeconds, i + 1.0))], TimedOutColor, Axis.Left, Stroke.Dashed));
        }
        return new ChartPanel($"{v.Name}: completion curve, the burst's requests answered by each moment since it was sent", new ChartAxis("requests (cumulative)", Counts: true, Span: (0, shared.Burst)), null, series, Height: 120);
    }

    private static ChartPanel Pool(SummaryVariant v, SharedScales shared, IReadOnlyList<SummaryAdjustment> adjustments) => new(
        $"{v.Name}: API thread pool (recorded in the API every second), threads solid, queued items dashed{(adjustments.Count > 0 ? ", adjustments marked" : "")}",
        new ChartAxis("pool threads", Counts: true, Span: (0, shared.Threads)),
        new ChartAxis("queued work items", Counts: true, Span: (0, shared.Queue)),
        [
            new ChartSeries($"{v.Name} threads", [.. v.Telemetry.Select(t => (t.ElapsedSeconds, (double)t.ThreadCount))], v.Color, Axis.Left, Stroke.Solid),
            new ChartSeries($"{v.Name} queue", [.. v.Telemetry.Select(t => (t.ElapsedSeconds, (double)t.QueueLength))], v.Color, Axis.Right, Stroke.Dashed),
        ],
        Height: adjustments.Count > 0 ? 160 : 110,
        Markers: PoolAdjustmentMarkers.Of(adjustments));

    /// <summary>One point per interval; an interval in which no request completed breaks the line.</summary>
    private static (double X, double Y)[] PerInterval(SummaryVariant v, Func<SummaryInterval, double> value) =>
        [.. v.Intervals.Select(i => (i.ElapsedSeconds, i.Completed > 0 ? value(i) : double.NaN))];

    /// <summary>A load axis's label, naming the unit its points are in: "users", "clients", "arrival rate (req/s)", the burst's size.</summary>
    public static string LoadLabel(string loadUnit) => loadUnit switch
    {
        "rate" => "arrival rate (req/s)",
        "burst" => "requests sent at once (the burst)",
        _ => loadUnit,
    };
}
