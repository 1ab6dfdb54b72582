using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>One variant's value of the figure an evidence chart shows, or one of the seed's figures drawn beside it.</summary>
public sealed record EvidenceValue(string Name, double Value);

/// <summary>One variant's distribution of a figure in milliseconds: its value at each percentile.</summary>
public sealed record EvidenceDistribution(string Name, IReadOnlyList<PercentilePoint> Points);

/// <summary>
/// A chart an experiment declares beside its verdict: one bar per variant of the figure the verdict rests on, in
/// <paramref name="Unit"/>, with the seed's figures drawn as reference lines; or, when <paramref name="Distributions"/> is
/// given, one curve per variant on a "nines" percentile axis. The report draws it above the generic charts.
/// </summary>
public sealed record EvidenceChart(string Title, string Unit, IReadOnlyList<EvidenceValue> Values, IReadOnlyList<EvidenceValue> SeedLines,
    IReadOnlyList<EvidenceDistribution>? Distributions = null)
{
    /// <summary>A chart of the experiment's own figure <paramref name="figure"/> (see <see cref="Experiment.FiguresOf"/>) for every variant that has it; null when none has.</summary>
    public static EvidenceChart? OfFigure(string title, string figure, IReadOnlyList<VariantResult> results, IReadOnlyList<EvidenceValue> seedLines)
    {
        var values = results.SelectMany(r => r.Figures.Where(f => f.Name == figure).Select(f => (r.Key.Label, f))).ToList();
        return values.Count == 0 ? null : new EvidenceChart(title, values[0].f.Unit, [.. values.Select(v => new EvidenceValue(v.Label, v.f.Value))], seedLines);
    }
}
