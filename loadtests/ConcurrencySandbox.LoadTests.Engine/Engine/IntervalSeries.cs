namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// A variant's interval rows and the steps they make, cut from a recorder: each full interval's load and simulation (the
/// shape's step it ran, <see cref="IWorkload.StepBetween"/>) decide whether a new step begins. A step's figures are those of the requests SENT in its intervals, wherever they ended
/// (<see cref="LatencyRecorder.SentInStep"/>); the drain after the load ended (intervals with no load) and the tail after
/// the last full interval are in no step of their own, and the requests sent in them (the last moments of the load)
/// belong to the last step. A single runner takes its
/// intervals from its own recorder; a coordinator adds its agents'.
/// </summary>
internal sealed class IntervalSeries(VariantKey variant, string loadUnit, LatencyRecorder recorder)
{
    private readonly List<IntervalRow> _intervals = [];
    private readonly List<StepRow> _steps = [];
    private (double Load, int Simulation, double FromSeconds)? _step;

    public IReadOnlyList<IntervalRow> Intervals => _intervals;

    /// <summary>The closed steps, each with every request sent in it taken so far: all of them once the load has drained.</summary>
    public IReadOnlyList<StepRow> Steps => [.. _steps.Select((step, index) => step with { Stats = recorder.SentInStep(index) })];

    /// <summary>
    /// Told of each step as it closes (the console's step line, the live page's response curve), with the requests sent
    /// in it that had ended by then; its requests still in flight count in <see cref="Steps"/> once they end.
    /// </summary>
    public Action<StepRow>? StepClosed { get; init; }

    /// <summary>When the next interval begins, in seconds since the variant began.</summary>
    public double RowStartSeconds { get; private set; }

    /// <summary>
    /// Adds the interval ending at <paramref name="nowSeconds"/> at load <paramref name="applied"/>, of the shape's
    /// <paramref name="simulation"/>; <paramref name="take"/>
    /// takes its statistics from the recorder (its argument is the step the requests sent in the interval belong to:
    /// the open one, or for the partial tail the last; null when there is none).
    /// </summary>
    /// <param name="missingAgents">Agents (by index) whose data the interval lacks because they failed.</param>
    public IntervalRow Add(double nowSeconds, double applied, int simulation, bool partial, Func<int?, LatencyStats> take, IReadOnlyList<int>? missingAgents = null)
    {
        if (!partial && _step is { } current && (Math.Abs(current.Load - applied) > 1e-9 || current.Simulation != simulation))
        {
            CloseStep();
        }
        // The partial tail and the drain after the load (no load applied) open no step: what is sent in them is the last step's.
        _step ??= partial || applied <= 0 ? null : (applied, simulation, RowStartSeconds);
        var stats = take(_step is not null ? _steps.Count : _steps.Count > 0 ? _steps.Count - 1 : null);
        var width = Math.Max(nowSeconds - RowStartSeconds, 1e-3);
        RowStartSeconds = nowSeconds;
        var row = new IntervalRow(variant, nowSeconds, loadUnit, applied, stats.Requests / width, stats) { Partial = partial, MissingAgents = missingAgents ?? [] };
        _intervals.Add(row);
        return row;
    }

    /// <summary>Ends the current step (before the partial tail), merging its intervals into one row.</summary>
    public void CloseStep()
    {
        if (_step is { } finished)
        {
            var closed = new StepRow(finished.Load, finished.FromSeconds, RowStartSeconds, recorder.SentInStep(_steps.Count)) { Simulation = finished.Simulation };
            _steps.Add(closed);
            _step = null;
            StepClosed?.Invoke(closed);
        }
    }
}
