using System.Globalization;

namespace ConcurrencySandbox.Platform.Machine;

/// <summary>
/// A cgroup's cpu.stat: CFS periods elapsed and throttled, the time throttled and the CPU time used (cgroup v2 names, or
/// v1's throttled_time in ns and a "usage_ns" line the caller adds from cpuacct.usage). A field the file lacks is null.
/// </summary>
public sealed record CgroupCpuStat(long? Periods, long? ThrottledPeriods, long? ThrottledMicroseconds, long? UsageMicroseconds)
{
    public static CgroupCpuStat Parse(string text)
    {
        var values = text.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Select(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries))
            .Where(p => p.Length == 2 && long.TryParse(p[1], NumberStyles.Integer, CultureInfo.InvariantCulture, out _))
            .GroupBy(p => p[0])
            .ToDictionary(g => g.Key, g => long.Parse(g.First()[1], NumberStyles.Integer, CultureInfo.InvariantCulture));
        long? Field(string name) => values.TryGetValue(name, out var value) ? value : null;
        return new CgroupCpuStat(
            Field("nr_periods"),
            Field("nr_throttled"),
            Field("throttled_usec") ?? Field("throttled_time") / 1000,
            Field("usage_usec") ?? Field("usage_ns") / 1000);
    }

    /// <summary>What the counters moved by since <paramref name="before"/>.</summary>
    public CgroupCpuStat Since(CgroupCpuStat before) => new(
        Periods - before.Periods,
        ThrottledPeriods - before.ThrottledPeriods,
        ThrottledMicroseconds - before.ThrottledMicroseconds,
        UsageMicroseconds - before.UsageMicroseconds);
}
