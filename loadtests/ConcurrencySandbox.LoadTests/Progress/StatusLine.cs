using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>The console's progress lines: the live status line on a terminal, the interval and step lines otherwise.</summary>
internal static class StatusLine
{
    /// <summary>
    /// The one status line, e.g. <c>[2/4] fanout/threadpool  step 3/10  users 12  0:47 elapsed, ~3:31 left  rps 11.5  p99 1.23 s  failed 0  pool 14 threads, queue 230</c>.
    /// </summary>
    public static string Format(RunState state, DateTimeOffset now)
    {
        // No plan (the matrix's variants depend on the machine): elapsed time only.
        var elapsed = Clock(now - state.StartedAt) + " elapsed";
        var left = state.Plan.Variants.Count == 0 ? "" : $", {(state.RemainingIsLowerBound ? ">=" : "~")}{Clock(state.Remaining(now))} left";
        if (state.Ended is { } ended)
        {
            return $"{ended.Outcome}: {elapsed}";
        }
        if (state.Series is null)
        {
            return $"starting: {CountText.Of(state.Count, "variant")}, {elapsed}{left}";
        }
        var step = state.StepsClosed < state.PlannedSteps ? $"{state.StepsClosed + 1}/{state.PlannedSteps}" : $"{state.StepsClosed + 1}";
        var head = $"[{state.Index + 1}/{state.Count}] {state.Series}  step {step}";
        if (state.Last is not { } last)
        {
            return $"{head}  {elapsed}{left}  (first interval pending)";
        }
        var pool = last.PoolThreads is { } threads ? $"pool {threads} threads, queue {last.PoolQueue}" : "pool n/a";
        return string.Create(CultureInfo.InvariantCulture,
            $"{head}  {last.LoadUnit} {last.Load:0.#}  {elapsed}{left}  rps {last.RequestsPerSecond:0.#}  p99 {Latency(last.P99Ms)}  failed {state.Failed}  {pool}");
    }

    /// <summary>The per-interval line (kept with --verbose on a terminal, always when the output is not one; scripts read its <c>series t=</c> start).</summary>
    public static string Interval(IntervalEnded i)
    {
        var pool = i.PoolThreads is { } threads ? $"threads={threads} queue={i.PoolQueue}" : "threads=n/a queue=n/a";
        return string.Create(CultureInfo.InvariantCulture,
            $"{i.Series} t={i.ElapsedSeconds,6:0.0}s {i.LoadUnit}={i.Load,6:0.#} rps={i.RequestsPerSecond,8:0.#} ok={i.Ok} failed={i.Failed} timedout={i.TimedOut} mean={Ms(i.MeanMs)} p99={Ms(i.P99Ms)} max={Ms(i.MaxMs)} {pool}");
    }

    /// <summary>
    /// One line per closed step, a running figure and said so ("so far"): the requests SENT in the step that had ended by
    /// its close. Its requests still in flight end later, and the slowest of them are what a starved step's p99 is made of,
    /// so the step's final figures (every request in the step it was sent in: the headline's and the report's) can be far
    /// higher; the console prints those once the run ends (<see cref="Reports.ReportWriter.StepLines"/>).
    /// </summary>
    public static string Step(StepEnded s) => string.Create(CultureInfo.InvariantCulture,
        $"{s.Series} step {s.LoadUnit}={s.Point.Load:0.#} {s.FromSeconds:0.0}-{s.ToSeconds:0.0}s so far (sent in it, ended by its close): ended={s.Requests} ended/s={s.RequestsPerSecond:0.#} p50={Ms(s.Point.P50Ms)} p99={Ms(s.Point.P99Ms)} failed={s.Failed} timedout={s.TimedOut}");

    /// <summary>m:ss, or h:mm:ss from an hour.</summary>
    public static string Clock(TimeSpan span)
    {
        var seconds = (long)Math.Max(0, Math.Round(span.TotalSeconds));
        return seconds >= 3600
            ? string.Create(CultureInfo.InvariantCulture, $"{seconds / 3600}:{seconds / 60 % 60:00}:{seconds % 60:00}")
            : string.Create(CultureInfo.InvariantCulture, $"{seconds / 60}:{seconds % 60:00}");
    }

    private static string Latency(double? ms) => ms switch
    {
        null => "n/a",
        < 1000 => string.Create(CultureInfo.InvariantCulture, $"{ms:0} ms"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{ms / 1000:0.00} s"),
    };

    private static string Ms(double? ms) => ms is { } value ? string.Create(CultureInfo.InvariantCulture, $"{value:0}ms") : "n/a";
}
