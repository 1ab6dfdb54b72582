using System.Diagnostics;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.ApiClient;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>One reporting interval of one variant: the curves' row.</summary>
public sealed record IntervalRow(VariantKey Variant, double ElapsedSeconds, string LoadUnit, double Load, double RequestsPerSecond, LatencyStats Stats)
{
    /// <summary>
    /// The tail after the last full interval (shorter, and holding the drain of requests still in flight when the load
    /// ended): its outcomes count, but its rate is left out of rate charts.
    /// </summary>
    public bool Partial { get; init; }

    /// <summary>Load agents (by index) that failed and whose data this merged interval lacks; empty for a single runner.</summary>
    public IReadOnlyList<int> MissingAgents { get; init; } = [];
}

/// <summary>
/// One step of a stepped load: the intervals in a row at one load level, and the requests SENT in them, wherever they
/// ended (a starving server answers a step's requests steps later, or they time out), merged exactly.
/// </summary>
public sealed record StepRow(double Load, double FromSeconds, double ToSeconds, LatencyStats Stats)
{
    /// <summary>The index of the shape's simulation the step ran (<see cref="IWorkload.StepBetween"/>): two steps of one load are told apart by it.</summary>
    public int Simulation { get; init; }

    public double RequestsPerSecond => ToSeconds > FromSeconds ? Stats.Requests / (ToSeconds - FromSeconds) : 0;
}

/// <summary>The requests sent during a span, wherever they ended: completed ones with their mean, timed-out ones as lower bounds.</summary>
public sealed record SentSummary(long Completed, double CompletedSumMs, long TimedOut, double TimedOutSumMs, long ConnectionErrors)
{
    public long Requests => Completed + TimedOut + ConnectionErrors;

    /// <summary>Mean latency of the completed requests; NaN when none completed.</summary>
    public double CompletedMeanMs => Completed == 0 ? double.NaN : CompletedSumMs / Completed;

    /// <summary>True when some requests timed out or failed without an answer, so the figure is only "at least" what the others show.</summary>
    public bool Censored => TimedOut > 0 || ConnectionErrors > 0;

    /// <summary>
    /// Mean latency counting each timed-out request at the time it was given up after: the exact mean when none timed
    /// out, else a lower bound of it. NaN when no request has a latency or a bound.
    /// </summary>
    public double AtLeastMeanMs => Completed + TimedOut == 0 ? double.NaN : (CompletedSumMs + TimedOutSumMs) / (Completed + TimedOut);

    /// <summary>The mean time the timed-out requests were given up after (the client's timeout); NaN when none timed out.</summary>
    public double TimedOutAtMs => TimedOut == 0 ? double.NaN : TimedOutSumMs / TimedOut;

    public static SentSummary Of(IEnumerable<SentSlice> slices) => slices.Aggregate(
        new SentSummary(0, 0, 0, 0, 0),
        (sum, s) => new SentSummary(sum.Completed + s.Completed, sum.CompletedSumMs + s.CompletedSumMs, sum.TimedOut + s.TimedOut, sum.TimedOutSumMs + s.TimedOutSumMs, sum.ConnectionErrors + s.ConnectionErrors));
}

/// <summary>One telemetry sample taken while a variant ran.</summary>
public sealed record TelemetryRow(VariantKey Variant, double ElapsedSeconds, RuntimeSnapshot Snapshot)
{
    /// <summary>
    /// For a row of the runtime's counters (<see cref="IOutOfBandTelemetry"/>): the seconds its CPU readings cover since the
    /// observer's first sample, a running total beside <see cref="ProcessTelemetry.CpuTimeMs"/> (each reading is a mean
    /// over an interval of its own, and a lost one leaves its interval out). Null for a row the API served, whose CPU
    /// time is the process's own running total and misses nothing between two rows.
    /// </summary>
    public double? CpuCoveredSeconds { get; init; }
}

