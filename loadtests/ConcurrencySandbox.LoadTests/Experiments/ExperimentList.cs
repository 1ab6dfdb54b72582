using System.CommandLine;
using ConcurrencySandbox.LoadTests.Experiments.ColdStart;
using ConcurrencySandbox.LoadTests.Experiments.Compute;
using ConcurrencySandbox.LoadTests.Experiments.Contention;
using ConcurrencySandbox.LoadTests.Experiments.FanOut;
using ConcurrencySandbox.LoadTests.Experiments.Receive;
using ConcurrencySandbox.LoadTests.Experiments.Sleep;
using ConcurrencySandbox.LoadTests.Experiments.SpinWait;
using ConcurrencySandbox.LoadTests.Experiments.Streaming;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>How the command line makes an experiment: its name, the options only it reads, and the experiment built from their values.</summary>
internal sealed record ExperimentDefinition(string Name, IReadOnlyList<Option> Options, Func<OptionValues, Experiment> Create)
{
    /// <summary>What the experiment asks, in a sentence: its command's help.</summary>
    public string Description { get; init; } = "";

    /// <summary>The colours of its variants in every chart (the report's palette draws others from a stable hash of the name).</summary>
    public IReadOnlyList<VariantColor> Colors { get; init; } = [];
}

/// <summary>Every experiment the runner knows, in the order <c>all</c> runs them. Adding one is one line here.</summary>
internal static class ExperimentList
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

    /// <summary>Every experiment's variant colours, for the reports' palette (<see cref="VariantPalette.Declare"/>).</summary>
    public static IEnumerable<VariantColor> Colors => All.SelectMany(d => d.Colors);
}
