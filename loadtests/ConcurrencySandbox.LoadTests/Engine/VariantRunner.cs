using System.Diagnostics;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.ApiClient;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>One reporting interval of one variant: the curves' row.</summary>
public sealed record IntervalRow(VariantKey Variant, double ElapsedSeconds, string LoadUnit, double Load, double RequestsPerSecond, LatencyStats Stats);

/// <summary>One telemetry sample taken while a variant ran.</summary>
public sealed record TelemetryRow(VariantKey Variant, double ElapsedSeconds, RuntimeSnapshot Snapshot);

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

    /// <summary>Every request in completion order (empty when only interval statistics are known).</summary>
    public IReadOnlyList<RequestSample> Requests { get; init; } = [];

    /// <summary>The experiment's own figures for this variant (e.g. CPU per request), printed in the report beside the latency.</summary>
    public IReadOnlyList<VariantFigure> Figures { get; init; } = [];

    public double RequestsPerSecond => ElapsedSeconds > 0 ? Total.Requests / ElapsedSeconds : 0;
    public double PeakLoad => Intervals.Count == 0 ? 0 : Intervals.Max(i => i.Load);
    public int? PeakThreads => Telemetry.Count == 0 ? null : Telemetry.Max(t => t.Snapshot.ThreadPool.ThreadCount);
    public long? PeakQueue => Telemetry.Count == 0 ? null : Telemetry.Max(t => t.Snapshot.ThreadPool.PendingWorkItemCount);

    /// <summary>
    /// Mean latency of the requests sent during the peak step (the first run of intervals at the peak load), wherever
    /// they completed: a starving server answers them long after the step ended. Without per-request samples, the
    /// requests completed during the peak step. NaN when none.
    /// </summary>
    public double PeakLoadMeanMs
    {
        get
        {
            var (fromSeconds, toSeconds) = PeakStep();
            if (Requests.Count > 0)
            {
                var sent = Requests.Where(r => r.StartedSeconds >= fromSeconds && r.StartedSeconds < toSeconds).ToList();
                return sent.Count == 0 ? double.NaN : sent.Average(r => r.LatencyMs);
            }
            var atPeak = Intervals.Where(i => i.ElapsedSeconds > fromSeconds && i.ElapsedSeconds <= toSeconds && i.Stats.Requests > 0).ToList();
            var requests = atPeak.Sum(i => i.Stats.Requests);
            return requests == 0 ? double.NaN : atPeak.Sum(i => i.Stats.MeanMs * i.Stats.Requests) / requests;
        }
    }

    /// <summary>The peak step in seconds since the variant began: from the start of the first interval at the peak load to the end of the last one in a row.</summary>
    public (double FromSeconds, double ToSeconds) PeakStep()
    {
        var peak = PeakLoad;
        var first = Intervals.ToList().FindIndex(i => i.Load >= peak);
        if (first < 0)
        {
            return (0, ElapsedSeconds);
        }
        var last = first;
        while (last + 1 < Intervals.Count && Intervals[last + 1].Load >= peak)
        {
            last++;
        }
        return (first == 0 ? 0 : Intervals[first - 1].ElapsedSeconds, Intervals[last].ElapsedSeconds);
    }
}

/// <summary>Runs one variant: applies the workload, cuts the outcomes into intervals and samples telemetry every second.</summary>
public static class VariantRunner
{
    private const int MaxOutstandingSamples = 5;
    private static readonly TimeSpan TelemetryPeriod = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan TelemetryTimeout = TimeSpan.FromSeconds(10);
    // The history is served by the pool it describes: after a starving run the queue must drain first.
    private static readonly TimeSpan HistoryTimeout = TimeSpan.FromSeconds(120);

    public static async Task<VariantResult> RunAsync(
        VariantKey variant,
        string request,
        IWorkload workload,
        SendRequest send,
        TimeSpan reportingInterval,
        SandboxClient? telemetry,
        Action<IntervalRow, RuntimeSnapshot?> progress,
        CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        var recorder = new LatencyRecorder(started);
        var startedUtc = DateTimeOffset.UtcNow;
        var samples = new List<TelemetryRow>();
        using var stopSampling = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        var sampling = telemetry is null ? Task.CompletedTask : SampleAsync(telemetry, variant, started, samples, stopSampling.Token);

        var running = workload.RunAsync(send, recorder, cancellationToken);
        var intervals = new List<IntervalRow>();
        var (rowStart, previousRowStart) = (0.0, 0.0);
        using (var timer = new PeriodicTimer(reportingInterval))
        {
            while (!running.IsCompleted)
            {
                var tick = timer.WaitForNextTickAsync(cancellationToken).AsTask();
                if (await Task.WhenAny(tick, running) != tick)
                {
                    break;
                }
                await tick;
                AddInterval(extendPrevious: false);
            }
        }
        await running;
        // The tail after the last tick: a short one joins the previous row so its rate is not computed over a sliver.
        var shortTail = intervals.Count > 0 && Stopwatch.GetElapsedTime(started).TotalSeconds - rowStart < reportingInterval.TotalSeconds / 2;
        if (shortTail)
        {
            intervals.RemoveAt(intervals.Count - 1);
            rowStart = previousRowStart;
        }
        AddInterval(extendPrevious: shortTail);

        await stopSampling.CancelAsync();
        await sampling;
        var elapsed = Stopwatch.GetElapsedTime(started).TotalSeconds;
        var recorded = telemetry is null ? null : await RecordedDuringAsync(telemetry, variant, startedUtc, elapsed, cancellationToken);
        return new VariantResult(variant, request, workload.LoadUnit, elapsed, intervals, recorded is { Length: > 0 } ? recorded : SnapshotOf(samples), recorder.Total())
        {
            Requests = recorder.Requests(),
        };

        void AddInterval(bool extendPrevious)
        {
            var now = Stopwatch.GetElapsedTime(started).TotalSeconds;
            var stats = recorder.TakeInterval(extendPrevious);
            var width = Math.Max(now - rowStart, 1e-3);
            var applied = workload.LoadBetween(TimeSpan.FromSeconds(rowStart), TimeSpan.FromSeconds(now));
            (previousRowStart, rowStart) = (rowStart, now);
            var row = new IntervalRow(variant, now, workload.LoadUnit, applied, stats.Requests / width, stats);
            intervals.Add(row);
            progress(row, LatestOf(samples));
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
    private static async Task<TelemetryRow[]?> RecordedDuringAsync(
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
