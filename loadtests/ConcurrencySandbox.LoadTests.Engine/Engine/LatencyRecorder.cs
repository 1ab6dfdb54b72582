using System.Collections.Concurrent;
using System.Diagnostics;
using HdrHistogram;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>One request as the per-request timeline keeps it (cold start only): when it ended, how long it took, how it ended.</summary>
public readonly record struct RequestSample(double CompletedSeconds, double LatencyMs, RequestEnd End)
{
    public double StartedSeconds => CompletedSeconds - LatencyMs / 1000;
}

/// <summary>
/// The requests sent during one slice of the run (<see cref="LatencyRecorder.SentSliceSeconds"/> wide), wherever they
/// ended: what the peak-step figures are computed from, since a starving server answers a step's requests long after it.
/// </summary>
public sealed record SentSlice(double FromSeconds, long Completed, double CompletedSumMs, long TimedOut, double TimedOutSumMs, long ConnectionErrors);

/// <summary>
/// One interval as a recorder took it: the requests that ended in it (answered latencies in microseconds, outcome
/// counts, the shortest time one timed out after) and the requests booked to their sent step since the previous interval.
/// </summary>
public sealed record TakenInterval(HistogramBase Histogram, OutcomeCounts Counts, double? TimedOutAtMs, IReadOnlyList<SentStepDelta> SentSteps);

/// <summary>
/// Collects request outcomes without a lock on the hot path, twice: by when each request ended (an
/// <see cref="OutcomeTally"/> swapped out once per reporting interval: the curves over time) and by the step it was sent
/// in (<see cref="SentSteps"/>: the step table and the response curve). Both merge exactly into HdrHistograms, so memory
/// stays flat however long the run. Only a recorder made with <c>keepEveryRequest</c> (the cold-start burst, whose every
/// request is its evidence) keeps each request.
/// </summary>
public sealed class LatencyRecorder
{
    /// <summary>Width of the slices requests are grouped into by when they were sent.</summary>
    public const double SentSliceSeconds = 0.1;

    // Microseconds up to an hour at 3 significant digits: a latency longer than any client timeout still fits.
    internal const long HighestMicros = 3_600_000_000;
    internal const int Digits = 3;

    private readonly long _startTimestamp;
    private readonly OutcomeTally _interval = new();
    private readonly SentSteps _sentSteps = new();
    private readonly OutcomeTotal _total = new();
    private readonly long[] _statusCounts = new long[600];
    private readonly ConcurrentDictionary<string, long> _errors = new();
    private readonly ConcurrentDictionary<long, SentAccumulator> _sent = new();
    private readonly ConcurrentQueue<RequestSample>? _requests;

    public LatencyRecorder(long startTimestamp, bool keepEveryRequest = false)
    {
        _startTimestamp = startTimestamp;
        _requests = keepEveryRequest ? new ConcurrentQueue<RequestSample>() : null;
    }

    public LatencyRecorder() : this(Stopwatch.GetTimestamp())
    {
    }

    /// <summary>Records one request: how long it took (from its intended start) and how it ended. Allocation-free unless it failed without an answer.</summary>
    public void Record(double latencyMs, RequestOutcome outcome)
    {
        var endedSeconds = Stopwatch.GetElapsedTime(_startTimestamp).TotalSeconds;
        var sentSeconds = endedSeconds - latencyMs / 1000;
        var micros = Math.Clamp((long)Math.Round(latencyMs * 1000), 1, HighestMicros);
        _interval.Record(micros, outcome.End);
        _sentSteps.Record(sentSeconds, micros, outcome.End);
        var slice = _sent.GetOrAdd((long)Math.Floor(sentSeconds / SentSliceSeconds), static _ => new SentAccumulator());
        switch (outcome.End)
        {
            case RequestEnd.Ok:
                slice.Completed(latencyMs);
                break;
            case RequestEnd.HttpStatus:
                Interlocked.Increment(ref _statusCounts[Math.Clamp(outcome.StatusCode, 0, _statusCounts.Length - 1)]);
                slice.Completed(latencyMs);
                break;
            case RequestEnd.Timeout:
                slice.TimedOut(latencyMs);
                break;
            default:
                _errors.AddOrUpdate(outcome.Error ?? "connection error", 1, static (_, n) => n + 1);
                slice.ConnectionError();
                break;
        }
        _requests?.Enqueue(new RequestSample(endedSeconds, latencyMs, outcome.End));
    }

    /// <summary>
    /// Takes the requests ended since the previous call as the interval ending at <paramref name="endSeconds"/> (seconds
    /// since the recorder's start) and merges them into the run's totals; the requests sent in that interval belong to
    /// step <paramref name="sentStep"/> (null: to none). Called by one reporter at a time.
    /// </summary>
    public LatencyStats TakeInterval(double endSeconds, int? sentStep)
    {
        var (histogram, counts, timedOutAtMs) = _interval.Take();
        var sentSteps = _sentSteps.CloseInterval(endSeconds, sentStep);
        IntervalTaken?.Invoke(new TakenInterval(histogram, counts, timedOutAtMs, sentSteps));
        return Merge(histogram, counts, timedOutAtMs);
    }

    /// <summary>
    /// Told of each interval as it is taken, before its histograms are reused: a load agent encodes it here for its
    /// coordinator and its own log.
    /// </summary>
    public Action<TakenInterval>? IntervalTaken { get; init; }

