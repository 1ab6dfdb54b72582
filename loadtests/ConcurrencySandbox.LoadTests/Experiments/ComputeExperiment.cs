using System.CommandLine;
using ConcurrencySandbox.Experiments.Work;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>Seed 004's CPU-bound loop under load: <c>/api/compute/{sync|taskrun}?cycles=</c>.</summary>
public sealed class ComputeExperiment(long cycles) : TaskRunExperiment(WorkUnit.Compute, cycles)
{
    public const long DefaultCycles = 10_000_000;

    private static readonly Option<long> CyclesOption = new("--cycles") { Description = "compute: loop cycles per work unit.", DefaultValueFactory = _ => DefaultCycles };

    public static readonly ExperimentDefinition Definition = new("compute", [CyclesOption], values => new ComputeExperiment(values.Positive(CyclesOption)));

    public override string Name => Definition.Name;
}
