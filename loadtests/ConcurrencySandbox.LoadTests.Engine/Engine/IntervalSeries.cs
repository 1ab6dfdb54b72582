namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// A variant's interval rows and the steps they make, cut from a recorder: each full interval's load decides whether a
/// new step begins (the step is then merged exactly from its intervals); the tail after the last full interval is
/// partial and in no step. A single runner takes its intervals from its own recorder; a coordinator adds its agents'.
/// </summary>
internal sealed class IntervalSeries(VariantKey variant, string loadUnit, LatencyRecorder recorder)
{
    private readonly List<IntervalRow> _intervals = [];
    private readonly List<StepRow> _steps = [];
    private (double Load, double FromSeconds)? _step;

    public IReadOnlyList<IntervalRow> Intervals => _intervals;

    public IReadOnlyList<StepRow> Steps => _steps;

    /// <summary>Told of each step as it closes (the console's step line, the live page's response curve).</summary>
    public Action<StepRow>? StepClosed { get; init; }

    /// <summary>When the next interval begins, in seconds since the variant began.</summary>
    public double RowStartSeconds { get; private set; }

    /// <summary>
    /// Adds the interval ending at <paramref name="nowSeconds"/> at load <paramref name="applied"/>; <paramref name="take"/>
    /// takes its statistics from the recorder (its argument says whether the interval belongs to the current step).
    /// </summary>
    /// <param name="missingAgents">Agents (by index) whose data the interval lacks because they failed.</param>
    public IntervalRow Add(double nowSeconds, double applied, bool partial, Func<bool, LatencyStats> take, IReadOnlyList<int>? missingAgents = null)
    {
        if (!partial && _step is { } current && Math.Abs(current.Load - applied) > 1e-9)
        {
            CloseStep();
        }
        _step ??= partial ? null : (applied, RowStartSeconds);
        var stats = take(!partial);
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
            var closed = new StepRow(finished.Load, finished.FromSeconds, RowStartSeconds, recorder.TakeStep());
            _steps.Add(closed);
            _step = null;
            StepClosed?.Invoke(closed);
        }
    }
}
