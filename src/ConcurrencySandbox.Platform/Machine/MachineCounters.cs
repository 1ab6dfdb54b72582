using System.Globalization;
using ConcurrencySandbox.Contracts.Machine;

namespace ConcurrencySandbox.Platform.Machine;

/// <summary>One reading of the counters behind <see cref="MachineLoad"/>, in clock ticks (USER_HZ) and microseconds.</summary>
public sealed record MachineCounters(long TotalTicks, long BusyTicks, long StealTicks, long OwnTicks, long? ThrottledPeriods, long? ThrottledMicroseconds)
{
    /// <summary>The files read, by purpose; a reader of other text stands in for them in tests.</summary>
    public const string ProcStat = "/proc/stat";
    public const string SelfStat = "/proc/self/stat";
    public const string CgroupV2CpuStat = "/sys/fs/cgroup/cpu.stat";
    public const string CgroupV1CpuStat = "/sys/fs/cgroup/cpu,cpuacct/cpu.stat";

    /// <summary>cgroup v1 with the cpu controller mounted on its own (Debian's Docker 20.10 hosts).</summary>
    public const string CgroupV1CpuOnlyStat = "/sys/fs/cgroup/cpu/cpu.stat";

    /// <summary>Reads this machine's counters now; null where /proc is missing (not Linux).</summary>
    public static MachineCounters? Read() => Read(path => File.Exists(path) ? File.ReadAllText(path) : null);

    /// <summary>Reads through <paramref name="readFile"/> (a path's text, or null when it is missing).</summary>
    public static MachineCounters? Read(Func<string, string?> readFile)
    {
        if (readFile(ProcStat) is not { } procStat || readFile(SelfStat) is not { } selfStat)
        {
            return null;
        }

        var (total, busy, steal) = ParseProcStat(procStat);
        var (periods, throttledUs) = readFile(CgroupV2CpuStat) is { } v2 ? ParseCpuStat(v2)
            : readFile(CgroupV1CpuStat) is { } v1 ? ParseCpuStat(v1)
            : readFile(CgroupV1CpuOnlyStat) is { } v1CpuOnly ? ParseCpuStat(v1CpuOnly)
            : (null, null);
        return new MachineCounters(total, busy, steal, ParseSelfStat(selfStat), periods, throttledUs);
    }

    /// <summary>The machine's load between <paramref name="before"/> and this reading, <paramref name="seconds"/> apart.</summary>
    public MachineLoad Since(MachineCounters before, double seconds)
    {
        var total = Math.Max(1, TotalTicks - before.TotalTicks);
        var others = Math.Max(0, BusyTicks - before.BusyTicks - (OwnTicks - before.OwnTicks));
        return new MachineLoad(
            seconds,
            100.0 * others / total,
            100.0 * (StealTicks - before.StealTicks) / total,
            ThrottledPeriods - before.ThrottledPeriods,
            (ThrottledMicroseconds - before.ThrottledMicroseconds) / 1e6);
    }

    /// <summary>
    /// The aggregate "cpu" line: user nice system idle iowait irq softirq steal (guest time is already inside user and
    /// nice). Busy is everything but idle, iowait and steal; steal is reported on its own.
    /// </summary>
    public static (long Total, long Busy, long Steal) ParseProcStat(string text)
    {
        var line = text.Split('\n').FirstOrDefault(l => l.StartsWith("cpu ", StringComparison.Ordinal))
            ?? throw new FormatException("/proc/stat has no aggregate 'cpu' line.");
        var fields = line.Split(' ', StringSplitOptions.RemoveEmptyEntries).Skip(1).Take(8).Select(ParseLong).ToArray();
        long Field(int index) => index < fields.Length ? fields[index] : 0;
        var total = fields.Sum();
        var idle = Field(3) + Field(4);
        var steal = Field(7);
        return (total, total - idle - steal, steal);
    }

    /// <summary>utime + stime (fields 14 and 15) of /proc/self/stat; the command name in parentheses may hold spaces.</summary>
    public static long ParseSelfStat(string text)
    {
        var afterName = text[(text.LastIndexOf(')') + 1)..].Split(' ', StringSplitOptions.RemoveEmptyEntries);

        // afterName[0] is field 3 (state), so field f is afterName[f - 3].
        return ParseLong(afterName[14 - 3]) + ParseLong(afterName[15 - 3]);
    }

    /// <summary>nr_throttled and the throttled time in microseconds (cgroup v2 throttled_usec, v1 throttled_time in ns).</summary>
    public static (long? Periods, long? Microseconds) ParseCpuStat(string text)
    {
        var stat = CgroupCpuStat.Parse(text);
        return (stat.ThrottledPeriods, stat.ThrottledMicroseconds);
    }

    private static long ParseLong(string text) => long.Parse(text, NumberStyles.Integer, CultureInfo.InvariantCulture);
}
