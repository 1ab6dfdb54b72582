using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>Everything one experiment produced, ready to be written out.</summary>
public sealed record ExperimentReport(
    string Experiment,
    string Seed,
    string Profile,
    string LoadShape,
    string Target,
    DateTimeOffset StartedAt,
    MachineFacts Machine,
    IReadOnlyList<VariantResult> Variants,
    Finding Finding,
    IReadOnlyList<ThresholdOutcome> Thresholds)
{
    public bool Passed => Thresholds.All(t => t.Passed);

    /// <summary>The variants the experiment expects to fail or time out (its effect), so their failures do not fail the run.</summary>
    public IReadOnlyList<string> ExpectedToFail { get; init; } = [];

    /// <summary>The charts the experiment declares beside its verdict (<see cref="Experiment.EvidenceOf"/>).</summary>
    public IReadOnlyList<EvidenceChart> Evidence { get; init; } = [];

    /// <summary>The API's processor count as its telemetry reported it (null when telemetry never answered).</summary>
    public int? ApiProcessorCount => Variants.SelectMany(v => v.Telemetry).Select(t => (int?)t.Snapshot.ProcessorCount).FirstOrDefault();
}
