using System.Globalization;
using ConcurrencySandbox.Contracts.Agents;
using ConcurrencySandbox.LoadTests.Engine;
using HdrHistogram;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// The agents' intervals merged into one variant result, exactly: each full interval's histograms decoded and added
/// (HdrHistogram's merge loses nothing, so the percentiles are those of one histogram of every request), steps and totals
/// through the same <see cref="IntervalSeries"/> and recorder a single runner uses, the partial tails merged into one
/// partial row. An interval that lacks a faulted agent's data names it in <see cref="IntervalRow.MissingAgents"/>.
/// </summary>
public static class AgentMerge
{
    public static VariantResult Merge(VariantKey key, string request, LoadShape shape, IReadOnlyList<AgentOutcome> agents)
    {
        var recorder = new LatencyRecorder();
        IWorkload whole = shape.IsOpen ? new OpenModel(shape, 1) : new ClosedModel(shape);
        var series = new IntervalSeries(key, whole.LoadUnit, recorder);
        var full = agents.SelectMany(a => a.Intervals.Where(i => !i.Partial)).GroupBy(i => i.Sequence).OrderBy(g => g.Key).ToList();
        foreach (var interval in full)
        {
            var missing = agents.Where(a => a.Fault is not null && interval.All(i => i.Index != a.Index)).Select(a => a.Index).ToList();
            Add(interval.ToList(), partial: false, missing);
        }
        series.CloseStep();
        Add([.. agents.SelectMany(a => a.Intervals.Where(i => i.Partial))], partial: true, []);

        var elapsed = agents.Select(a => a.Done?.ElapsedSeconds ?? a.Intervals.LastOrDefault()?.ElapsedSeconds ?? 0).DefaultIfEmpty(0).Max();
        return new VariantResult(key, request, whole.LoadUnit, elapsed, series.Intervals, [], recorder.Total())
        {
            Sent = [.. agents.SelectMany(a => a.Done?.Sent ?? []).GroupBy(s => s.FromSeconds).OrderBy(g => g.Key).Select(g =>
                new SentSlice(g.Key, g.Sum(s => s.Completed), g.Sum(s => s.CompletedSumMs), g.Sum(s => s.TimedOut), g.Sum(s => s.TimedOutSumMs), g.Sum(s => s.ConnectionErrors)))],
            Steps = series.Steps,
            Distribution = recorder.Distribution(),
            Failures = [.. agents.SelectMany(a => a.Done?.Failures ?? []).GroupBy(f => f.What)
                .Select(g => new OutcomeCount(g.Key, g.Sum(f => f.Count))).OrderByDescending(f => f.Count).ThenBy(f => f.What, StringComparer.Ordinal)],
            Agents = [.. agents.Select(RowOf)],
        };

        void Add(IReadOnlyList<AgentInterval> intervals, bool partial, IReadOnlyList<int> missing)
        {
            if (intervals.Count == 0)
            {
                return;
            }
            var merged = LatencyRecorder.NewHistogram();
            foreach (var interval in intervals)
            {
                merged.Add(HistogramWire.Decode(interval.Histogram));
            }
            var counts = intervals.Aggregate(default(OutcomeCounts), (sum, i) => sum + new OutcomeCounts(i.Ok, i.HttpErrors, i.TimedOut, i.ConnectionErrors));
            var now = intervals.Max(i => i.ElapsedSeconds);
            var applied = whole.LoadBetween(TimeSpan.FromSeconds(series.RowStartSeconds), TimeSpan.FromSeconds(now));
            series.Add(now, applied, partial, inStep => recorder.AddInterval(merged, counts, inStep), missing);
        }
    }

    public static AgentRow RowOf(AgentOutcome agent)
    {
        var requests = agent.Intervals.Sum(i => i.Ok + i.HttpErrors + i.TimedOut + i.ConnectionErrors);
        var cpuSeconds = agent.Done?.CpuSeconds ?? agent.Intervals.LastOrDefault()?.CpuSeconds ?? 0;
        var elapsed = agent.Done?.ElapsedSeconds ?? agent.Intervals.LastOrDefault()?.ElapsedSeconds ?? 0;
        return new AgentRow(agent.Index, agent.Host, requests, cpuSeconds, elapsed, agent.Done?.ProcessorCount ?? 1, agent.Fault);
    }

    /// <summary>A failed limit per faulted agent, so a run with a missing, dead or lagging agent fails (never a silent partial figure).</summary>
    public static IEnumerable<ThresholdOutcome> FaultOutcomes(IEnumerable<VariantResult> results) =>
        results.SelectMany(v => v.Agents.Where(a => a.Fault is not null).Select(a =>
            new ThresholdOutcome(string.Create(CultureInfo.InvariantCulture, $"agent {a.Index} ran its share to the end ({a.Fault})"), v.Key.Label, a.Requests, Passed: false)));

    /// <summary>The verdict's note when an agent was at its CPU limit: the figure is a lower bound on the server's capacity.</summary>
    public static string? ClientBoundNote(IEnumerable<VariantResult> results)
    {
        var bound = results.SelectMany(v => v.Agents.Where(a => a.ClientBound).Select(a => string.Create(CultureInfo.InvariantCulture, $"{v.Key.Label} agent {a.Index} ({a.CpuPercent:0} %)"))).ToList();
        return bound.Count == 0 ? null
            : $" Client-bound: {string.Join(", ", bound)} used at least {AgentRow.ClientBoundPercent:0} % of its cpus, so the throughput measured is a lower bound on the server's capacity.";
    }
}
