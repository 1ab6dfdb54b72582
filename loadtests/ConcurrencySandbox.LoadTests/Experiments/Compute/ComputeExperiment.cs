using ConcurrencySandbox.Contracts.Work;

namespace ConcurrencySandbox.LoadTests.Experiments.Compute;

/// <summary>Seed 004's CPU-bound loop under load: <c>/api/compute/{sync|taskrun}?cycles=</c> (option --cycles).</summary>
internal sealed class ComputeExperiment(long cycles) : TaskRunExperiment(WorkKind.Compute, cycles)
{
    public static readonly ExperimentDefinition Definition = Define(WorkKind.Compute, 10_000_000, "loop cycles per work unit.", cycles => new ComputeExperiment(cycles)) with
    {
        Description = "Seed 004 (Basic .Net Async, 2015): two units of CPU work inline or as two Task.Runs, under a ramp of users.",
    };
}
