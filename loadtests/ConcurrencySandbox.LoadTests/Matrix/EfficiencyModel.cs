using System.Globalization;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Matrix;

/// <summary>
/// The compute sweep's evidence (seed 004's hypotheses) as <c>Charts.efficiency</c> (Reports/Assets/charts.js) draws it:
/// Task.Run's efficiency against the cycles per unit (log x), one line per core count on one shared y axis, seed 004's
/// 4-core and 1-core curves beside, and the limits as lines: 100 % (no gain) and N x 100 % (the most N cores can give).
/// A row whose efficiency is impossible or inconclusive (<see cref="MatrixRunner.Flags(ComparisonRow, int)"/>) is a
/// hollow ring, never a point of the line.
/// </summary>
internal sealed record EfficiencyModel(string Title, string PanelTitle, IReadOnlyList<EfficiencyLine> Lines, IReadOnlyList<EfficiencySeed> Seeds, IReadOnlyList<EfficiencyLimit> Limits)
{
    public const string Kind = "efficiency";

    /// <summary>One colour per core count, in the order the matrix ran them (not a variant's colour).</summary>
    private static readonly string[] CoreCountColors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#17becf"];

    /// <summary>The colour of the <paramref name="index"/>-th core count that ran the sweep, on the chart and its tile.</summary>
    public static string ColorOf(int index) => CoreCountColors[index % CoreCountColors.Length];

    private const string SeedFourCoresColor = "#555555";
    private const string SeedOneCoreColor = "#999999";
    private const string LimitColor = "#111111";

    /// <summary>
    /// The chart as <c>Charts.efficiency</c> (Reports/Assets/charts.js) draws it on the matrix's page: per core count its
    /// rows with their verdict (a row <see cref="MatrixRunner.Flags(ComparisonRow, int)"/> excludes is a ring), seed 004's
    /// curves and the limits; null when no core count ran the sweep.
    /// </summary>
    public static EfficiencyModel? Of(IReadOnlyList<CoreCountRun> runs)
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
            lines,
            [
                new EfficiencySeed("seed 004, 4 cores (2015)", SeedFourCoresColor, SeedPoints(rows, s => s.FourCoresPercent)),
                new EfficiencySeed("seed 004, 1 core (2015)", SeedOneCoreColor, SeedPoints(rows, s => s.OneCorePercent)),
            ],
            [
                new EfficiencyLimit("limit 100 % (the most 1 core gives)", LimitColor, 100),
                .. swept.Select(r => r.ApiProcessorCount ?? r.Cpus).Where(n => n > 1).Distinct().Order()
                    .Select(n => new EfficiencyLimit(string.Create(CultureInfo.InvariantCulture, $"limit {n} x 100 % (the most {n} cores give)"), LimitColor, n * 100)),
            ]);
    }

    private static double[][] SeedPoints(IReadOnlyList<ComparisonRow> rows, Func<SeedEfficiency, double?> percent) =>
        [.. rows.Where(r => r.Seed is { } s && percent(s) is not null).Select(r => new[] { r.Amount, percent(r.Seed!)!.Value })];

    /// <summary>What the chart draws, under it: the lines, the whiskers and the rings.</summary>
    public const string Footnote = "solid lines: each core count's median efficiency through the rows with a verdict; capped whiskers: each row's 95 % CI, as the table's [95 % CI]; hollow rings: impossible or inconclusive rows (no verdict), which the lines pass by and no verdict uses";
}

/// <summary>A core count's sweep rows in its colour.</summary>
internal sealed record EfficiencyLine(string Name, string Color, IReadOnlyList<EfficiencyRow> Rows);

/// <summary>A sweep row: its efficiency with its 95 % CI, and whether it carries a verdict (else a ring off the line).</summary>
internal sealed record EfficiencyRow(long Cycles, double Percent, double? Low, double? High, bool Verdict);

/// <summary>One of seed 004's curves: (cycles, percent) pairs.</summary>
internal sealed record EfficiencySeed(string Name, string Color, IReadOnlyList<double[]> Points);

/// <summary>A limit drawn across the chart: no gain (100 %), or the most N cores can give.</summary>
internal sealed record EfficiencyLimit(string Name, string Color, double Percent);
