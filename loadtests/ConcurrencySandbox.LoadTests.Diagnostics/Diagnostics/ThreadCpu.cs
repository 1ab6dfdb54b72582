using System.Globalization;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// The time each thread of a local process has wanted a core, from Linux's /proc/PID/task/TID: schedstat's time on a core
/// plus its time runnable in the run queue waiting for one, in nanoseconds, or stat's user plus system time in 10 ms
/// clock ticks where schedstat is missing (a kernel without CONFIG_SCHED_INFO). Read around each round of the stack
/// sample, it says which threads ran, or would have, while they were sampled: on a machine whose cores are taken (a load
/// average of 40 on 2 cores) a hashing thread gets a twentieth of a core and queues for the rest, while a parked thread
/// neither runs nor queues. Elsewhere (not Linux, a process in another pid namespace, one this user cannot read) there
/// are no figures.
/// </summary>
internal static class ThreadCpu
{
    /// <summary>Linux's USER_HZ, the unit of /proc's CPU times: 100 ticks a second on every architecture .NET runs on.</summary>
    public const double TicksPerSecond = 100;

    private const double NanosecondsPerSecond = 1e9;

    /// <summary>Each thread's time on a core or queued for one, in seconds by its id, or null when it cannot be read.</summary>
    public static IReadOnlyDictionary<int, double>? Read(int? processId) => ReadEach(processId, SecondsOf);

    /// <summary>
    /// Each thread's time runnable but waiting for a core, in seconds by its id (schedstat's second field), or null when
    /// it cannot be read: a thread that wants a core and gets none adds to it, one that waits on a lock or I/O does not.
    /// </summary>
    public static IReadOnlyDictionary<int, double>? ReadWaitingForCore(int? processId) =>
        ReadEach(processId, task => TryRead(Path.Combine(task, "schedstat")) is { } schedstat && Field(schedstat, 1) is { } ns ? ns / NanosecondsPerSecond : null);

    /// <summary>The seconds by which the threads present in both readings advanced, summed.</summary>
    public static double Advanced(IReadOnlyDictionary<int, double> before, IReadOnlyDictionary<int, double> after) =>
        after.Where(a => before.ContainsKey(a.Key)).Sum(a => a.Value - before[a.Key]);

    private static Dictionary<int, double>? ReadEach(int? processId, Func<string, double?> read)
    {
        if (processId is not { } pid || !OperatingSystem.IsLinux())
        {
            return null;
        }
        try
        {
            var seconds = new Dictionary<int, double>();
            foreach (var task in Directory.EnumerateDirectories($"/proc/{pid}/task"))
            {
                if (int.TryParse(Path.GetFileName(task), NumberStyles.None, CultureInfo.InvariantCulture, out var tid) && read(task) is { } value)
                {
                    seconds[tid] = value;
                }
            }
            return seconds;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>
    /// The share of one core each thread used between two readings <paramref name="seconds"/> apart (0.25: a quarter of
    /// the time on a core), for the threads present in both.
    /// </summary>
    public static IReadOnlyDictionary<int, double> Shares(IReadOnlyDictionary<int, double> before, IReadOnlyDictionary<int, double> after, double seconds) =>
        seconds <= 0
            ? new Dictionary<int, double>()
            : after.Where(a => before.ContainsKey(a.Key)).ToDictionary(a => a.Key, a => (a.Value - before[a.Key]) / seconds);

    /// <summary>utime + stime from a stat line; fields counted after the command name's closing parenthesis (the name may hold spaces).</summary>
    public static long? Ticks(string stat)
    {
        var fields = stat[(stat.LastIndexOf(')') + 1)..].Split(' ', StringSplitOptions.RemoveEmptyEntries);
        // After the name: state is field 3 of the line, utime field 14 and stime field 15.
        return fields.Length > 12
            && long.TryParse(fields[11], NumberStyles.None, CultureInfo.InvariantCulture, out var user)
            && long.TryParse(fields[12], NumberStyles.None, CultureInfo.InvariantCulture, out var system)
            ? user + system
            : null;
    }

    /// <summary>One field of a schedstat line ("83650921 549372105 294": nanoseconds on a core, nanoseconds runnable waiting for one, timeslices).</summary>
    private static long? Field(string schedstat, int index) =>
        long.TryParse(schedstat.Split(' ', StringSplitOptions.RemoveEmptyEntries).ElementAtOrDefault(index), NumberStyles.None, CultureInfo.InvariantCulture, out var value) ? value : null;

    /// <summary>One thread's seconds on or queued for a core: schedstat's nanoseconds (a 100 ms round needs them: a tick is a tenth of it), else stat's CPU ticks.</summary>
    private static double? SecondsOf(string task) =>
        TryRead(Path.Combine(task, "schedstat")) is { } schedstat && Field(schedstat, 0) is { } run && Field(schedstat, 1) is { } queued ? (run + queued) / NanosecondsPerSecond
        : TryRead(Path.Combine(task, "stat")) is { } stat && Ticks(stat) is { } ticks ? ticks / TicksPerSecond
        : null;

    private static string? TryRead(string path)
    {
        try
        {
            return File.ReadAllText(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // The thread ended between the listing and the read, or the kernel has no such file.
            return null;
        }
    }
}
