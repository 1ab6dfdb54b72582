using HdrHistogram;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// Requests of step <paramref name="Step"/> (by the step they were sent in) recorded since the previous take: what a
/// load agent sends its coordinator each interval, and what the coordinator adds up exactly.
/// </summary>
public sealed record SentStepDelta(int Step, HistogramBase Histogram, OutcomeCounts Counts, double? TimedOutAtMs);

/// <summary>
/// Every request booked by the step it was SENT in, wherever it ended: an exact histogram and outcome counts per step, so
/// a step's latency and timeouts are those of its own requests even when a starving server answers them steps later.
/// </summary>
/// <remarks>
/// Which step an interval belongs to is known only when the interval closes (its load decides), so a request sent in
/// the open interval goes into one of three rotating tallies, taken into the interval's step when it closes; a request
/// sent in a closed interval goes straight into its step's tally. The layout the writers read is an immutable array
/// swapped by the one reporter: the per-request path takes no lock and allocates nothing. A writer that read the layout
/// just before the reporter swapped it records into the tally of the interval just closed; that tally is taken again at
/// the next close (the third one is by then untouched), so nothing is lost or booked to the wrong step.
/// </remarks>
internal sealed class SentSteps
{
    private const int OpenTallies = 3;

    private readonly OutcomeTally[] _open = [new(), new(), new()];
    private readonly List<OutcomeTally> _tallies = [];
    private readonly List<int?> _stepOfInterval = [];
    private readonly List<OutcomeTotal> _totals = [];
    private Layout _layout = new([], []);

    /// <summary>Books a request sent <paramref name="sentSeconds"/> after the run began. Allocation-free and lock-free.</summary>
    public void Record(double sentSeconds, long micros, RequestEnd end)
    {
        var layout = Volatile.Read(ref _layout);
        var ends = layout.Ends;
        if (ends.Length == 0 || sentSeconds >= ends[^1])
        {
            _open[ends.Length % OpenTallies].Record(micros, end);
            return;
        }
        var found = Array.BinarySearch(ends, sentSeconds);
        layout.StepOf[found < 0 ? ~found : found + 1]?.Record(micros, end);
    }

    /// <summary>
    /// Closes the open interval at <paramref name="endSeconds"/>, its requests booked to step <paramref name="step"/>
    /// (null: none, and they count only in the totals), and takes every request booked since the previous close. Called
    /// by one reporter at a time. At most one delta per step.
    /// </summary>
    public IReadOnlyList<SentStepDelta> CloseInterval(double endSeconds, int? step)
    {
        var layout = _layout;
        var closing = layout.Ends.Length;
        while (step is { } s && _tallies.Count <= s)
        {
            _tallies.Add(new OutcomeTally());
        }
        _stepOfInterval.Add(step);
        Volatile.Write(ref _layout, new Layout([.. layout.Ends, endSeconds], [.. layout.StepOf, step is { } index ? _tallies[index] : null]));

        var deltas = new List<SentStepDelta>();
        void Take(OutcomeTally tally, int? into)
        {
            var taken = tally.Take();
            if (into is not { } target || (taken.Counts.Requests == 0 && taken.Histogram.TotalCount == 0))
            {
                return;
            }
            // One delta per step: a step's requests taken from several tallies (the open interval's, the one before, the
            // step's own) are added into the first one's histogram, so a load agent encodes and sends it once, not once per tally.
            var index = deltas.FindIndex(d => d.Step == target);
            if (index < 0)
            {
                deltas.Add(new SentStepDelta(target, taken.Histogram, taken.Counts, taken.TimedOutAtMs));
                return;
            }
            var first = deltas[index];
            first.Histogram.Add(taken.Histogram);
            deltas[index] = first with { Counts = first.Counts + taken.Counts, TimedOutAtMs = LowerOf(first.TimedOutAtMs, taken.TimedOutAtMs) };
        }
        Take(_open[closing % OpenTallies], step);
        if (closing > 0)
        {
            Take(_open[(closing - 1) % OpenTallies], _stepOfInterval[closing - 1]);
        }
        for (var booked = 0; booked < _tallies.Count; booked++)
        {
            Take(_tallies[booked], booked);
        }
        foreach (var delta in deltas)
        {
            Add(delta);
        }
        return deltas;
    }

    private static double? LowerOf(double? a, double? b) => a is { } x && b is { } y ? Math.Min(x, y) : a ?? b;

    /// <summary>Adds requests booked to a step (this recorder's own, or a load agent's): merged exactly.</summary>
    public void Add(SentStepDelta delta)
    {
        while (_totals.Count <= delta.Step)
        {
            _totals.Add(new OutcomeTotal());
        }
        _totals[delta.Step].Add(delta.Histogram, delta.Counts, delta.TimedOutAtMs);
    }

    /// <summary>The statistics of the requests sent in step <paramref name="step"/> that were taken so far; empty when none was.</summary>
    public LatencyStats Of(int step) => step < _totals.Count ? _totals[step].Stats() : LatencyStats.Empty;

    /// <param name="Ends">The end of each closed interval, in seconds since the run began, ascending.</param>
    /// <param name="StepOf">The tally of each closed interval's step; null when it belongs to none.</param>
    private sealed record Layout(double[] Ends, OutcomeTally?[] StepOf);
}
