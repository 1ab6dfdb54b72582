using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// Seed 003's picture: the top panel shows per variant the mean latency (solid, left axis) and requests per second
/// (dashed, right axis) with the applied load (grey, dotted); the bottom panel the API's pool thread count (solid)
/// and queue length (dashed). Variants run one after another but share the x axis: seconds since each one began.
/// </summary>
public static class ReportChart
{
    private const string LoadColor = "#555555";

    public static string Render(string title, IReadOnlyList<VariantResult> variants)
    {
        var top = new List<ChartSeries>();
        var bottom = new List<ChartSeries>();
        var loadUnit = variants.FirstOrDefault()?.LoadUnit ?? "users";
        var load = variants.FirstOrDefault(v => v.Intervals.Count > 0);
        if (load is not null)
        {
            top.Add(new ChartSeries(LoadLabel(loadUnit), [.. load.Intervals.Select(i => (i.ElapsedSeconds, i.Load))], LoadColor, Axis.Right, Stroke.Dotted));
        }
        for (var i = 0; i < variants.Count; i++)
        {
            var v = variants[i];
            var color = SvgChart.Palette[i % SvgChart.Palette.Count];
            top.Add(new ChartSeries($"{v.Key} mean latency (s)", [.. v.Intervals.Where(r => r.Stats.Requests > 0).Select(r => (r.ElapsedSeconds, r.Stats.MeanMs / 1000))], color, Axis.Left, Stroke.Solid));
            top.Add(new ChartSeries($"{v.Key} requests/s", [.. v.Intervals.Select(r => (r.ElapsedSeconds, r.RequestsPerSecond))], color, Axis.Right, Stroke.Dashed));
            bottom.Add(new ChartSeries($"{v.Key} pool threads", [.. v.Telemetry.Select(t => (t.ElapsedSeconds, (double)t.Snapshot.ThreadPool.ThreadCount))], color, Axis.Left, Stroke.Solid));
            bottom.Add(new ChartSeries($"{v.Key} queue length", [.. v.Telemetry.Select(t => (t.ElapsedSeconds, (double)t.Snapshot.ThreadPool.PendingWorkItemCount))], color, Axis.Right, Stroke.Dashed));
        }
        return SvgChart.Render(title, "seconds since the variant started",
        [
            new ChartPanel("Load, throughput and mean latency", "mean latency (s)", $"{LoadLabel(loadUnit)} · requests/s", top),
            new ChartPanel("API thread pool (recorded in the API every second, /api/telemetry/history)", "pool threads", "queued work items", bottom),
        ]);
    }

    private static string LoadLabel(string loadUnit) => loadUnit switch
    {
        "rate" => "arrival rate (req/s)",
        "burst" => "requests in flight",
        _ => "users",
    };
}
