using System.CommandLine;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments.Sleep;

/// <summary>Seed 003's starvation with sleep as the blocking work: <c>/api/sleep/{sync|taskrun|async}?milliseconds=</c>.</summary>
internal sealed class SleepExperiment(int milliseconds) : Experiment
{
    public const int DefaultMilliseconds = 100;

    private static readonly Option<int> MillisecondsOption = new("--milliseconds") { Description = "sleep: milliseconds per work unit.", DefaultValueFactory = _ => DefaultMilliseconds };

    public static readonly ExperimentDefinition Definition = new("sleep", [MillisecondsOption], values => new SleepExperiment(values.Positive(MillisecondsOption)))
    {
        Description = "Seed 003's wait three ways: Thread.Sleep inline, Thread.Sleep in a Task.Run, or Task.Delay awaited, under a ramp of users.",
    };

    public override string Name => Definition.Name;

    public override string Seed => "003";

    public override int DefaultRounds => RoundsForACi;

    public override TimeSpan MinimumLoad => RampNeeds;

    public override IReadOnlyList<Variant> Variants =>
        [.. new[] { "sync", "taskrun", "async" }.Select(mode => new Variant(mode, new HttpRamp($"/api/sleep/{mode}?milliseconds={milliseconds}")))];

    // Both block a pool thread per request: under load they starve it and may time out, which is the finding.
    public override IReadOnlyList<string> ExpectedToFail => ["sync", "taskrun"];

    // sync sleeps its two units one after the other, async awaits both at once.
    public override Finding Assess(IReadOnlyList<VariantResult> results) =>
        Starvation.Assess(results, new("sync", 2.0 * milliseconds), new("async", milliseconds), customPool: null);
}
