using System.Runtime.InteropServices;

namespace ConcurrencySandbox.Experiments.Receive;

/// <summary>
/// CPU time used by the calling thread alone, so a receive's cost excludes the sender, the GC's own threads and
/// other requests sharing the process. Linux: clock_gettime(CLOCK_THREAD_CPUTIME_ID), user plus kernel time,
/// so the recv system calls count. Elsewhere it falls back to the whole process's CPU time and says so.
/// </summary>
public static class ThreadCpuClock
{
    private const int ClockThreadCpuTimeId = 3;

    public static string Name { get; } = OperatingSystem.IsLinux()
        ? "thread CPU time of the receiving thread (clock_gettime CLOCK_THREAD_CPUTIME_ID)"
        : "process CPU time (Environment.CpuUsage; includes the sender and every other thread)";

    public static TimeSpan Now()
    {
        if (!OperatingSystem.IsLinux())
        {
            return Environment.CpuUsage.TotalTime;
        }

        if (ClockGetTime(ClockThreadCpuTimeId, out var time) != 0)
        {
            throw new InvalidOperationException($"clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed with errno {Marshal.GetLastPInvokeError()}.");
        }

        return TimeSpan.FromTicks((time.Seconds * TimeSpan.TicksPerSecond) + (time.Nanoseconds / TimeSpan.NanosecondsPerTick));
    }

    // DllImport rather than LibraryImport: the blittable signature needs no generated marshalling, nor unsafe code in this project.
    [DllImport("libc", EntryPoint = "clock_gettime", SetLastError = true)]
    private static extern int ClockGetTime(int clockId, out TimeSpec time);

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }
}