/// <summary>
/// The first and the last telemetry sample taken while a variant's load ran, and the requests that ended between them:
/// what a per-request CPU or allocation figure is read over (<see cref="VariantResult.CountedSpan"/>).
/// </summary>
public sealed record CountedSpan(TelemetryRow First, TelemetryRow Last, double Requests)
{
    public double Seconds => Last.ElapsedSeconds - First.ElapsedSeconds;

    /// <summary>How much a cumulative counter (CPU time, allocated bytes) grew from the first sample to the last, per request.</summary>
    public double PerRequest(Func<RuntimeSnapshot, double> counter) => Growth(counter) / Requests;

    /// <summary>How much a cumulative counter grew from the first sample to the last.</summary>
    public double Growth(Func<RuntimeSnapshot, double> counter) => counter(Last.Snapshot) - counter(First.Snapshot);
}

/// <summary>A figure an experiment computes for one variant beyond latency and throughput, e.g. ("CPU per request", 1.8, "ms").</summary>
public sealed record VariantFigure(string Name, double Value, string Unit);

/// <summary>Everything measured for one variant.</summary>
public sealed record VariantResult(
    VariantKey Key,
    string Request,
    string LoadUnit,
    double ElapsedSeconds,
    IReadOnlyList<IntervalRow> Intervals,
    IReadOnlyList<TelemetryRow> Telemetry,
    LatencyStats Total)
{
    /// <summary>The longest per-call queue wait the server reported (fan-out only), in milliseconds.</summary>
    public double? MaxQueueWaitMs { get; init; }

    /// <summary>Every request in completion order: kept only for the cold-start burst, where each request is the evidence.</summary>
    public IReadOnlyList<RequestSample> Requests { get; init; } = [];

    /// <summary>The requests grouped by when they were sent (<see cref="LatencyRecorder.SentSliceSeconds"/> slices): what a verdict's CI resamples.</summary>
    public IReadOnlyList<SentSlice> Sent { get; init; } = [];

    /// <summary>The steps of a stepped load, each merged from its intervals (the partial tail left out).</summary>
    public IReadOnlyList<StepRow> Steps { get; init; } = [];

    /// <summary>
    /// The part of a variant that climbed to <paramref name="load"/> and then held it: its last step row at that load;
    /// null when it did not climb (one step) or no full interval held the load. What a capacity step is judged on.
    /// </summary>
    public StepRow? HeldAt(double load) => Steps.Count > 1 ? Steps.LastOrDefault(s => Math.Abs(s.Load - load) < 1e-9) : null;

    /// <summary>The run's latency distribution over completed requests (the "nines" chart).</summary>
    public IReadOnlyList<PercentilePoint> Distribution { get; init; } = [];

    /// <summary>How the failed requests ended (HTTP statuses, timeouts, connection errors by message), most frequent first.</summary>
    public IReadOnlyList<OutcomeCount> Failures { get; init; } = [];

    /// <summary>The experiment's own figures for this variant (e.g. CPU per request), printed in the report beside the latency.</summary>
    public IReadOnlyList<VariantFigure> Figures { get; init; } = [];

    /// <summary>The load agents that ran this variant, one row each (empty for a single runner).</summary>
    public IReadOnlyList<AgentRow> Agents { get; init; } = [];

    /// <summary>The ends (seconds since the variant began) of the intervals that lack agent <paramref name="index"/>'s data because it failed.</summary>
    public IReadOnlyList<double> SecondsWithout(int index) => [.. Intervals.Where(i => i.MissingAgents.Contains(index)).Select(i => i.ElapsedSeconds)];

    /// <summary>
    /// True when Ctrl+C or SIGTERM (the run's token) ended the variant before its load did: the result holds what was
    /// measured until then (its closed steps and its intervals, no telemetry history fetched), returned like any other.
    /// </summary>
    public bool Stopped { get; init; }

    /// <summary>Where the runtime's figures (the pool series) came from, as the report names it: the observer and its channel, an HTTP endpoint, or none and why.</summary>
    public string? TelemetrySource { get; init; }

    public double RequestsPerSecond => ElapsedSeconds > 0 ? Total.Requests / ElapsedSeconds : 0;
    public double PeakLoad => Intervals.Count == 0 ? 0 : Intervals.Max(i => i.Load);
    public int? PeakThreads => Telemetry.Count == 0 ? null : Telemetry.Max(t => t.Snapshot.ThreadPool.ThreadCount);
    public long? PeakQueue => Telemetry.Count == 0 ? null : Telemetry.Max(t => t.Snapshot.ThreadPool.PendingWorkItemCount);

    /// <summary>
    /// The peak step: the first step at the peak load, the row the step table shows, with every request sent in it
    /// wherever it ended (a starving server answers them long after the step ended, or never). Null when no step reached
    /// the peak (a variant stopped before its peak step closed).
    /// </summary>
    public StepRow? PeakStep => Steps.FirstOrDefault(s => s.Load >= PeakLoad);

    /// <summary>
    /// The requests that ended between two times (seconds since the variant began), from the intervals they ended in;
    /// an interval cut by either time counts in proportion to its overlap (its requests taken as spread evenly over it).
    /// None end after the last interval, however long the span runs on.
    /// </summary>
    public double EndedBetween(double fromSeconds, double toSeconds)
    {
        var (ended, start) = (0.0, 0.0);
        foreach (var interval in Intervals)
        {
            var overlap = Math.Min(interval.ElapsedSeconds, toSeconds) - Math.Max(start, fromSeconds);
            if (overlap > 0 && interval.ElapsedSeconds > start)
            {
                ended += interval.Stats.Requests * overlap / (interval.ElapsedSeconds - start);
            }
            start = interval.ElapsedSeconds;
        }
        return ended;
    }

    /// <summary>
    /// How much shorter than the time between two counter rows the runtime's CPU readings between them may add up to
    /// (<see cref="TelemetryRow.CpuCoveredSeconds"/>) before the span counts as missing a payload. Half the counters'
    /// one-second interval: a lost payload takes a whole interval (at least a second; the runtime's timer never fires more
    /// than a millisecond early), while a row's time and its reading's interval differ only by the moment between the
    /// runtime's poll and its write, milliseconds even when the poller thread is preempted.
    /// </summary>
    public const double CpuCoverageToleranceSeconds = 0.5;

    /// <summary>
    /// The span a per-request CPU or allocation figure is read over: the samples taken while the load ran (the observer
    /// samples on after it ends, and those seconds would add idle time), the requests that ended between the first and
    /// the last. Null when they span less than a second, their CPU readings do not cover it, or no request ended between them.
    /// </summary>
    public CountedSpan? CountedSpan() => CountedSpanBetween(double.NegativeInfinity, ElapsedSeconds).Span;

    /// <summary>
    /// The counted span (<see cref="CountedSpan()"/>) of the samples taken from <paramref name="fromSeconds"/> to
    /// <paramref name="toSeconds"/> (one step of a stepped load), or why there is none: the reason a figure read over it
    /// is "n/a", never 0. However far apart the samples: the observer's rows carry each CPU reading over its own interval
    /// and are placed where the runtime wrote them, the API's carry running totals; only CPU readings that do not cover the
    /// span (a payload lost: <see cref="CpuCoverageToleranceSeconds"/>) leave it out.
    /// </summary>
    public (CountedSpan? Span, string? NoSpanBecause) CountedSpanBetween(double fromSeconds, double toSeconds)
    {
        var during = Telemetry.Where(t => t.ElapsedSeconds >= fromSeconds && t.ElapsedSeconds <= Math.Min(toSeconds, ElapsedSeconds)).ToList();
        if (during.Count < 2 || during[^1].ElapsedSeconds - during[0].ElapsedSeconds < 1)
        {
            return (null, Invariant($"{CountText.Of(during.Count, "counter sample")} over {(during.Count < 2 ? 0 : during[^1].ElapsedSeconds - during[0].ElapsedSeconds):0.#} s: too few to read a rate"));
        }
        var seconds = during[^1].ElapsedSeconds - during[0].ElapsedSeconds;
        if (during[^1].CpuCoveredSeconds - during[0].CpuCoveredSeconds is { } covered && seconds - covered > CpuCoverageToleranceSeconds)
        {
            return (null, Invariant($"the runtime's CPU readings cover {covered:0.#} s of the {seconds:0.#} s between its counter samples: a payload was lost"));
        }
        var requests = EndedBetween(during[0].ElapsedSeconds, during[^1].ElapsedSeconds);
        return requests > 0 ? (new CountedSpan(during[0], during[^1], requests), null) : (null, "no request ended between its counter samples");
    }
}

