using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>Something that follows a run's events: the console, the live page's feed.</summary>
internal interface IProgressListener
{
    /// <summary>Called in event order, one at a time; must not block (the runner's interval loop calls it).</summary>
    void On(ProgressEvent e);
}

/// <summary>
/// The run's progress: folds each event into the <see cref="State"/> and hands it to the listeners in order. Fed once
/// per interval, step and variant by the runner's own loop, never per request.
/// </summary>
internal sealed class RunProgress
{
    private readonly object _gate = new();
    private readonly TimeProvider _clock;
    private readonly IReadOnlyList<IProgressListener> _listeners;
    private RunState _state;

    public RunProgress(RunPlanned plan, TimeProvider clock, IReadOnlyList<IProgressListener> listeners)
    {
        _clock = clock;
        _listeners = listeners;
        _state = new RunState(plan, clock.GetUtcNow());
        Publish(plan);
    }

    /// <summary>Plain lines on <paramref name="console"/> with no plan: what a run that is not the main command prints (matrix, run --url).</summary>
    public static RunProgress Lines(TextWriter console) => new(new RunPlanned("", []), TimeProvider.System, [new ConsoleLines(console, intervals: true)]);

    public RunState State
    {
        get
        {
            lock (_gate)
            {
                return _state;
            }
        }
    }

    public DateTimeOffset Now => _clock.GetUtcNow();

    /// <summary>The next variant begins: its place and the run's count follow from the variants before it.</summary>
    public void VariantStarting(string experiment, VariantKey variant, string request)
    {
        lock (_gate)
        {
            var index = _state.Index + 1;
            Publish(new VariantStarted(index, Math.Max(_state.Count, index + 1), ProgressEvent.SeriesOf(experiment, variant), request, VariantPalette.ColorOf(variant)));
        }
    }

    /// <summary>The one variant's progress, as the load engine reports it, turned into this run's events.</summary>
    /// <param name="requestTimeout">The client's timeout: a timed-out request's lower bound on the live response curve.</param>
    public IVariantProgress For(string experiment, TimeSpan requestTimeout, Action<IntervalRow>? eachInterval = null) => new VariantFeed(this, experiment, requestTimeout, eachInterval);

    public void Publish(ProgressEvent e)
    {
        lock (_gate)
        {
            _state = _state.Apply(e, _clock.GetUtcNow());
            foreach (var listener in _listeners)
            {
                listener.On(e);
            }
        }
    }

    private sealed class VariantFeed(RunProgress run, string experiment, TimeSpan requestTimeout, Action<IntervalRow>? eachInterval) : IVariantProgress
    {
        private readonly List<CurvePoint> _points = [];
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
            run.Publish(new StepEnded(ProgressEvent.SeriesOf(experiment, variant), _loadUnit, ReportChart.LoadLabel(_loadUnit), step.FromSeconds, step.ToSeconds,
                s.Requests, s.Failed, s.TimedOut, step.RequestsPerSecond, point, ResponseCurve.FindKnee(_points)));
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
