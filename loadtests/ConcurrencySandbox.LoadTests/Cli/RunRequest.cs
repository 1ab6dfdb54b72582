using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>A validated command line: what to run, how hard, against what, and where the report goes.</summary>
public sealed record RunRequest(
    string Experiment,
    LoadOptions Load,
    Uri? Target,
    string OutputFolder,
    ExperimentSettings Settings,
    IReadOnlyList<Threshold> Thresholds,
    MatrixOptions Matrix);

/// <summary>The matrix command's options: core counts, GC mode and what to run at each.</summary>
public sealed record MatrixOptions(IReadOnlyList<int> Cpus, string? GcMode, IReadOnlyList<string> Experiments, long SweepTo, int SweepRepeat)
{
    public static readonly IReadOnlyList<string> KnownExperiments = ["sweep", "fanout"];
}
