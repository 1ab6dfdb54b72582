using System.Globalization;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// The agents' intervals of one variant merged into one result, exactly and as they arrive: interval N is merged (its
/// histograms decoded and added: HdrHistogram's merge loses nothing, so the percentiles are those of one histogram of
/// every request) the moment every agent still running has sent its N, and handed to the live progress (status line,
/// --live page) with the steps it closes. Steps and totals go through the same <see cref="IntervalSeries"/> and recorder
/// a single runner uses, each interval's requests booked to the step they were sent in as the agents booked them (they
/// cut steps by the whole load, as here); the partial tails are merged into one partial row at <see cref="Finish"/>. An interval that
/// lacks a faulted agent's data names it in <see cref="IntervalRow.MissingAgents"/>.
/// </summary>
/// <remarks>
/// Called from every agent's reading task at once: one lock keeps the merge in interval order, and the progress calls
/// it makes are queued under that lock and made after it is released (<see cref="SerialDelivery"/>), in the same order,
/// so the progress never runs under the merge's lock.
/// </remarks>
public sealed class AgentMerge
{
    private readonly Lock _gate = new();
    private readonly VariantKey _key;
    private readonly LatencyRecorder _recorder = new();
    private readonly IWorkload _whole;
    private readonly IntervalSeries _series;
    private readonly IVariantProgress _progress;
    private readonly SerialDelivery _delivery = new();
    private readonly SortedDictionary<int, List<AgentInterval>> _waiting = [];
    private readonly List<AgentInterval> _tails = [];
    private readonly HashSet<int> _running;
    private readonly HashSet<int> _faulted = [];
    private int _next;

    /// <param name="count">The agents the variant was handed to; each is running until <see cref="Ended"/> says otherwise.</param>
    public AgentMerge(VariantKey key, LoadShape shape, int count, IVariantProgress progress)
    {
        _key = key;
        _progress = progress;
        _whole = IWorkload.Of(shape, 1);
        _series = new IntervalSeries(key, _whole.LoadUnit, _recorder) { StepClosed = step => _delivery.Post(() => progress.OnStep(key, step)) };
        _running = [.. Enumerable.Range(0, count)];
    }

    /// <summary>Takes one agent's interval; merges every interval that each running agent has now sent.</summary>
    public void Received(AgentInterval interval)
    {
        lock (_gate)
        {
            if (interval.Partial)
            {
                _tails.Add(interval);
                return;
            }
            if (!_waiting.TryGetValue(interval.Sequence, out var sent))
            {
                _waiting[interval.Sequence] = sent = [];
            }
            sent.Add(interval);
            MergeReady();
        }
        _delivery.Run();
    }

    /// <summary>Agent <paramref name="index"/> sends no more (done, or <paramref name="fault"/>): the intervals that waited for it are merged without it.</summary>
    public void Ended(int index, string? fault)
    {
        lock (_gate)
        {
            EndedUnderLock(index, fault);
        }
        _delivery.Run();
    }

    /// <summary>The variant's result once every agent has ended: the rest of the full intervals, the last step, the partial tail, and one row per agent.</summary>
    public VariantResult Finish(string request, IReadOnlyList<AgentOutcome> agents)
    {
        lock (_gate)
        {
            foreach (var agent in agents)
            {
                EndedUnderLock(agent.Index, agent.Fault);
            }
            _series.CloseStep();
            if (Add(_tails, partial: true, []) is { } tail)
            {
                _delivery.Post(() => _progress.OnInterval(tail, null));
            }
            _tails.Clear();
        }
        _delivery.Run();
        lock (_gate)
        {
            var elapsed = agents.Select(a => a.Done?.ElapsedSeconds ?? a.Intervals.LastOrDefault()?.ElapsedSeconds ?? 0).DefaultIfEmpty(0).Max();
            return new VariantResult(_key, request, _whole.LoadUnit, elapsed, [.. _series.Intervals], [], _recorder.Total())
            {
                Sent = [.. agents.SelectMany(a => a.Done?.Sent ?? []).GroupBy(s => s.FromSeconds).OrderBy(g => g.Key).Select(g =>
                    new SentSlice(g.Key, g.Sum(s => s.Completed), g.Sum(s => s.CompletedSumMs), g.Sum(s => s.TimedOut), g.Sum(s => s.TimedOutSumMs), g.Sum(s => s.ConnectionErrors)))],
                Steps = [.. _series.Steps],
                Distribution = _recorder.Distribution(),
                Failures = [.. agents.SelectMany(a => a.Done?.Failures ?? []).GroupBy(f => f.What)
                    .Select(g => new OutcomeCount(g.Key, g.Sum(f => f.Count))).OrderByDescending(f => f.Count).ThenBy(f => f.What, StringComparer.Ordinal)],
                Agents = [.. agents.Select(RowOf)],
            };
        }
    }

    private void EndedUnderLock(int index, string? fault)
    {
        _running.Remove(index);
        if (fault is not null)
        {
            _faulted.Add(index);
        }
        MergeReady();
    }

    /// <summary>Merges, in order, each next interval that every running agent has sent; their progress calls are queued.</summary>
    private void MergeReady()
    {
        while (_waiting.TryGetValue(_next, out var sent) && _running.All(index => sent.Any(i => i.Index == index)))
        {
            _waiting.Remove(_next++);
            var row = Add(sent, partial: false, [.. _faulted.Where(index => sent.All(i => i.Index != index)).Order()]);
            if (row is not null)
            {
                _delivery.Post(() => _progress.OnInterval(row, null));
            }
        }
    }

    private IntervalRow? Add(IReadOnlyList<AgentInterval> intervals, bool partial, IReadOnlyList<int> missing)
    {
        if (intervals.Count == 0)
        {
            return null;
        }
        var now = intervals.Max(i => i.ElapsedSeconds);
        var (from, to) = (TimeSpan.FromSeconds(_series.RowStartSeconds), TimeSpan.FromSeconds(now));
        var merged = AgentWire.Merged(intervals);
        // The agents booked their requests to the steps they were sent in, cut by the whole load and its simulations as here: their step numbers are these.
        return _series.Add(now, _whole.LoadBetween(from, to), _whole.StepBetween(from, to), partial, _ => _recorder.AddInterval(merged), missing);
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
