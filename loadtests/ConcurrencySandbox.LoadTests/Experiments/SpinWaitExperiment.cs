using System.CommandLine;
using ConcurrencySandbox.Experiments.Work;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>Seed 004's SpinWait under load: <c>/api/spinwait/{sync|taskrun}?iterations=</c> (the seed tabulated no SpinWait figures).</summary>
public sealed class SpinWaitExperiment(long iterations) : TaskRunExperiment(WorkUnit.SpinWait, iterations)
{
    public const long DefaultIterations = 100_000;

    private static readonly Option<long> IterationsOption = new("--iterations") { Description = "spinwait: SpinWait iterations per work unit.", DefaultValueFactory = _ => DefaultIterations };

    public static readonly ExperimentDefinition Definition = new("spinwait", [IterationsOption], values => new SpinWaitExperiment(values.Positive(IterationsOption)));

    public override string Name => Definition.Name;
}
