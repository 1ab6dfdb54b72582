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

    /// <summary>
    /// An interval as an agent sends it: its row, its CPU use and what its recorder took, histograms encoded (the
    /// interval's own as <paramref name="histogram"/>, <see cref="HistogramWire.Encode"/> of it, which the agent's log takes too).
    /// </summary>
    public static AgentInterval IntervalOf(int index, int sequence, IntervalRow row, double cpuSeconds, TakenInterval taken, string histogram) => new(
        index, sequence, row.ElapsedSeconds, row.Partial, histogram,
        taken.Counts.Ok, taken.Counts.HttpErrors, taken.Counts.TimedOut, taken.Counts.ConnectionErrors, cpuSeconds,
        [.. taken.SentSteps.Select(s => new AgentSentStep(s.Step, HistogramWire.Encode(s.Histogram), s.Counts.Ok, s.Counts.HttpErrors, s.Counts.TimedOut, s.Counts.ConnectionErrors, s.TimedOutAtMs))])
    {
        TimedOutAtMs = taken.TimedOutAtMs,
    };

    /// <summary>Several agents' intervals of one sequence number as one taken interval, decoded and added exactly.</summary>
    public static TakenInterval Merged(IReadOnlyList<AgentInterval> intervals)
    {
        var merged = LatencyRecorder.NewHistogram();
        foreach (var interval in intervals)
        {
            merged.Add(HistogramWire.Decode(interval.Histogram));
        }
        var counts = intervals.Aggregate(default(OutcomeCounts), (sum, i) => sum + new OutcomeCounts(i.Ok, i.HttpErrors, i.TimedOut, i.ConnectionErrors));
        var timedOutAtMs = intervals.Select(i => i.TimedOutAtMs).OfType<double>().DefaultIfEmpty(double.NaN).Min();
        return new TakenInterval(merged, counts, double.IsNaN(timedOutAtMs) ? null : timedOutAtMs,
            [.. intervals.SelectMany(i => i.SentSteps).Select(s => new SentStepDelta(s.Step, HistogramWire.Decode(s.Histogram), new OutcomeCounts(s.Ok, s.HttpErrors, s.TimedOut, s.ConnectionErrors), s.TimedOutAtMs))]);
    }

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