/// <summary>
/// Telemetry read from outside the API's HTTP port and thread pool (the runtime observer over the diagnostics channel):
/// the rows recorded since a <see cref="Stopwatch"/> timestamp, stamped in seconds since it.
/// </summary>
public interface IOutOfBandTelemetry
{
    IReadOnlyList<TelemetryRow> RowsSince(VariantKey variant, long startedTimestamp);
}

/// <summary>Runs one variant: applies the workload, cuts the outcomes into intervals and samples telemetry every second.</summary>
public static class VariantRunner
{
    private const int MaxOutstandingSamples = 5;
    private static readonly TimeSpan TelemetryPeriod = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan TelemetryTimeout = TimeSpan.FromSeconds(10);
    // The history is served by the pool it describes: after a starving run the queue must drain first.
    private static readonly TimeSpan HistoryTimeout = TimeSpan.FromSeconds(120);

    /// <param name="intervalTaken">Told of each interval as the recorder takes it (a load agent encodes it for its coordinator).</param>
    /// <param name="steppedBy">The workload whose load and simulations steps are cut by (<see cref="IWorkload.LoadBetween"/>, <see cref="IWorkload.StepBetween"/>); <paramref name="workload"/> unless it runs a share of a larger load.</param>
    public static async Task<VariantResult> RunAsync(
        VariantKey variant,
        string request,
        IWorkload workload,
        SendRequest send,
        TimeSpan reportingInterval,
        SandboxClient? telemetry,
        IVariantProgress progress,
        CancellationToken cancellationToken,
        bool keepEveryRequest = false,
        IOutOfBandTelemetry? observed = null,
        bool telemetryLive = true,
        Action<TakenInterval>? intervalTaken = null,
        IWorkload? steppedBy = null)
    {
        // A load agent runs a share of the load but cuts its steps where its coordinator does: by the whole load.
        steppedBy ??= workload;
        // Observed from outside, the pool's series needs no HTTP call to the API it describes (and no waiting for its queue to drain).
        telemetry = observed is null ? telemetry : null;
        var started = Stopwatch.GetTimestamp();
        var recorder = new LatencyRecorder(started, keepEveryRequest) { IntervalTaken = intervalTaken };
        var startedUtc = DateTimeOffset.UtcNow;
        var samples = new List<TelemetryRow>();
        using var stopSampling = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        // Not live: the API's own history is fetched once the variant is done, and nothing asks it while it is measured.
        var sampling = telemetry is null || !telemetryLive ? Task.CompletedTask : SampleAsync(telemetry, variant, started, samples, stopSampling.Token);

        var running = workload.RunAsync(send, recorder, cancellationToken);
        var series = new IntervalSeries(variant, workload.LoadUnit, recorder) { StepClosed = step => progress.OnStep(variant, step) };
        var stopped = false;
        try
        {
            using var timer = new PeriodicTimer(reportingInterval);
            while (!running.IsCompleted)
            {
                var tick = timer.WaitForNextTickAsync(cancellationToken).AsTask();
                if (await Task.WhenAny(tick, running) != tick)
                {
                    break;
                }
                await tick;
                AddInterval(partial: false);
            }
            await running;
            // The tail after the last tick: shorter than an interval and holding the drain, so its rate is not a rate.
            series.CloseStep();
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // Ctrl+C or SIGTERM: the load's loops end with the token (requests cut short are not recorded); the steps
            // closed so far are kept for the partial report, the open one only in the intervals.
            await Task.WhenAny(running);
            stopped = true;
        }
        AddInterval(partial: true);

        await stopSampling.CancelAsync();
        await sampling;
        var elapsed = Stopwatch.GetElapsedTime(started).TotalSeconds;
        var recorded = telemetry is null || stopped ? null : await RecordedDuringAsync(telemetry, variant, startedUtc, elapsed, cancellationToken);
        IReadOnlyList<TelemetryRow> rows = observed?.RowsSince(variant, started) ?? (recorded is { Length: > 0 } ? recorded : SnapshotOf(samples));
        return new VariantResult(variant, request, workload.LoadUnit, elapsed, series.Intervals, rows, recorder.Total())
        {
            Requests = recorder.Requests(),
            Sent = recorder.SentSlices(),
            Steps = series.Steps,
            Distribution = recorder.Distribution(),
            Failures = recorder.Failures(),
            Stopped = stopped,
        };

        void AddInterval(bool partial)
        {
            var now = Stopwatch.GetElapsedTime(started).TotalSeconds;
            var (from, to) = (TimeSpan.FromSeconds(series.RowStartSeconds), TimeSpan.FromSeconds(now));
            var row = series.Add(now, steppedBy.LoadBetween(from, to), steppedBy.StepBetween(from, to), partial, step => recorder.TakeInterval(now, step));
            progress.OnInterval(row, observed is null ? LatestOf(samples) : observed.RowsSince(variant, started).LastOrDefault()?.Snapshot);
        }
    }

