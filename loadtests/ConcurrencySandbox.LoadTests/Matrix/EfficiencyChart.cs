using System.Globalization;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Matrix;

/// <summary>
/// The compute sweep's evidence (seed 004's hypotheses): Task.Run's efficiency against the cycles per unit (log x), one
/// line per core count on one shared y axis, seed 004's 4-core and 1-core curves beside, and the limits as lines: 100 %
/// (no gain) and N x 100 % (the most N cores can give). A row whose efficiency is impossible or inconclusive
/// (<see cref="MatrixRunner.Flags(ComparisonRow, int)"/>) is a hollow ring, never a point of the line.
/// </summary>
internal static class EfficiencyChart
{
    /// <summary>One colour per core count, in the order the matrix ran them (not a variant's colour).</summary>
    private static readonly string[] CoreCountColors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#17becf"];

    /// <summary>The colour of the <paramref name="index"/>-th core count that ran the sweep, on the chart and its tile.</summary>
    public static string ColorOf(int index) => CoreCountColors[index % CoreCountColors.Length];

    private const string SeedFourCoresColor = "#555555";
    private const string SeedOneCoreColor = "#999999";
    private const string LimitColor = "#111111";

    /// <summary>The chart, or null when no core count ran the sweep.</summary>
    public static string? Render(IReadOnlyList<CoreCountRun> runs)
    {
        var swept = runs.Where(r => r.SkippedBecause is null && r.Sweep.Count > 0).ToList();
        if (swept.Count == 0)
        {
            return null;
        }

        var rows = swept.SelectMany(r => r.Sweep).DistinctBy(r => r.Amount).OrderBy(r => r.Amount).ToList();
        var (from, to) = ((double)rows[0].Amount, (double)rows[^1].Amount);
        var series = new List<ChartSeries>();
        foreach (var (run, color) in swept.Select((r, i) => (r, ColorOf(i))))
        {
            var cores = run.ApiProcessorCount ?? run.Cpus;
            var judged = run.Sweep.OrderBy(r => r.Amount).Select(r => (Row: r, Excluded: MatrixRunner.Flags(r, cores).Any(f => f.Excludes))).ToList();
            // The line joins the rows with a verdict straight across a ring, so one ring does not cut the core count's curve in two.
            series.Add(new ChartSeries($"{run.Label}: median efficiency",
                [.. judged.Where(j => !j.Excluded).Select(j => ((double)j.Row.Amount, j.Row.EfficiencyPercent))], color, Axis.Left, Stroke.Solid));
            series.Add(new ChartSeries($"{run.Label}: no verdict (ring)",
                [.. judged.Where(j => j.Excluded).Select(j => ((double)j.Row.Amount, j.Row.EfficiencyPercent))], color, Axis.Left, Stroke.HollowDots));
            series.Add(new ChartSeries($"{run.Label}: 95 % CI (whiskers)", Whiskers(run.Sweep), color, Axis.Left, Stroke.Whiskers));
        }
        series.Add(new ChartSeries("seed 004, 4 cores (2015)", SeedCurve(rows, s => s.FourCoresPercent), SeedFourCoresColor, Axis.Left, Stroke.Dashed));
        series.Add(new ChartSeries("seed 004, 1 core (2015)", SeedCurve(rows, s => s.OneCorePercent), SeedOneCoreColor, Axis.Left, Stroke.Dashed));
        var limits = swept.Select(r => r.ApiProcessorCount ?? r.Cpus).Where(n => n > 1).Distinct().Order().ToList();
        series.Add(Limit("limit 100 % (the most 1 core gives)", 100, from, to));
        series.AddRange(limits.Select(n => Limit(string.Create(CultureInfo.InvariantCulture, $"limit {n} x 100 % (the most {n} cores give)"), n * 100, from, to)));

        var top = series.SelectMany(s => s.Points).Select(p => p.Y).Where(double.IsFinite).Max();
        return SvgChart.Render(
            ["Task.Run's efficiency (sync time / Task.Run time x 100) per core count", $"beside {SeedReports.Introduce("004")}", Footnote],
            new ChartAxis("cycles of work per unit (log scale)", Log: true, TickLabel: cycles => cycles.ToString("N0", CultureInfo.InvariantCulture)),
            [
                new ChartPanel("Efficiency vs cycles, every core count on one axis, with seed 004's curves and the limits",
                    new ChartAxis("% efficiency", Span: (0, top * 1.05)), null, series, Height: 320),
            ]);
    }

