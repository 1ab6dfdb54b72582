namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>
/// Where a run stands, folded from its events: which variant of how many, since when, its steps so far and its latest
/// interval. The status line reads it on its own timer; nothing here is touched by a request.
/// </summary>
internal sealed record RunState(RunPlanned Plan, DateTimeOffset StartedAt)
{
    /// <summary>The running variant's place in the run (0-based); -1 before the first.</summary>
    public int Index { get; init; } = -1;

    public int Count { get; init; } = Plan.Variants.Count;

    public string? Series { get; init; }

    public DateTimeOffset VariantStartedAt { get; init; } = StartedAt;

    public int StepsClosed { get; init; }

    /// <summary>Requests of the running variant that failed so far (HTTP errors, timeouts, connection errors).</summary>
    public long Failed { get; init; }

    public IntervalEnded? Last { get; init; }

    public RunEnded? Ended { get; init; }

    /// <summary>
    /// A variant's load runs: from its first interval to its last (partial) one. While it does, an interval is due every
    /// <see cref="IntervalSeconds"/>; the stall watch counts from <see cref="LastProgressAt"/>. Not before the first: a
    /// variant's start (a fresh API, its warm-up request) takes as long as it takes.
    /// </summary>
    public bool Loading { get; init; }

    /// <summary>When the running variant last recorded an interval.</summary>
    public DateTimeOffset LastProgressAt { get; init; } = StartedAt;

    /// <summary>
    /// The reporting interval as the running variant's intervals show it: their mean length (the latest one's elapsed time
    /// over their count). Not the gap between the last two: after the runner was stopped (SIGSTOP, a VM's pause) its timer
    /// fires at once and again on its schedule, so two intervals can end 0.3 s apart, and a stall limit of 5 such gaps
    /// named a stall where there was none. Its timer fires at most once a period, so the mean is never below the period.
    /// </summary>
    public double IntervalSeconds { get; init; } = 1;

    // The running variant's intervals so far.
    private int Intervals { get; init; }

    /// <summary>
    /// What the variants done so far took beyond their planned load, on average (starting the API, the warm-up request,
    /// the drain, reading the telemetry): added to each later variant's estimate. 0 before one has finished.
    /// </summary>
    public double MeanOverheadSeconds { get; init; }

    private int Timed { get; init; }

    public RunState Apply(ProgressEvent e, DateTimeOffset now) => e switch
    {
        VariantStarted v => Finished(now) with
        {
            Index = v.Index, Count = v.Count, Series = v.Series, VariantStartedAt = now, StepsClosed = 0, Failed = 0, Last = null,
            Loading = false, LastProgressAt = now, IntervalSeconds = 1, Intervals = 0,
        },
        IntervalEnded i when i.Series == Series => this with
        {
            Last = i, Failed = Failed + i.Failed, Loading = !i.Partial, LastProgressAt = now, Intervals = Intervals + 1,
            IntervalSeconds = i.ElapsedSeconds > 0 ? i.ElapsedSeconds / (Intervals + 1) : IntervalSeconds,
        },
        StepEnded s when s.Series == Series => this with { StepsClosed = StepsClosed + 1 },
        RunEnded end => this with { Ended = end, Loading = false },
        _ => this,
    };

    /// <summary>The running variant ends (the next one starts): how long it took beyond its plan joins the mean overhead.</summary>
    private RunState Finished(DateTimeOffset now)
    {
        if (Planned(Index) is not { PlannedSeconds: > 0 } planned)
        {
            return this;
        }
        var overhead = (now - VariantStartedAt).TotalSeconds - planned.PlannedSeconds;
        return this with { MeanOverheadSeconds = (MeanOverheadSeconds * Timed + overhead) / (Timed + 1), Timed = Timed + 1 };
    }

    /// <summary>The running variant's planned steps, when the plan has it; else 0.</summary>
    public int PlannedSteps => Planned(Index)?.Steps ?? 0;

    /// <summary>
    /// The run's time left by its plan at <paramref name="now"/>: the running variant's planned length not yet spent plus
    /// every later variant's, each with the <see cref="MeanOverheadSeconds"/> seen so far.
    /// <see cref="RemainingIsLowerBound"/> when a variant's length is not known in advance.
    /// </summary>
    public TimeSpan Remaining(DateTimeOffset now)
    {
        var current = Index < 0 ? 0 : Math.Max(0, (Planned(Index)?.PlannedSeconds ?? 0) - (now - VariantStartedAt).TotalSeconds);
        var later = Plan.Variants.Skip(Index + 1).Sum(v => v.PlannedSeconds + Math.Max(0, MeanOverheadSeconds));
        return TimeSpan.FromSeconds(current + later);
    }

    public bool RemainingIsLowerBound => Plan.Variants.Skip(Math.Max(0, Index)).Any(v => v.PlannedSeconds <= 0) || Count > Plan.Variants.Count;

    private PlannedVariant? Planned(int index) => index >= 0 && index < Plan.Variants.Count ? Plan.Variants[index] : null;
}
