using System.Text.Json;
using System.Text.Json.Serialization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>
/// What happens during a run, as the console's status line and the live page (one JSON object per Server-Sent Event,
/// its kind in <c>type</c>) both read it. A variant is named by its series, <c>experiment/variant</c>.
/// </summary>
[JsonPolymorphic(TypeDiscriminatorPropertyName = "type")]
[JsonDerivedType(typeof(RunPlanned), "plan")]
[JsonDerivedType(typeof(VariantStarted), "variant")]
[JsonDerivedType(typeof(IntervalEnded), "interval")]
[JsonDerivedType(typeof(StepEnded), "step")]
[JsonDerivedType(typeof(PoolAdjusted), "adjustment")]
[JsonDerivedType(typeof(RunEnded), "end")]
internal abstract record ProgressEvent
{
    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web)
    {
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    /// <summary>The event as one line of JSON, the data of its Server-Sent Event.</summary>
    public string ToJson() => JsonSerializer.Serialize(this, Json);

    public static string SeriesOf(string experiment, VariantKey variant) => $"{experiment}/{variant.Label}";
}

/// <summary>One variant the run will load, in order, with how long its load lasts (zero when not known in advance) and its steps.</summary>
internal sealed record PlannedVariant(string Series, double PlannedSeconds, int Steps);

/// <summary>The whole run's plan, first of all: the title and every variant it will run.</summary>
internal sealed record RunPlanned(string Title, IReadOnlyList<PlannedVariant> Variants) : ProgressEvent
{
    public double PlannedSeconds => Variants.Sum(v => v.PlannedSeconds);
}

/// <summary>Variant <paramref name="Index"/> (0-based) of <paramref name="Count"/> started sending its load; <paramref name="Color"/> is its colour in every chart.</summary>
internal sealed record VariantStarted(int Index, int Count, string Series, string Request, string Color) : ProgressEvent;

/// <summary>
/// One reporting interval of a variant, at <paramref name="ElapsedSeconds"/> since it started; latencies over the
/// requests that got an answer, null when none did; the pool as the latest telemetry sample had it, null without one.
/// </summary>
internal sealed record IntervalEnded(
    string Series, double ElapsedSeconds, string LoadUnit, double Load, double RequestsPerSecond, long Ok, long Failed, long TimedOut,
    double? MeanMs, double? P50Ms, double? P99Ms, double? MaxMs, int? PoolThreads, long? PoolQueue, bool Partial) : ProgressEvent
{
    public static IntervalEnded Of(string series, IntervalRow row, RuntimeSnapshot? latest)
    {
        var s = row.Stats;
        var answered = s.Completed > 0;
        return new(series, row.ElapsedSeconds, row.LoadUnit, row.Load, row.RequestsPerSecond, s.Ok, s.Failed, s.TimedOut,
            answered ? s.MeanMs : null, answered ? s.P50Ms : null, answered ? s.P99Ms : null, answered ? s.MaxMs : null,
            latest?.ThreadPool.ThreadCount, latest?.ThreadPool.PendingWorkItemCount, row.Partial);
    }
}

/// <summary>
/// One step of the load closed: a point of the response curve (<see cref="SummaryCurvePoint"/>, as the report draws it) and
/// the variant's knee so far by the report's rule (<see cref="ResponseCurve.FindKnee"/>). Live, the step's figures are
/// running ones: the requests sent in the step that had ended by its close (those still in flight count in the report,
/// which books every request by the step it was sent in), timed-out ones at least the client's timeout; once the run
/// ends the page redraws the curve from summary.json, as the report does, and the console prints the final figures.
/// </summary>
internal sealed record StepEnded(
    string Series, string LoadUnit, double FromSeconds, double ToSeconds, long Requests, long Failed, long TimedOut, double RequestsPerSecond,
    SummaryCurvePoint Point, Knee? Knee) : ProgressEvent
{
    /// <summary>The step as a curve point: latencies over the answered requests (null when none was), ok answers per second.</summary>
    public static SummaryCurvePoint PointOf(StepRow step, TimeSpan requestTimeout)
    {
        var s = step.Stats;
        var answered = s.Completed > 0;
        var seconds = step.ToSeconds - step.FromSeconds;
        return new SummaryCurvePoint(step.Load, answered ? s.P50Ms : null, answered ? s.P99Ms : null, seconds > 0 ? s.Ok / seconds : 0, s.Completed,
            s.TimedOut, s.Outcomes.ConnectionErrors, s.TimedOut > 0 ? requestTimeout.TotalMilliseconds : null);
    }
}

/// <summary>The runtime observer saw the pool adjust its worker threads (a marker on the pool chart).</summary>
internal sealed record PoolAdjusted(string Series, double ElapsedSeconds, int Threads, string Reason) : ProgressEvent
{
    public static PoolAdjusted Of(string series, AdjustmentMark mark) => new(series, mark.ElapsedSeconds, mark.NewWorkerThreadCount, mark.Reason);
}

/// <summary>How the run ended: <c>finished</c>, <c>cancelled</c> or <c>failed</c>; <paramref name="Report"/> is where report.html is served, when one was written.</summary>
internal sealed record RunEnded(string Outcome, string Message, string? Report) : ProgressEvent;
