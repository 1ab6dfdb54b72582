using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Seeded runtime counters over 10 s on 2 processors: second t's cpu-usage is 10, 20 or 30 % (so a reading weighed over
/// the wrong time gives another total), 1 MB allocated a second, 20 requests ending a second. The same seconds as the
/// runtime writes them and as a busy runner reads them, or with one lost.
/// </summary>
internal static class SeededCounters
{
    public const int ProcessorCount = 2;
    public const double Seconds = 10;
    public const double RequestsPerSecond = 20;

    public static double CpuPercentAt(int second) => 10 + (10 * (second % 3));

    /// <summary>The CPU from second 0's sample to second 10's: each second's reading over its second, on 2 processors.</summary>
    public static double CpuMs => Enumerable.Range(1, 10).Sum(t => CpuPercentAt(t) / 100 * ProcessorCount * 1000);

    /// <summary>Written and read each second on time.</summary>
    public static IReadOnlyList<RuntimeSample> OnTime() => [.. Enumerable.Range(0, 11).Select(t => Sample(t, t, CpuPercentAt(t), 1))];

    /// <summary>
    /// Written on time, read by a busy runner: 1.2, 1.2, 3, 0, 0, 1.2, 1.2, 1.2, 0.1 and 0.9 s apart (seconds 3 to 5 read
    /// together at 5.4 s).
    /// </summary>
    public static IReadOnlyList<RuntimeSample> ReadLate()
    {
        double[] readAt = [0, 1.2, 2.4, 5.4, 5.4, 5.4, 6.6, 7.8, 9.0, 9.1, 10.0];
        return [.. Enumerable.Range(0, 11).Select(t => Sample(readAt[t], t, CpuPercentAt(t), 1))];
    }

    /// <summary>The runtime's timer late: second 3's payload never written on its own, second 4's covering both (2 s at their mean), read as written.</summary>
    public static IReadOnlyList<RuntimeSample> WrittenLate() =>
    [
        .. Enumerable.Range(0, 11).Where(t => t != 3)
            .Select(t => t == 4 ? Sample(t, t, (CpuPercentAt(3) + CpuPercentAt(4)) / 2, 2, allocatedBytes: 2_000_000) : Sample(t, t, CpuPercentAt(t), 1)),
    ];

    /// <summary>On time, with second 5's samples lost whole (the session's buffers full).</summary>
    public static IReadOnlyList<RuntimeSample> SecondLost() => [.. OnTime().Where(s => s.WrittenSeconds != 5)];

    /// <summary>On time, with second 5's cpu-usage payload lost and its other counters kept.</summary>
    public static IReadOnlyList<RuntimeSample> CpuPayloadLost() =>
        [.. OnTime().Select(s => s.WrittenSeconds == 5 ? new RuntimeSample(s.Timestamp, s.WrittenSeconds, s.Counters.Where(c => c.Key != RuntimeObserver.CpuPercent).ToDictionary()) : s)];

    /// <summary>The variant whose load ran the 10 s the samples cover, its rows as the observer gives them (<see cref="ObservedTelemetry"/>).</summary>
    public static VariantResult Run(string name, IReadOnlyList<RuntimeSample> samples)
    {
        var key = new VariantKey(name);
        var stats = TestStats.Uniform((long)(RequestsPerSecond * Seconds), 50);
        var rows = ObservedTelemetry.Rows(key, startedTimestamp: 0, samples, ProcessorCount);
        return new VariantResult(key, "/x", "users", Seconds, [new IntervalRow(key, Seconds, "users", 4, RequestsPerSecond, stats)], rows, stats);
    }

    private static RuntimeSample Sample(double readSeconds, double writtenSeconds, double cpuPercent, double intervalSeconds, long allocatedBytes = 1_000_000) =>
        new((long)(readSeconds * Stopwatch.Frequency), writtenSeconds, new Dictionary<string, double>
        {
            [RuntimeObserver.CpuPercent] = cpuPercent,
            [RuntimeObserver.AllocationBytes] = allocatedBytes,
        })
        { CpuIntervalSeconds = intervalSeconds };
}
