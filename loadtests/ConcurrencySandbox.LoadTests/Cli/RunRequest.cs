using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>
/// A validated command line: what to run, how hard, against what; <paramref name="Settings"/> holds what every command
/// that sends load shares (progress, thresholds, observer, agents, report folder), from which its <see cref="RunRoot"/> is built.
/// <paramref name="Experiments"/> holds the experiments the command runs, built from its options, in <see cref="ExperimentList"/> order;
/// <paramref name="Matrix"/> is set for <c>matrix</c> alone.
/// <paramref name="Runs"/>: how many times the whole command runs (<c>--runs</c>), each into its own run-N folder.
/// </summary>
internal sealed record RunRequest(
    string Experiment,
    LoadOptions Load,
    Uri? Target,
    IReadOnlyList<Experiment> Experiments,
    MatrixOptions? Matrix,
    RunSettings Settings,
    int Runs = 1)
{
    /// <summary>The experiments the command names: one, or every one for <c>all</c>.</summary>
    public IReadOnlyList<Experiment> Selected => Experiment == "all" ? Experiments : [.. Experiments.Where(e => e.Name == Experiment)];

    /// <summary>
    /// The selected experiments that can run: with <c>--target</c>, those that need fresh API processes are left out
    /// (<c>all</c> skips them with a note; a single one is refused).
    /// </summary>
    public IReadOnlyList<Experiment> Runnable => Target is null ? Selected : [.. Selected.Where(e => !e.NeedsFreshApi)];

    /// <summary><c>--rounds N</c>: interleaved rounds per experiment; null: each experiment's own count.</summary>
    public int? Rounds { get; init; }

    /// <summary><c>--rounds-budget-s</c>: the time the rounds may take; null: the default budget.</summary>
    public TimeSpan? RoundsBudget { get; init; }

    public T Get<T>() where T : Experiment => Experiments.OfType<T>().Single();
}
