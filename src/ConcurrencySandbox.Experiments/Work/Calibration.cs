using System.Diagnostics;
using ConcurrencySandbox.Contracts.Work;

namespace ConcurrencySandbox.Experiments.Work;

/// <summary>
/// A fixed single-threaded workload (the compute loop at <see cref="Cycles"/>) timed before, between and after measured
/// figures: it does the same work every time, so a change in its time is the machine's speed changing, not the code's.
/// </summary>
public static class Calibration
{
    public const long Cycles = 20_000_000;

    /// <summary>The best of three runs of the loop, in seconds (the best, so one interruption does not count as drift).</summary>
    public static double TimeSeconds(CancellationToken cancellationToken)
    {
        var best = double.MaxValue;
        for (var i = 0; i < 3; i++)
        {
            var started = Stopwatch.GetTimestamp();
            WorkLoops.Count(Cycles, cancellationToken);
            best = Math.Min(best, Stopwatch.GetElapsedTime(started).TotalSeconds);
        }

        return best;
    }

    /// <summary>(max - min) / min of every calibration time in <paramref name="checks"/>, in percent: the speed drift over a run.</summary>
    public static double DriftPercent(IEnumerable<SpeedCheck> checks)
    {
        var times = checks.SelectMany(c => new[] { c.BeforeSeconds, c.AfterSeconds }).ToList();
        return times.Count == 0 ? 0 : (times.Max() - times.Min()) / times.Min() * 100;
    }
}