    /// <summary>
    /// Asks for a snapshot every second without waiting for the previous answer (a starving API answers late, and a
    /// late answer is still a reading); each row is stamped when its answer arrived.
    /// </summary>
    private static async Task SampleAsync(SandboxClient client, VariantKey variant, long started, List<TelemetryRow> samples, CancellationToken stop)
    {
        var outstanding = new List<Task>();
        using var timer = new PeriodicTimer(TelemetryPeriod);
        try
        {
            do
            {
                outstanding.RemoveAll(t => t.IsCompleted);
                if (outstanding.Count < MaxOutstandingSamples)
                {
                    outstanding.Add(SampleOnceAsync(client, variant, started, samples, stop));
                }
            }
            while (await timer.WaitForNextTickAsync(stop));
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            // The variant finished: sampling stops with it.
        }
        await Task.WhenAll(outstanding);
    }

    private static async Task SampleOnceAsync(SandboxClient client, VariantKey variant, long started, List<TelemetryRow> samples, CancellationToken stop)
    {
        try
        {
            if (await client.GetTelemetryAsync(TelemetryTimeout, stop) is { } snapshot)
            {
                var at = Stopwatch.GetElapsedTime(started).TotalSeconds;
                lock (samples)
                {
                    samples.Add(new TelemetryRow(variant, at, snapshot));
                }
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            // Still unanswered when the variant finished.
        }
    }

    /// <summary>
    /// The API's own per-second history for the variant's span, preferred to the live samples: those are served by
    /// the pool being measured, so a starving API answers them late or not at all. Null or empty when the API has no history for it.
    /// </summary>
    internal static async Task<TelemetryRow[]?> RecordedDuringAsync(
        SandboxClient client, VariantKey variant, DateTimeOffset startedUtc, double elapsedSeconds, CancellationToken cancellationToken)
    {
        var history = await client.GetTelemetryHistoryAsync(HistoryTimeout, cancellationToken);
        return history?
            .Select(s => new TelemetryRow(variant, (s.Timestamp - startedUtc).TotalSeconds, s))
            .Where(row => row.ElapsedSeconds >= 0 && row.ElapsedSeconds <= elapsedSeconds)
            .ToArray();
    }

    private static RuntimeSnapshot? LatestOf(List<TelemetryRow> samples)
    {
        lock (samples)
        {
            return samples.Count == 0 ? null : samples[^1].Snapshot;
        }
    }

    private static TelemetryRow[] SnapshotOf(List<TelemetryRow> samples)
    {
        lock (samples)
        {
            return [.. samples.OrderBy(s => s.ElapsedSeconds)];
        }
    }
}
