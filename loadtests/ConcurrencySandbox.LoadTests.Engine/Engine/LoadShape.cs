namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// A sequence of load simulations of one model (closed or open) and the reporting interval.
/// Answers "how many users / what arrival rate at time t" and, for the open model, "when should request k start".
/// </summary>
public sealed class LoadShape
{
    private readonly Segment[] _segments;

    public LoadShape(IReadOnlyList<LoadSimulation> steps, TimeSpan reportingInterval)
    {
        if (steps.Count == 0)
        {
            throw new ArgumentException("a load shape needs at least one load simulation", nameof(steps));
        }
        if (steps.Any(s => s.IsOpen) && steps.Any(s => !s.IsOpen))
        {
            throw new ArgumentException("a load shape cannot mix closed (users) and open (arrival rate) simulations", nameof(steps));
        }
        if (reportingInterval <= TimeSpan.Zero)
        {
            throw new ArgumentException("the reporting interval must be positive", nameof(reportingInterval));
        }

        Steps = steps;
        IsOpen = steps[0].IsOpen;
        ReportingInterval = reportingInterval;
        _segments = new Segment[steps.Count];
        double start = 0, previous = 0, arrivals = 0;
        for (var i = 0; i < steps.Count; i++)
        {
            var step = steps[i];
            var seconds = step.During.TotalSeconds;
            var from = step.IsRamping ? previous : step.Target;
            _segments[i] = new Segment(start, seconds, from, step.Target, arrivals);
            arrivals += (from + step.Target) / 2 * seconds;
            start += seconds;
            previous = step.Target;
        }
        Duration = TimeSpan.FromSeconds(start);
    }

    public IReadOnlyList<LoadSimulation> Steps { get; }
    public bool IsOpen { get; }
    public TimeSpan ReportingInterval { get; }
    public TimeSpan Duration { get; }

    /// <summary>Closed model: the number of users at <paramref name="elapsed"/> (0 after the end).</summary>
    public int UsersAt(TimeSpan elapsed) => (int)Math.Floor(ValueAt(elapsed.TotalSeconds) + 1e-9);

    /// <summary>Open model: the arrival rate per second at <paramref name="elapsed"/> (0 after the end).</summary>
    public double RateAt(TimeSpan elapsed) => ValueAt(elapsed.TotalSeconds);

    /// <summary>
    /// The index in <see cref="Steps"/> of the simulation running at <paramref name="elapsed"/> (<see cref="Steps"/>' count
    /// after the end): a run's steps are cut where it changes as well as where the load does, so two simulations of one
    /// load (a climb's settling interval and the hold judged after it) are two steps.
    /// </summary>
    public int StepAt(TimeSpan elapsed)
    {
        var seconds = elapsed.TotalSeconds;
        var index = Array.FindIndex(_segments, s => seconds < s.Start + s.Seconds);
        return index < 0 ? _segments.Length : index;
    }

    /// <summary>
    /// Open model: the intended start of request number <paramref name="index"/> (0-based), i.e. the time at which
    /// the integral of the rate reaches index + 1; null when the shape ends first.
    /// </summary>
    public TimeSpan? IntendedStart(long index)
    {
        var target = index + 1.0;
        foreach (var s in _segments)
        {
            var inSegment = (s.From + s.To) / 2 * s.Seconds;
            if (target > s.ArrivalsBefore + inSegment + 1e-9)
            {
                continue;
            }
            var need = target - s.ArrivalsBefore;
            var slope = s.Seconds > 0 ? (s.To - s.From) / s.Seconds : 0;
            double offset;
            if (Math.Abs(slope) < 1e-12)
            {
                offset = s.From > 0 ? need / s.From : 0;
            }
            else
            {
                // need = From * t + slope / 2 * t^2, solved for the root inside the segment.
                var discriminant = Math.Max(0, s.From * s.From + 2 * slope * need);
                offset = (-s.From + Math.Sqrt(discriminant)) / slope;
            }
            return TimeSpan.FromSeconds(s.Start + Math.Clamp(offset, 0, s.Seconds));
        }
        return null;
    }

    private double ValueAt(double seconds)
    {
        foreach (var s in _segments)
        {
            if (seconds < s.Start + s.Seconds)
            {
                var fraction = s.Seconds > 0 ? (seconds - s.Start) / s.Seconds : 1;
                return s.From + (s.To - s.From) * Math.Clamp(fraction, 0, 1);
            }
        }
        return 0;
    }

    private readonly record struct Segment(double Start, double Seconds, double From, double To, double ArrivalsBefore);
}