    /// <summary>
    /// Merges an interval taken elsewhere (a load agent's, decoded) into the run's totals and its requests into the steps
    /// they were sent in, exactly as <see cref="TakeInterval"/> merges its own.
    /// </summary>
    public LatencyStats AddInterval(TakenInterval interval)
    {
        foreach (var delta in interval.SentSteps)
        {
            _sentSteps.Add(delta);
        }
        return Merge(interval.Histogram, interval.Counts, interval.TimedOutAtMs);
    }

    private LatencyStats Merge(HistogramBase histogram, OutcomeCounts counts, double? timedOutAtMs)
    {
        _total.Add(histogram, counts, timedOutAtMs);
        return LatencyStats.From(histogram, counts, timedOutAtMs);
    }

    /// <summary>An empty histogram with this recorder's range and precision: what merged agents' intervals are added into.</summary>
    public static LongHistogram NewHistogram() => new(HighestMicros, Digits);

    /// <summary>
    /// Statistics of the requests sent in step <paramref name="step"/>, wherever they ended, as taken so far: once the
    /// load has drained (the last interval taken) every one of them, answered, timed out or failed.
    /// </summary>
    public LatencyStats SentInStep(int step) => _sentSteps.Of(step);

    /// <summary>Statistics over every interval taken so far.</summary>
    public LatencyStats Total() => _total.Stats();

    /// <summary>The run's latency distribution over the answered and the timed-out requests, for the "nines" chart.</summary>
    public IReadOnlyList<PercentilePoint> Distribution() => DistributionOf(_total.Answered, _total.TimedOut, _total.TimedOutAtMs);

    /// <summary>Percentiles at which the timed-out part of a distribution is drawn (a flat line at the timeout, as far as a "nines" axis goes).</summary>
    private static readonly double[] CensoredPercents = [50, 90, 99, 99.9, 99.99];

    /// <summary>
    /// A distribution (five steps per halving of the remaining share), below 100 % so a log "nines" axis can place every
    /// point: the answered requests' percentiles scaled to their share of all answered and timed-out requests, then the
    /// timed-out share as lower bounds at <paramref name="timedOutAtMs"/> (left out when it is unknown), so a variant whose
    /// requests mostly timed out sits above one whose requests were answered.
    /// </summary>
    public static IReadOnlyList<PercentilePoint> DistributionOf(HistogramBase completedMicros, long timedOut = 0, double? timedOutAtMs = null)
    {
        var completed = completedMicros.TotalCount;
        var answeredShare = completed + timedOut == 0 ? 0 : (double)completed / (completed + timedOut);
        List<PercentilePoint> points = completed == 0
            ? []
            : [.. completedMicros.Percentiles(5).Select(p => new PercentilePoint(p.PercentileLevelIteratedTo * answeredShare, p.ValueIteratedTo / 1000.0)).Where(p => p.Percentile < 100)];
        if (timedOut > 0 && timedOutAtMs is { } censorMs)
        {
            var from = 100 * answeredShare;
            points.AddRange(new[] { from }.Concat(CensoredPercents.Where(p => p > from)).Where(p => p < 100)
                .Select(p => new PercentilePoint(p, censorMs) { IsLowerBound = true }));
        }
        return points;
    }

    /// <summary>How the run's failed requests ended, most frequent first: HTTP statuses, timeouts, connection errors by message.</summary>
    public IReadOnlyList<OutcomeCount> Failures()
    {
        var rows = new List<OutcomeCount>();
        for (var status = 0; status < _statusCounts.Length; status++)
        {
            if (Interlocked.Read(ref _statusCounts[status]) is > 0 and var n)
            {
                rows.Add(new OutcomeCount($"HTTP {status}", n));
            }
        }
        if (_total.TimedOut > 0)
        {
            rows.Add(new OutcomeCount("timed out (the client's timeout)", _total.TimedOut));
        }
        rows.AddRange(_errors.Select(e => new OutcomeCount(e.Key, e.Value)));
        return [.. rows.OrderByDescending(r => r.Count).ThenBy(r => r.What, StringComparer.Ordinal)];
    }

    /// <summary>The requests grouped by when they were sent, in order.</summary>
    public IReadOnlyList<SentSlice> SentSlices() =>
        [.. _sent.OrderBy(s => s.Key).Select(s => s.Value.Snapshot(s.Key * SentSliceSeconds))];

    /// <summary>Every request recorded so far, in completion order; empty unless the recorder keeps every request.</summary>
    public RequestSample[] Requests() => _requests is null ? [] : [.. _requests];

    private sealed class SentAccumulator
    {
        private long _completed;
        private long _completedSumMicros;
        private long _timedOut;
        private long _timedOutSumMicros;
        private long _connectionErrors;

        public void Completed(double latencyMs)
        {
            Interlocked.Increment(ref _completed);
            Interlocked.Add(ref _completedSumMicros, (long)Math.Round(latencyMs * 1000));
        }

        public void TimedOut(double latencyMs)
        {
            Interlocked.Increment(ref _timedOut);
            Interlocked.Add(ref _timedOutSumMicros, (long)Math.Round(latencyMs * 1000));
        }

        public void ConnectionError() => Interlocked.Increment(ref _connectionErrors);

        public SentSlice Snapshot(double fromSeconds) => new(
            fromSeconds, Interlocked.Read(ref _completed), Interlocked.Read(ref _completedSumMicros) / 1000.0,
            Interlocked.Read(ref _timedOut), Interlocked.Read(ref _timedOutSumMicros) / 1000.0, Interlocked.Read(ref _connectionErrors));
    }
}
