using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// The pictures of a report. A load run: per-interval latency on a log axis (p99 solid, p50 dashed), throughput,
/// the applied load and the API's pool threads and queue, each on its own panel. A burst (coldstart): every request
/// as a dot at its completion time and latency, the requests served so far, then the pool. Variants keep their colour (<see cref="VariantPalette"/>);
/// matrix variants (pinned to a core count) get one set of panels per core count.
/// </summary>
public static class ReportChart
{
    public static string Render(ExperimentReport report) =>
        Render(Title(report.Experiment, report.Seed, report.Profile, report.Variants, report.Machine, report.ApiProcessorCount), report.Variants, report.Observations);

    /// <param name="observations">The runtime observer's findings by variant label: its pool adjustments are drawn as dots on the pool panel.</param>
    public static string Render(IReadOnlyList<string> titleLines, IReadOnlyList<VariantResult> variants, IReadOnlyDictionary<string, VariantObservation>? observations = null)
    {
        var isBurst = variants.Count > 0 && variants.All(v => v.LoadUnit == "burst");
        var panels = new List<ChartPanel>();
        var groups = variants.GroupBy(v => v.Key.Cpus).ToList();
        foreach (var group in groups)
        {
            var suffix = group.Key is { } cpus ? $", {cpus} core(s)" : "";
            var members = group.ToList();
            if (isBurst)
            {
                panels.Add(Timeline(members, suffix));
                panels.Add(Served(members, suffix));
            }
            else
            {
                panels.Add(Latency(members, suffix));
                panels.Add(Throughput(members, suffix));
            }
            panels.Add(Pool(members, suffix, observations ?? new Dictionary<string, VariantObservation>()));
        }
        if (!isBurst && variants.FirstOrDefault(v => v.Intervals.Count > 0) is { } load)
        {
            panels.Add(new ChartPanel("Applied load (the same shape for every variant)", new ChartAxis(LoadLabel(load.LoadUnit)), null,
                [new ChartSeries($"{LoadLabel(load.LoadUnit)}, every variant", [.. load.Intervals.Select(i => (i.ElapsedSeconds, i.Load))], VariantPalette.LoadColor, Axis.Left, Stroke.Solid)],
                Height: 120));
        }
        return SvgChart.Render(titleLines, isBurst ? "seconds since the burst was sent (a fresh API per variant)" : "seconds since the variant started (variants run one after another)", panels);
    }

    /// <summary>The chart's title: the seed and experiment, the request(s) sent, and the machine.</summary>
    public static IReadOnlyList<string> Title(string experiment, string seed, string profile, IReadOnlyList<VariantResult> variants, MachineFacts machine, int? apiProcessorCount) =>
    [
        $"Seed {seed}: {experiment} ({profile})",
        $"GET {RequestPattern([.. variants.Select(v => v.Request)])}",
        $"{machine.LogicalCores} logical cores{(apiProcessorCount is { } n ? $", API ProcessorCount {n}" : "")}, {machine.Runtime}, {machine.CpuModel}",
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

    private static ChartPanel Latency(List<VariantResult> variants, string suffix) => new(
        $"Latency per interval{suffix}: p99 solid, p50 dashed (log scale)",
        new ChartAxis("latency (log scale)", Log: true, SvgChart.Milliseconds),
        null,
        [.. variants.SelectMany(v => new[]
        {
            new ChartSeries($"{v.Key.Label} p99", PerInterval(v, s => s.P99Ms), VariantPalette.ColorOf(v.Key), Axis.Left, Stroke.Solid),
            new ChartSeries($"{v.Key.Label} p50", PerInterval(v, s => s.P50Ms), VariantPalette.ColorOf(v.Key), Axis.Left, Stroke.Dashed),
        })]);

    private static ChartPanel Throughput(List<VariantResult> variants, string suffix) => new(
        $"Throughput{suffix}: requests completed per second",
        new ChartAxis("requests/s"),
        null,
        [.. variants.Select(v => new ChartSeries(v.Key.Label, [.. v.Intervals.Select(i => (i.ElapsedSeconds, i.RequestsPerSecond))], VariantPalette.ColorOf(v.Key), Axis.Left, Stroke.Solid))],
        Height: 180);

    private static ChartPanel Timeline(List<VariantResult> variants, string suffix) => new(
        $"Every request{suffix}: when it completed and how long it took",
        new ChartAxis("latency (s)"),
        null,
        [.. variants.Select(v => new ChartSeries($"{v.Key.Label} ({v.Requests.Count} requests)", [.. v.Requests.Select(r => (r.CompletedSeconds, r.LatencyMs / 1000))], VariantPalette.ColorOf(v.Key), Axis.Left, Stroke.Dots))],
        Height: 280);

    private static ChartPanel Served(List<VariantResult> variants, string suffix) => new(
        $"Requests of the burst served so far{suffix}",
        new ChartAxis("requests completed"),
        null,
        [.. variants.Select(v => new ChartSeries(v.Key.Label, [(0, 0), .. v.Requests.Select((r, i) => (r.CompletedSeconds, i + 1.0))], VariantPalette.ColorOf(v.Key), Axis.Left, Stroke.Solid))],
        Height: 160);

    private static ChartPanel Pool(List<VariantResult> variants, string suffix, IReadOnlyDictionary<string, VariantObservation> observations) => new(
        observations.Count > 0
            ? $"API thread pool{suffix} (the runtime's counters every second): threads solid, queued items dashed, the pool's own adjustments as dots"
            : $"API thread pool{suffix} (recorded in the API every second): threads solid, queued items dashed",
        new ChartAxis("pool threads"),
        new ChartAxis("queued work items"),
        [.. variants.SelectMany(v => new[]
        {
            new ChartSeries($"{v.Key.Label} threads", [.. v.Telemetry.Select(t => (t.ElapsedSeconds, (double)t.Snapshot.ThreadPool.ThreadCount))], VariantPalette.ColorOf(v.Key), Axis.Left, Stroke.Solid),
            new ChartSeries($"{v.Key.Label} queue", [.. v.Telemetry.Select(t => (t.ElapsedSeconds, (double)t.Snapshot.ThreadPool.PendingWorkItemCount))], VariantPalette.ColorOf(v.Key), Axis.Right, Stroke.Dashed),
        }.Concat(observations.TryGetValue(v.Key.Label, out var o) && o.Adjustments.Count > 0
            ? [new ChartSeries($"{v.Key.Label} adjustments ({string.Join(", ", o.AdjustmentsByReason.Select(r => $"{r.Key} {r.Value}"))})",
                [.. o.Adjustments.Select(a => (a.ElapsedSeconds, (double)a.NewWorkerThreadCount))], VariantPalette.ColorOf(v.Key), Axis.Left, Stroke.Dots)]
            : Array.Empty<ChartSeries>()))],
        Height: 180);

    /// <summary>One point per interval; an interval in which no request completed breaks the line.</summary>
    private static (double X, double Y)[] PerInterval(VariantResult v, Func<LatencyStats, double> value) =>
        [.. v.Intervals.Select(i => (i.ElapsedSeconds, i.Stats.Requests > 0 ? value(i.Stats) : double.NaN))];

    private static string LoadLabel(string loadUnit) => loadUnit switch
    {
        "rate" => "arrival rate (req/s)",
        "burst" => "requests in flight",
        _ => "users",
    };
}
