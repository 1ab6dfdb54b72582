using ConcurrencySandbox.Contracts.Work;

namespace ConcurrencySandbox.LoadTests.Experiments.SpinWait;

/// <summary>Seed 004's SpinWait under load: <c>/api/spinwait/{sync|taskrun}?iterations=</c> (option --iterations; the seed tabulated no SpinWait figures).</summary>
internal sealed class SpinWaitExperiment(long iterations) : TaskRunExperiment(WorkKind.SpinWait, iterations)
{
    public static readonly ExperimentDefinition Definition = Define(WorkKind.SpinWait, 100_000, "SpinWait iterations per work unit.", iterations => new SpinWaitExperiment(iterations)) with
    {
        Description = "Seed 004's question for a spinning wait: SpinWait work inline or as Task.Runs, under a ramp of users.",
    };
}
