using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
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

    /// <summary>What the report calls what the load sent (<see cref="Experiment.Words"/>).</summary>
    public ReportWords Words { get; init; } = ReportWords.Requests;

    /// <summary>The variants the experiment expects to fail or time out (its effect), so their failures do not fail the run.</summary>
    public IReadOnlyList<string> ExpectedToFail { get; init; } = [];

    /// <summary>The charts the experiment declares beside its verdict (<see cref="Experiment.EvidenceOf"/>).</summary>
    public IReadOnlyList<EvidenceChart> Evidence { get; init; } = [];

    /// <summary>What the runtime observer saw, by variant label (empty when no process was observed).</summary>
    public IReadOnlyDictionary<string, VariantObservation> Observations { get; init; } = new Dictionary<string, VariantObservation>();

    /// <summary>The report's first paragraph when a run has one (run --url: the method to change, the load at the break and why, what the fix buys).</summary>
    public string? Headline { get; init; }

    /// <summary>Every figure the headline prints, as printed (null for runs without a headline).</summary>
    public IReadOnlyList<SummaryFigure>? HeadlineFigures { get; init; }

    /// <summary>What the headline rests on, said once below it (null for runs without a headline).</summary>
    public string? HeadlineDetails { get; init; }

    /// <summary>A capacity search's steps by variant label: the state each started from (null for other runs).</summary>
    public IReadOnlyDictionary<string, SummaryStepStart>? StepStarts { get; init; }

    /// <summary>run --url --find-capacity's finding as figures (null for other runs).</summary>
    public SummaryCapacity? Capacity { get; init; }

    /// <summary>A capacity search's verdict on each step, by variant label: held, held within noise, starved then held, or broke, and why (null for other runs).</summary>
    public IReadOnlyDictionary<string, StepJudgement>? StepJudgements { get; init; }

    /// <summary>A plain profile's verdict on each of its steps (its one variant's <see cref="VariantResult.Steps"/>, in order), by the search's rule; null for other runs.</summary>
    public IReadOnlyList<StepJudgement>? ProfileStepJudgements { get; init; }

    /// <summary>The label prefix of the steps of the --verify-fix ramp (after the restart with the pool minimum); null without one.</summary>
    public string? FixRampPrefix { get; init; }

    /// <summary>The interleaved rounds and each one's verdict figure (null: a single round without a figure).</summary>
    public SummaryRounds? Rounds { get; init; }
    /// <summary>
    /// Set when the run was stopped (Ctrl+C, SIGTERM) before it finished: where it stopped, "partial: stopped after
    /// variant sync step 2 of 5 ...", printed first in every form of the report. Null for a finished run.
    /// </summary>
    public string? Partial { get; init; }

    /// <summary>Where a stopped run stopped, "after variant sync step 2 of 5" (<see cref="PartialRun.Where"/>), for a caller that words a run of several parts; null when it was not stopped.</summary>
    public string? StoppedAt { get; init; }
    /// <summary>Why the starvation diagnosis does not fit this experiment's load (<see cref="Experiment.DiagnosisDoesNotApplyBecause"/>); null where it does.</summary>
    public string? DiagnosisDoesNotApplyBecause { get; init; }

    /// <summary>The --verify-fix re-run, when one was made.</summary>
    public FixCheck? Fix { get; init; }

    /// <summary>The API's processor count as its telemetry reported it (null when telemetry never answered).</summary>
    public int? ApiProcessorCount => Variants.SelectMany(v => v.Telemetry).Select(t => (int?)t.Snapshot.ProcessorCount).FirstOrDefault();
}
