using System.Reflection;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>The runner's load types to and from the agent messages, and the version an agent and its coordinator must share.</summary>
internal static class AgentWire
{
    /// <summary>This runner's build (version and commit): an agent of another build could split or measure the load differently.</summary>
    public static string Version { get; } =
        typeof(AgentWire).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "unknown";

    public static IReadOnlyList<AgentLoadStep> StepsOf(LoadShape shape) =>
        [.. shape.Steps.Select(s => new AgentLoadStep(s.GetType().Name, s.Target, s.During.TotalSeconds))];

    public static LoadShape ShapeOf(AgentAssignment assignment) => new(
        [.. assignment.Steps.Select(StepOf)], TimeSpan.FromSeconds(assignment.ReportingIntervalSeconds));

    public static AgentAssignment AssignmentFor(VariantKey variant, Uri baseAddress, string request, LoadOptions load, LoadSegment segment) => new(
        variant.Label, baseAddress.ToString(), request, segment.Index, segment.Count, StepsOf(load.Shape),
        load.Shape.ReportingInterval.TotalSeconds, load.RequestTimeout.TotalSeconds, load.MaxInFlight);

    private static LoadSimulation StepOf(AgentLoadStep step)
    {
        var during = TimeSpan.FromSeconds(step.DuringSeconds);
        return step.Kind switch
        {
            nameof(KeepConstant) => new KeepConstant((int)step.Target, during),
            nameof(RampingConstant) => new RampingConstant((int)step.Target, during),
            nameof(Inject) => new Inject(step.Target, during),
            nameof(RampingInject) => new RampingInject(step.Target, during),
            _ => throw new FormatException($"unknown load step '{step.Kind}' in an assignment"),
        };
    }
}
