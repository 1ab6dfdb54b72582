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
/// Collects request outcomes without a lock on the hot path: completed latencies go into an HdrHistogram
/// <see cref="Recorder"/> (wait-free writes, swapped out once per interval), outcomes into interlocked counters.
/// The reporter merges each interval into the step and run histograms exactly, so memory stays flat however long the
/// run. Only a recorder made with <c>keepEveryRequest</c> (the cold-start burst, whose every request is its evidence)
/// keeps each request.
/// </summary>
public sealed class LatencyRecorder
{
    /// <summary>Width of the slices requests are grouped into by when they were sent.</summary>
    public const double SentSliceSeconds = 0.1;

    // Microseconds up to an hour at 3 significant digits: a latency longer than any client timeout still fits.
    private const long HighestMicros = 3_600_000_000;
    private const int Digits = 3;

    private readonly long _startTimestamp;
    private readonly Recorder _interval = HistogramFactory.With64BitBucketSize().WithValuesFrom(1).WithValuesUpTo(HighestMicros).WithPrecisionOf(Digits)
        .WithThreadSafeWrites().WithThreadSafeReads().Create();
    private readonly LongHistogram _step = NewHistogram();
    private readonly LongHistogram _total = NewHistogram();
    private HistogramBase? _recycled;
    private long _ok;
    private long _httpErrors;
    private long _timedOut;
    private long _connectionErrors;
    private OutcomeCounts _stepCounts;
    private OutcomeCounts _totalCounts;
    // The shortest time a request was given up after, in microseconds (the censoring point of the timed-out requests): this interval's, the step's, the run's.
    private long _timedOutMinMicros = long.MaxValue;
    private double _stepTimedOutAtMs = double.PositiveInfinity;
    private double _totalTimedOutAtMs = double.PositiveInfinity;
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
        var slice = _sent.GetOrAdd((long)Math.Floor((endedSeconds - latencyMs / 1000) / SentSliceSeconds), static _ => new SentAccumulator());
        switch (outcome.End)
        {
            case RequestEnd.Ok:
                Interlocked.Increment(ref _ok);
                _interval.RecordValue(Math.Clamp((long)Math.Round(latencyMs * 1000), 1, HighestMicros));
                slice.Completed(latencyMs);
                break;
            case RequestEnd.HttpStatus:
                Interlocked.Increment(ref _httpErrors);
                Interlocked.Increment(ref _statusCounts[Math.Clamp(outcome.StatusCode, 0, _statusCounts.Length - 1)]);
                _interval.RecordValue(Math.Clamp((long)Math.Round(latencyMs * 1000), 1, HighestMicros));
                slice.Completed(latencyMs);
                break;
            case RequestEnd.Timeout:
                Interlocked.Increment(ref _timedOut);
                LowerTimedOutMin((long)Math.Round(latencyMs * 1000));
                slice.TimedOut(latencyMs);
                break;
            default:
                Interlocked.Increment(ref _connectionErrors);
                _errors.AddOrUpdate(outcome.Error ?? "connection error", 1, static (_, n) => n + 1);
                slice.ConnectionError();
                break;
        }
        _requests?.Enqueue(new RequestSample(endedSeconds, latencyMs, outcome.End));
    }

    /// <summary>
    /// Takes the requests ended since the previous call as one interval's statistics and merges them into the run's
    /// totals and, with <paramref name="inStep"/>, into the current step's. Called by one reporter at a time.
    /// </summary>
    public LatencyStats TakeInterval(bool inStep = true)
    {
        var histogram = _interval.GetIntervalHistogram(_recycled);
        _recycled = histogram;
        var counts = new OutcomeCounts(
            Interlocked.Exchange(ref _ok, 0), Interlocked.Exchange(ref _httpErrors, 0), Interlocked.Exchange(ref _timedOut, 0), Interlocked.Exchange(ref _connectionErrors, 0));
        var timedOutMinMicros = Interlocked.Exchange(ref _timedOutMinMicros, long.MaxValue);
        double? timedOutAtMs = timedOutMinMicros == long.MaxValue ? null : timedOutMinMicros / 1000.0;
        IntervalTaken?.Invoke(histogram, counts, timedOutAtMs);
        return AddInterval(histogram, counts, inStep, timedOutAtMs);
    }

    private void LowerTimedOutMin(long micros)
    {
        var seen = Interlocked.Read(ref _timedOutMinMicros);
        while (micros < seen && Interlocked.CompareExchange(ref _timedOutMinMicros, micros, seen) is var was && was != seen)
        {
            seen = was;
        }
    }

    /// <summary>
    /// Told of each interval's histogram (completed latencies in microseconds), outcome counts and the shortest time a
    /// request of it timed out after (null when none did) as it is taken, before the histogram is reused: a load agent
    /// encodes it here for its coordinator and its own log.
    /// </summary>
    public Action<HistogramBase, OutcomeCounts, double?>? IntervalTaken { get; init; }

    /// <summary>
    /// Merges an interval taken elsewhere (a load agent's, decoded) into the run's totals and, with
    /// <paramref name="inStep"/>, the current step's, exactly as <see cref="TakeInterval"/> merges its own.
    /// </summary>
    /// <param name="timedOutAtMs">The shortest time a timed-out request of the interval was given up after; null when none timed out or the source does not say.</param>
    public LatencyStats AddInterval(HistogramBase histogram, OutcomeCounts counts, bool inStep, double? timedOutAtMs = null)
    {
        var censorMs = timedOutAtMs ?? double.PositiveInfinity;
        _total.Add(histogram);
        _totalCounts += counts;
        _totalTimedOutAtMs = Math.Min(_totalTimedOutAtMs, censorMs);
        if (inStep)
        {
            _step.Add(histogram);
            _stepCounts += counts;
            _stepTimedOutAtMs = Math.Min(_stepTimedOutAtMs, censorMs);
        }
        return LatencyStats.From(histogram, counts, timedOutAtMs);
    }

    private static double? Known(double censorMs) => double.IsPositiveInfinity(censorMs) ? null : censorMs;

    /// <summary>An empty histogram with this recorder's range and precision: what merged agents' intervals are added into.</summary>
    public static LongHistogram NewHistogram() => new(HighestMicros, Digits);

    /// <summary>Statistics of the intervals taken since the previous call (one step of a stepped load), then starts the next step.</summary>
    public LatencyStats TakeStep()
    {
        var stats = LatencyStats.From(_step, _stepCounts, Known(_stepTimedOutAtMs));
        _step.Reset();
        _stepCounts = default;
        _stepTimedOutAtMs = double.PositiveInfinity;
        return stats;
    }

    /// <summary>Statistics over every interval taken so far.</summary>
    public LatencyStats Total() => LatencyStats.From(_total, _totalCounts, Known(_totalTimedOutAtMs));

    /// <summary>The run's latency distribution over the answered and the timed-out requests, for the "nines" chart.</summary>
    public IReadOnlyList<PercentilePoint> Distribution() => DistributionOf(_total, _totalCounts.TimedOut, Known(_totalTimedOutAtMs));

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
        if (_totalCounts.TimedOut > 0)
        {
            rows.Add(new OutcomeCount("timed out (the client's timeout)", _totalCounts.TimedOut));
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
