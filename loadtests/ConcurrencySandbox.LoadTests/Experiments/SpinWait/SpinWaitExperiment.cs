using ConcurrencySandbox.Experiments.Work;

namespace ConcurrencySandbox.LoadTests.Experiments.SpinWait;

/// <summary>Seed 004's SpinWait under load: <c>/api/spinwait/{sync|taskrun}?iterations=</c> (option --iterations; the seed tabulated no SpinWait figures).</summary>
public sealed class SpinWaitExperiment(long iterations) : TaskRunExperiment(WorkUnit.SpinWait, iterations)
{
    public static readonly ExperimentDefinition Definition = Define(WorkUnit.SpinWait, 100_000, "SpinWait iterations per work unit.", iterations => new SpinWaitExperiment(iterations));
}
