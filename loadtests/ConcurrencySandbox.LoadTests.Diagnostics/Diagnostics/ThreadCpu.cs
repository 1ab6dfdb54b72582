using System.Globalization;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// The CPU time each thread of a local process has used, from Linux's /proc/PID/task/TID/stat (user plus system time, in
/// clock ticks): read before and after the stack sample, it says which threads ran on a core while they were sampled.
/// Elsewhere (not Linux, a process in another pid namespace, one this user cannot read) there are no figures.
/// </summary>
internal static class ThreadCpu
{
    /// <summary>Linux's USER_HZ, the unit of /proc's CPU times: 100 ticks a second on every architecture .NET runs on.</summary>
    public const double TicksPerSecond = 100;

    /// <summary>Each thread's CPU time in ticks by its id, or null when it cannot be read.</summary>
    public static IReadOnlyDictionary<int, long>? Read(int? processId)
    {
        if (processId is not { } pid || !OperatingSystem.IsLinux())
        {
            return null;
        }
        try
        {
            var ticks = new Dictionary<int, long>();
            foreach (var task in Directory.EnumerateDirectories($"/proc/{pid}/task"))
            {
                if (int.TryParse(Path.GetFileName(task), NumberStyles.None, CultureInfo.InvariantCulture, out var tid)
                    && TryReadStat(Path.Combine(task, "stat")) is { } text && Ticks(text) is { } used)
                {
                    ticks[tid] = used;
                }
            }
            return ticks;
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
    public static IReadOnlyDictionary<int, double> Shares(IReadOnlyDictionary<int, long> before, IReadOnlyDictionary<int, long> after, double seconds) =>
        seconds <= 0
            ? new Dictionary<int, double>()
            : after.Where(a => before.ContainsKey(a.Key)).ToDictionary(a => a.Key, a => (a.Value - before[a.Key]) / TicksPerSecond / seconds);

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

    private static string? TryReadStat(string path)
    {
        try
        {
            return File.ReadAllText(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // The thread ended between the listing and the read.
            return null;
        }
    }
}