    /// <summary>
    /// The chart as <c>Charts.efficiency</c> (Reports/Assets/charts.js) draws it on the matrix's page: per core count its
    /// rows with their verdict (a row <see cref="MatrixRunner.Flags(ComparisonRow, int)"/> excludes is a ring), seed 004's
    /// curves and the limits; null when no core count ran the sweep.
    /// </summary>
    public static EfficiencyModel? Model(IReadOnlyList<CoreCountRun> runs)
    {
        var swept = runs.Where(r => r.SkippedBecause is null && r.Sweep.Count > 0).ToList();
        if (swept.Count == 0)
        {
            return null;
        }
        var rows = swept.SelectMany(r => r.Sweep).DistinctBy(r => r.Amount).OrderBy(r => r.Amount).ToList();
        var lines = swept.Select((run, i) => new EfficiencyLine(run.Label, ColorOf(i),
            [.. run.Sweep.OrderBy(r => r.Amount).Select(r => new EfficiencyRow(r.Amount, r.EfficiencyPercent, r.Efficiency.Low, r.Efficiency.High,
                Verdict: !MatrixRunner.Flags(r, run.ApiProcessorCount ?? run.Cpus).Any(f => f.Excludes)))])).ToList();
        return new EfficiencyModel(
            $"Task.Run's efficiency (sync time / Task.Run time x 100) per core count, beside {SeedReports.Introduce("004")}",
            "Efficiency vs cycles, every core count on one axis, with seed 004's curves and the limits",
            [.. lines.Select(l => new ChartVariant(l.Name, l.Color))],
            lines,
            [
                new EfficiencySeed("seed 004, 4 cores (2015)", SeedFourCoresColor, SeedPoints(rows, s => s.FourCoresPercent)),
                new EfficiencySeed("seed 004, 1 core (2015)", SeedOneCoreColor, SeedPoints(rows, s => s.OneCorePercent)),
            ],
            [
                new EfficiencyLimit("limit 100 % (the most 1 core gives)", 100),
                .. swept.Select(r => r.ApiProcessorCount ?? r.Cpus).Where(n => n > 1).Distinct().Order()
                    .Select(n => new EfficiencyLimit(string.Create(CultureInfo.InvariantCulture, $"limit {n} x 100 % (the most {n} cores give)"), n * 100)),
            ]);
    }

    private static double[][] SeedPoints(IReadOnlyList<ComparisonRow> rows, Func<SeedEfficiency, double?> percent) =>
        [.. rows.Where(r => r.Seed is { } s && percent(s) is not null).Select(r => new[] { r.Amount, percent(r.Seed!)!.Value })];

    /// <summary>What the chart draws, under its title: the lines, the whiskers and the rings, as <see cref="Render"/> makes them.</summary>
    public const string Footnote = "solid lines: each core count's median efficiency through the rows with a verdict; capped whiskers: each row's 95 % CI, as the table's [95 % CI]; hollow rings: impossible or inconclusive rows (no verdict), which the lines pass by and no verdict uses";

    /// <summary>Each row's CI as a low and high pair, a NaN between rows (<see cref="Stroke.Whiskers"/>); a row without an interval has none.</summary>
    private static (double X, double Y)[] Whiskers(IReadOnlyList<ComparisonRow> rows) =>
        [.. rows.OrderBy(r => r.Amount).Where(r => r.Efficiency is { Low: not null, High: not null })
            .SelectMany(r => new[] { ((double)r.Amount, r.Efficiency.Low!.Value), (r.Amount, r.Efficiency.High!.Value), (r.Amount, double.NaN) })];

    private static (double X, double Y)[] SeedCurve(IReadOnlyList<ComparisonRow> rows, Func<SeedEfficiency, double?> percent) =>
        [.. rows.Where(r => r.Seed is { } s && percent(s) is not null).Select(r => ((double)r.Amount, percent(r.Seed!)!.Value))];

    private static ChartSeries Limit(string name, double percent, double from, double to) =>
        new(name, [(from, percent), (to, percent)], LimitColor, Axis.Left, Stroke.Dotted);
}

/// <summary>The model of <c>Charts.efficiency</c>: per core count a line of sweep rows, seed 004's curves and the limits.</summary>
internal sealed record EfficiencyModel(string Title, string PanelTitle, IReadOnlyList<ChartVariant> Variants, IReadOnlyList<EfficiencyLine> Lines, IReadOnlyList<EfficiencySeed> Seeds, IReadOnlyList<EfficiencyLimit> Limits)
{
    public const string Kind = "efficiency";
}

/// <summary>A core count's sweep rows in its colour.</summary>
internal sealed record EfficiencyLine(string Name, string Color, IReadOnlyList<EfficiencyRow> Rows);

/// <summary>A sweep row: its efficiency with its 95 % CI, and whether it carries a verdict (else a ring off the line).</summary>
internal sealed record EfficiencyRow(long Cycles, double Percent, double? Low, double? High, bool Verdict);

/// <summary>One of seed 004's curves: (cycles, percent) pairs.</summary>
internal sealed record EfficiencySeed(string Name, string Color, IReadOnlyList<double[]> Points);

internal sealed record EfficiencyLimit(string Name, double Percent);
