using System.Diagnostics;
using ConcurrencySandbox.Contracts.Streaming;

namespace ConcurrencySandbox.Experiments.Streaming;

/// <summary>
/// Counts how late messages were, without allocating per record: 0.1 ms buckets up to 100 ms, 10 ms buckets up to
/// 10 s, then one overflow bucket. Safe to record from several threads at once.
/// </summary>
public sealed class LatenessHistogram
{
    private const double FineStepMs = 0.1;
    private const int FineBuckets = 1_000; // up to 100 ms
    private const double CoarseStepMs = 10;
    private const int CoarseBuckets = 990; // 100 ms to 10 s

    private readonly long[] _counts = new long[FineBuckets + CoarseBuckets + 1];

    public long Count => Sum(_counts);

    /// <summary>Records how late something happened, from Stopwatch timestamps; early counts as on time.</summary>
    public void RecordTimestamps(long scheduledTimestamp, long actualTimestamp) =>
        RecordMs(Math.Max(0, actualTimestamp - scheduledTimestamp) * 1000.0 / Stopwatch.Frequency);

    public void RecordMs(double latenessMs) => Interlocked.Increment(ref _counts[BucketOf(latenessMs)]);

    /// <summary>
    /// The lateness below which <paramref name="percent"/> of records fall (a bucket's upper edge); 0 when empty. Reads
    /// the live counts without copying them, so a status read allocates nothing here: counts only grow, so a record
    /// arriving during the read can only move the answer to the bucket it would have had a moment later.
    /// </summary>
    public double PercentileMs(double percent) => PercentileMs(_counts, percent);

    /// <summary>The buckets that hold records, so a reader can subtract an earlier reading and look at a window: one array of values.</summary>
    public IReadOnlyList<LatenessBucket> NonEmptyBuckets()
    {
        while (true)
        {
            var nonEmpty = 0;
            foreach (var count in _counts)
            {
                nonEmpty += count > 0 ? 1 : 0;
            }

            if (TryFill(new LatenessBucket[nonEmpty]) is { } buckets)
            {
                return buckets;
            }

            // A bucket got its first record between the two passes: count again (rare, and only while recording).
        }
    }

    /// <summary>The percentile of what was recorded between two readings of <see cref="NonEmptyBuckets"/>.</summary>
    public static double PercentileMsBetween(IReadOnlyList<LatenessBucket> earlier, IReadOnlyList<LatenessBucket> later, double percent)
    {
        var counts = new long[FineBuckets + CoarseBuckets + 1];
        foreach (var bucket in later)
        {
            counts[bucket.Index] += bucket.Count;
        }

        foreach (var bucket in earlier)
        {
            counts[bucket.Index] -= bucket.Count;
        }

        return PercentileMs(counts, percent);
    }

    private static double PercentileMs(long[] counts, double percent)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(percent, 0);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(percent, 100);
        var total = Sum(counts);
        if (total == 0)
        {
            return 0;
        }

        var rank = Math.Max(1, (long)Math.Ceiling(percent / 100 * total));
        long seen = 0;
        for (var bucket = 0; bucket < counts.Length; bucket++)
        {
            seen += Volatile.Read(ref counts[bucket]);
            if (seen >= rank)
            {
                return UpperEdgeMs(bucket);
            }
        }

        return UpperEdgeMs(counts.Length - 1);
    }

    /// <summary>The non-empty buckets in index order into <paramref name="buckets"/>; null when there are more than it holds.</summary>
    private LatenessBucket[]? TryFill(LatenessBucket[] buckets)
    {
        var next = 0;
        for (var index = 0; index < _counts.Length; index++)
        {
            if (Volatile.Read(ref _counts[index]) is var count and > 0)
            {
                if (next == buckets.Length)
                {
                    return null;
                }

                buckets[next++] = new LatenessBucket(index, count);
            }
        }

        return buckets;
    }

    /// <summary>Each count read once, as the scan that follows reads them.</summary>
    private static long Sum(long[] counts)
    {
        long total = 0;
        for (var bucket = 0; bucket < counts.Length; bucket++)
        {
            total += Volatile.Read(ref counts[bucket]);
        }

        return total;
    }

    private static int BucketOf(double latenessMs)
    {
        if (latenessMs < FineBuckets * FineStepMs)
        {
            return (int)(Math.Max(0, latenessMs) / FineStepMs);
        }

        var coarse = (int)((latenessMs - (FineBuckets * FineStepMs)) / CoarseStepMs);
        return FineBuckets + Math.Min(coarse, CoarseBuckets);
    }

    /// <summary>The lateness a bucket stands for (its upper edge, as the percentiles report it).</summary>
    public static double UpperEdgeMs(int bucket) => bucket < FineBuckets
        ? (bucket + 1) * FineStepMs
        : (FineBuckets * FineStepMs) + ((bucket - FineBuckets + 1) * CoarseStepMs);
}
