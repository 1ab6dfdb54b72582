using HdrHistogram;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>What one take of an <see cref="OutcomeTally"/> held: the answered latencies in microseconds, the outcome counts and the shortest time a request of it timed out after (null: none did).</summary>
public readonly record struct TalliedOutcomes(HistogramBase Histogram, OutcomeCounts Counts, double? TimedOutAtMs);

/// <summary>
/// Request outcomes written from many threads without a lock and taken by one reader: answered latencies into an
/// HdrHistogram <see cref="Recorder"/> (wait-free writes, swapped out at each take), outcomes into interlocked counters,
/// and the shortest timeout seen (the censoring point of the timed-out requests).
/// </summary>
internal sealed class OutcomeTally
{
    private readonly Recorder _answered = HistogramFactory.With64BitBucketSize().WithValuesFrom(1).WithValuesUpTo(LatencyRecorder.HighestMicros)
        .WithPrecisionOf(LatencyRecorder.Digits).WithThreadSafeWrites().WithThreadSafeReads().Create();
    private HistogramBase? _recycled;
    // What a take hands out: the interval's counts copied once out of the recorder's concurrent histogram, whose every
    // count read takes its phaser's lock, so the interval's statistics, encodings and merges read a plain array.
    private readonly LongHistogram _taken = LatencyRecorder.NewHistogram();
    private long _ok;
    private long _httpErrors;
    private long _timedOut;
    private long _connectionErrors;
    private long _timedOutMinMicros = long.MaxValue;

    /// <summary>Records one request's end; <paramref name="micros"/> is its latency (a timeout's: the time it was given up after). Allocation-free.</summary>
    public void Record(long micros, RequestEnd end)
    {
        switch (end)
        {
            case RequestEnd.Ok:
                _answered.RecordValue(micros);
                Interlocked.Increment(ref _ok);
                break;
            case RequestEnd.HttpStatus:
                _answered.RecordValue(micros);
                Interlocked.Increment(ref _httpErrors);
                break;
            case RequestEnd.Timeout:
                Interlocked.Increment(ref _timedOut);
                LowerTimedOutMin(micros);
                break;
            default:
                Interlocked.Increment(ref _connectionErrors);
                break;
        }
    }

    /// <summary>What was recorded since the previous take. Its histogram is reused by the next take: read or copy it before then. One reader at a time.</summary>
    public TalliedOutcomes Take()
    {
        var interval = _answered.GetIntervalHistogram(_recycled);
        _recycled = interval;
        var histogram = _taken;
        histogram.Reset();
        if (interval.TotalCount > 0)
        {
            histogram.Add(interval);
        }
        histogram.StartTimeStamp = interval.StartTimeStamp;
        histogram.EndTimeStamp = interval.EndTimeStamp;
        var counts = new OutcomeCounts(
            Interlocked.Exchange(ref _ok, 0), Interlocked.Exchange(ref _httpErrors, 0), Interlocked.Exchange(ref _timedOut, 0), Interlocked.Exchange(ref _connectionErrors, 0));
        var timedOutMinMicros = Interlocked.Exchange(ref _timedOutMinMicros, long.MaxValue);
        return new TalliedOutcomes(histogram, counts, timedOutMinMicros == long.MaxValue ? null : timedOutMinMicros / 1000.0);
    }

    private void LowerTimedOutMin(long micros)
    {
        var seen = Interlocked.Read(ref _timedOutMinMicros);
        while (micros < seen && Interlocked.CompareExchange(ref _timedOutMinMicros, micros, seen) is var was && was != seen)
        {
            seen = was;
        }
    }
}

/// <summary>
/// Taken outcomes added up exactly (HdrHistogram's merge loses nothing): the run's totals, or one step's requests. Used
/// by one thread at a time.
/// </summary>
internal sealed class OutcomeTotal
{
    private readonly LongHistogram _answered = LatencyRecorder.NewHistogram();
    private OutcomeCounts _counts;
    private double _timedOutAtMs = double.PositiveInfinity;

    public void Add(HistogramBase answered, OutcomeCounts counts, double? timedOutAtMs)
    {
        _answered.Add(answered);
        _counts += counts;
        _timedOutAtMs = Math.Min(_timedOutAtMs, timedOutAtMs ?? double.PositiveInfinity);
    }

    public long TimedOut => _counts.TimedOut;

    public LongHistogram Answered => _answered;

    /// <summary>The shortest time a request added here was given up after; null when none timed out (or no source said).</summary>
    public double? TimedOutAtMs => double.IsPositiveInfinity(_timedOutAtMs) ? null : _timedOutAtMs;

    public LatencyStats Stats() => LatencyStats.From(_answered, _counts, TimedOutAtMs);
}
