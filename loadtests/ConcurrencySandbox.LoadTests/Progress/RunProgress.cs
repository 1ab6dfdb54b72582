using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>Something that follows a run's events: the console, the live page's feed.</summary>
internal interface IProgressListener
{
    /// <summary>
    /// Called in event order, one at a time, with no lock of the progress held; must not block (the runner's interval
    /// loop may be the caller).
    /// </summary>
    void On(ProgressEvent e);
}

/// <summary>
/// The run's progress: folds each event into the <see cref="State"/> and hands it to the listeners in order. Fed once
/// per interval, step and variant by the runner's own loop, never per request.
/// <para>
/// No lock is held while a listener runs, and <see cref="State"/> is an immutable snapshot read without one: the
/// status line's redraw reads it while a listener writes a line, and neither can wait for the other (a lock order
/// between the two once deadlocked the runner in a terminal). The fold and the queueing of the listeners' calls are
/// done under one short lock, so the listeners see the events in the order of the state.
/// </para>
/// </summary>
internal sealed class RunProgress
{
    private static readonly TimeSpan FlushWait = TimeSpan.FromSeconds(5);

    private readonly Lock _gate = new();
    private readonly TimeProvider _clock;
    private readonly IReadOnlyList<IProgressListener> _listeners;
    private readonly SerialDelivery _delivery = new();
    // Each experiment's variant names in the order they started (under _gate): the run the report colours its variants by.
    private readonly Dictionary<string, List<string>> _started = [];
    private volatile RunState _state;

    public RunProgress(RunPlanned plan, TimeProvider clock, IReadOnlyList<IProgressListener> listeners)
    {
        _clock = clock;
        _listeners = listeners;
        _state = new RunState(plan, clock.GetUtcNow());
        Publish(plan);
    }

    /// <summary>Plain lines on <paramref name="console"/> with no plan: what a run that is not the main command prints (matrix, run --url).</summary>
    public static RunProgress Lines(TextWriter console) => new(new RunPlanned("", []), TimeProvider.System, [new ConsoleLines(console, intervals: true)]);

    /// <summary>Where the run stands now: a snapshot, read without a lock.</summary>
    public RunState State => _state;

    public DateTimeOffset Now => _clock.GetUtcNow();

    /// <summary>The next variant begins: its place and the run's count follow from the variants before it.</summary>
    public void VariantStarting(string experiment, VariantKey variant, string request) =>
        Publish(state => new VariantStarted(state.Index + 1, Math.Max(state.Count, state.Index + 2), ProgressEvent.SeriesOf(experiment, variant), request, ColorOf(experiment, variant)));

    /// <summary>
    /// The colour the report gives the variant: <see cref="VariantPalette.OfRun"/> over its experiment's variants as they
    /// started, so two variants whose own colours clash get the same spare colour on the live page and in report.html.
    /// </summary>
    private string ColorOf(string experiment, VariantKey variant)
    {
        if (!_started.TryGetValue(experiment, out var names))
        {
            _started[experiment] = names = [];
        }
        if (!names.Contains(variant.Name))
        {
            names.Add(variant.Name);
        }
        return VariantPalette.OfRun([.. names.Select(name => (name, (double?)null))])[names.IndexOf(variant.Name)];
    }

    /// <summary>The one variant's progress, as the load engine reports it, turned into this run's events.</summary>
    /// <param name="requestTimeout">The client's timeout: a timed-out request's lower bound on the live response curve.</param>
    public IVariantProgress For(string experiment, TimeSpan requestTimeout, Action<IntervalRow>? eachInterval = null) => new VariantFeed(this, experiment, requestTimeout, eachInterval);

    public void Publish(ProgressEvent e) => Publish(_ => e);

    /// <summary>
    /// Waits until every event published so far has reached every listener (another thread may be delivering them), up
    /// to a few seconds: what the run's end does before it tells the live page and the console that it is over.
    /// </summary>
    public bool Flush()
    {
        _delivery.Run();
        var deadline = Environment.TickCount64 + (long)FlushWait.TotalMilliseconds;
        var spin = new SpinWait();
        while (!_delivery.Idle)
        {
            if (Environment.TickCount64 > deadline)
            {
                return false;
            }
            spin.SpinOnce();
        }
        return true;
    }

    /// <summary>Folds the event <paramref name="of"/> makes of the state into the state, then hands it to the listeners outside the lock.</summary>
    private void Publish(Func<RunState, ProgressEvent> of)
    {
        lock (_gate)
        {
            var e = of(_state);
            _state = _state.Apply(e, _clock.GetUtcNow());
            _delivery.Post(() =>
            {
                foreach (var listener in _listeners)
                {
                    listener.On(e);
                }
            });
        }
        _delivery.Run();
    }

    private sealed class VariantFeed(RunProgress run, string experiment, TimeSpan requestTimeout, Action<IntervalRow>? eachInterval) : IVariantProgress
    {
        private readonly List<SummaryCurvePoint> _points = [];
        private string _loadUnit = "";

        public void OnInterval(IntervalRow row, RuntimeSnapshot? latest)
        {
            _loadUnit = row.LoadUnit;
            eachInterval?.Invoke(row);
            run.Publish(IntervalEnded.Of(ProgressEvent.SeriesOf(experiment, row.Variant), row, latest));
        }

        public void OnStep(VariantKey variant, StepRow step)
        {
            var point = StepEnded.PointOf(step, requestTimeout);
            // As in the report, a step with no load (a drain) is no point of the curve.
            if (step.Load > 0)
            {
                _points.Add(point);
            }
            var s = step.Stats;
            run.Publish(new StepEnded(ProgressEvent.SeriesOf(experiment, variant), _loadUnit, step.FromSeconds, step.ToSeconds,
                s.Requests, s.Failed, s.TimedOut, step.RequestsPerSecond, point, ResponseCurve.FindKnee(_points, ResponseCurve.UnitOf(_loadUnit)).Knee));
        }
    }
}

/// <summary>The console's lines: every interval (when asked: not a terminal, or --verbose) and every step.</summary>
internal sealed class ConsoleLines(TextWriter console, bool intervals) : IProgressListener
{
    public void On(ProgressEvent e)
    {
        switch (e)
        {
            case IntervalEnded i when intervals:
                console.WriteLine(StatusLine.Interval(i));
                break;
            case StepEnded s:
                console.WriteLine(StatusLine.Step(s));
                break;
        }
    }
}
