using System.Globalization;

namespace ConcurrencySandbox.Contracts.Machine;

/// <summary>
/// What else the machine did while a figure was measured: CPU used by other processes (all CPUs' busy time in /proc/stat
/// minus this process's own in /proc/self/stat), time stolen by the hypervisor, and the cgroup's CFS throttling
/// (cpu.stat nr_throttled, throttled_usec). Shares are of all the machine's CPUs over the measured interval.
/// </summary>
/// <param name="ThrottledPeriods">CFS periods in which the cgroup's quota stopped it; null outside a cgroup with a cpu.stat.</param>
public sealed record MachineLoad(double Seconds, double OtherProcessesPercent, double StealPercent, long? ThrottledPeriods, double? ThrottledSeconds)
{
    /// <summary>Above this share of all CPUs taken by other processes (or stolen), a figure was taken on a busy machine.</summary>
    public const double BusyPercent = 10;

    /// <summary>The shortest interval judged busy: /proc/stat counts in 10 ms ticks, so shorter shares are too coarse to name a cause.</summary>
    public const double MinJudgedSeconds = 1;

    public bool Busy => Seconds >= MinJudgedSeconds && (OtherProcessesPercent > BusyPercent || StealPercent > BusyPercent);

    public bool Throttled => ThrottledPeriods > 0;

    /// <summary>"other processes 3 % of the CPUs, steal 0 %, throttled 12 periods (0.4 s)".</summary>
    public override string ToString() => string.Create(CultureInfo.InvariantCulture,
        $"other processes {OtherProcessesPercent:0.#} % of the CPUs, steal {StealPercent:0.#} %") +
        (ThrottledPeriods is { } periods ? string.Create(CultureInfo.InvariantCulture, $", CFS throttled {periods} periods ({ThrottledSeconds:0.###} s)") : "");
}
