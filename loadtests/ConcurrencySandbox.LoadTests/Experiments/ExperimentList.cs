using System.CommandLine;
using ConcurrencySandbox.LoadTests.Experiments.ColdStart;
using ConcurrencySandbox.LoadTests.Experiments.Compute;
using ConcurrencySandbox.LoadTests.Experiments.Contention;
using ConcurrencySandbox.LoadTests.Experiments.FanOut;
using ConcurrencySandbox.LoadTests.Experiments.Receive;
using ConcurrencySandbox.LoadTests.Experiments.Sleep;
using ConcurrencySandbox.LoadTests.Experiments.SpinWait;
using ConcurrencySandbox.LoadTests.Experiments.Streaming;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>How the command line makes an experiment: its name, the options only it reads, and the experiment built from their values.</summary>
public sealed record ExperimentDefinition(string Name, IReadOnlyList<Option> Options, Func<OptionValues, Experiment> Create);

/// <summary>Every experiment the runner knows, in the order <c>all</c> runs them. Adding one is one line here.</summary>
public static class ExperimentList
{
    public static readonly IReadOnlyList<ExperimentDefinition> All =
    [
        ComputeExperiment.Definition,
        SpinWaitExperiment.Definition,
        SleepExperiment.Definition,
        FanOutExperiment.Definition,
        ColdStartExperiment.Definition,
        ReceiveExperiment.Definition,
        StreamingExperiment.Definition,
        ContentionExperiment.Definition,
    ];

    public static IReadOnlyList<string> Names => [.. All.Select(d => d.Name)];
}
