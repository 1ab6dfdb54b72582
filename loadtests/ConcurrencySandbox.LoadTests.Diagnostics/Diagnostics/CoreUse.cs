using System.Diagnostics;
using ConcurrencySandbox.Platform.Machine;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// One reading of who held the machine's cores: /proc/stat's totals, the runner's own CPU ticks and the observed
/// service's (/proc/PID/stat), and how long each of the service's threads has waited for a core (<see cref="ThreadCpu.ReadWaitingForCore"/>).
/// </summary>
public sealed record CoreReading(long Timestamp, MachineCounters Machine, long ServiceTicks, IReadOnlyDictionary<int, double>? ServiceWaitingForCore)
{
    /// <summary>Reads now; null where /proc cannot be read or the service is not a local process (a container's pid is not in this namespace).</summary>
    public static CoreReading? Take(int? serviceProcessId)
    {
        if (serviceProcessId is not { } pid || !OperatingSystem.IsLinux())
        {
            return null;
        }
        try
        {
            return MachineCounters.Read() is { } machine && ThreadCpu.Ticks(File.ReadAllText($"/proc/{pid}/stat")) is { } service
                ? new CoreReading(Stopwatch.GetTimestamp(), machine, service, ThreadCpu.ReadWaitingForCore(pid))
                : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException)
        {
            return null;
        }
    }
}

/// <summary>
/// Who held the machine's cores over a stretch of a run, each as a share of all of them (100 %: every core busy): the
/// observed service, the runner (the load generator, with the observer), and every other process; and how long the
/// service's threads waited for a core meanwhile (<paramref name="ServiceWaitedSeconds"/>, summed over its threads; null
/// where schedstat is missing). On a machine the load generator shares with the service, the service alone can stay
/// under its cores' limit while they are spent: the CPU-bound target broke at 79 % on CI's quiet 2 cores, the runner
/// holding the rest; and on a busy one its neighbours hold them.
/// </summary>
public sealed record CoreUse(double Seconds, int Cores, double ServicePercent, double RunnerPercent, double OthersPercent, double? ServiceWaitedSeconds = null)
{
    /// <summary>The machine's busy share at or above which its cores are spent.</summary>
    public const double SpentPercent = 90;

    /// <summary>
    /// The share of the requests' time in the service spent waiting for a core (runnable, not running) from which the
    /// cores bound them: a quarter. A service that waits on a dependency or a lock is not runnable while it waits, so
    /// neighbours filling the cores leave it far under this.
    /// </summary>
    public const double WaitedForCoreShare = 0.25;

    /// <summary>
    /// The share of the spent cores the service itself held from which they bound it, however little its threads queued
    /// for one: half. A service that waits on a dependency holds little CPU while it waits, so it stays far under this
    /// whoever fills the cores; a CPU-bound one sharing two quiet cores with its load generator holds most of them while its
    /// threads may queue under a quarter of the requests' time (the requests also wait in the runner): CI called such a
    /// target's break the upstream's once (2026-11-29, p99 12.1 ms at 7 users), its cores' figures not kept.
    /// </summary>
    public const double ServiceHeldShare = 0.5;

    /// <summary>
    /// Other processes' share of the machine's cores from which the machine was busy with others (<see cref="BusyWithOthers"/>):
    /// half. What the requests of a step then waited on (a core, a dependency on the same machine, the runner itself) is
    /// not told apart from one step, so no upstream is named (issue 37: Audit's break was put down to "the upstream" while
    /// other processes held 88 % of the cores, and no HTTP call was traced).
    /// </summary>
    public const double OthersBusyPercent = 50;

    /// <summary>
    /// Other processes' share of the cores over the whole stretch read (the step, where <see cref="Busiest"/> read it), beside
    /// <see cref="OthersPercent"/>'s over the busiest second; that one where it is all that was read.
    /// </summary>
    public double OthersOverStepPercent { get => _othersOverStep ?? OthersPercent; init => _othersOverStep = value; }

    private readonly double? _othersOverStep;

    /// <summary>
    /// Other processes held at least <see cref="OthersBusyPercent"/> of the machine's cores over the step (over the one stretch
    /// read where that is all): one second of a neighbour's burst does not make a busy machine (a parallel test read
    /// "other processes 96 %" over a step's busiest second in a quiet full run, 2026-11-30, and withdrew a traced cause).
    /// </summary>
    public bool BusyWithOthers => OthersOverStepPercent >= OthersBusyPercent;

    /// <summary>The shortest stretch read: /proc counts in 10 ms ticks, a hundredth of a core-second on one core.</summary>
    public const double MinSeconds = 0.5;

    public double BusyPercent => ServicePercent + RunnerPercent + OthersPercent;

    public bool Spent => BusyPercent >= SpentPercent;

    /// <summary>The share of the requests' time spent waiting for a core: the service's threads' wait over <paramref name="requestsInFlight"/> x the stretch (Little's law); null without the wait.</summary>
    public double? WaitedShare(double requestsInFlight) =>
        ServiceWaitedSeconds is { } waited && requestsInFlight > 0 ? waited / (requestsInFlight * Seconds) : null;

    /// <summary>The service's CPU seconds over the stretch: its share of the machine's cores x the cores x the stretch.</summary>
    public double ServiceRanSeconds => ServicePercent / 100 * Cores * Seconds;

    /// <summary>How long the service's threads queued for a core per second they ran; null without the wait or the run.</summary>
    public double? WaitedPerRan => ServiceWaitedSeconds is { } waited && ServiceRanSeconds > 0 ? waited / ServiceRanSeconds : null;

    /// <summary>
    /// Whether the cores bound the requests: spent (by anyone: the service, its load generator, other processes) while
    /// the requests waited for them (<see cref="WaitedForCoreShare"/>) or the service itself held most of them (<see cref="ServiceHeldShare"/>);
    /// or spent by the service and the runner loading it alone (<see cref="SpentByTheLoad"/>) while the service's threads
    /// queued for a core at least as long as they ran (<see cref="WaitedPerRan"/>): a CPU-bound service that splits two
    /// quiet cores with its load generator holds about half of them and its requests also wait in the runner, so it can
    /// stay just under both shares (CI, 2026-11-30: the hashing target at 8 users, the service 49 %, the runner 51 %, its
    /// threads queued 1.85 s for a core in 1 s, 23 % of the requests' time, and the break was put upstream). A service
    /// waiting on a dependency does not spend the cores with its runner alone; where neighbours help spend them, any
    /// thread that wakes queues, so the queueing alone says nothing and this rule stays out.
    /// </summary>
    public bool Bound(double requestsInFlight) =>
        Spent && (WaitedShare(requestsInFlight) >= WaitedForCoreShare || ServicePercent >= ServiceHeldShare * BusyPercent || (SpentByTheLoad && WaitedPerRan >= 1));

    /// <summary>The service and the runner loading it held the spent share of the cores between them (<see cref="SpentPercent"/>), other processes the rest at most.</summary>
    public bool SpentByTheLoad => ServicePercent + RunnerPercent >= SpentPercent;

    /// <summary>Who held the cores between two readings; null when they are under <see cref="MinSeconds"/> apart.</summary>
    public static CoreUse? Between(CoreReading before, CoreReading after, int cores)
    {
        var seconds = Stopwatch.GetElapsedTime(before.Timestamp, after.Timestamp).TotalSeconds;
        var total = (double)(after.Machine.TotalTicks - before.Machine.TotalTicks);
        if (seconds < MinSeconds || total <= 0)
        {
            return null;
        }
        var busy = after.Machine.BusyTicks - before.Machine.BusyTicks;
        var runner = after.Machine.OwnTicks - before.Machine.OwnTicks;
        var service = after.ServiceTicks - before.ServiceTicks;
        double? waited = before.ServiceWaitingForCore is { } a && after.ServiceWaitingForCore is { } b ? ThreadCpu.Advanced(a, b) : null;
        return new CoreUse(seconds, cores, 100 * service / total, 100 * runner / total, 100 * Math.Max(0, busy - runner - service) / total, waited);
    }

    /// <summary>
    /// The busiest stretch between consecutive readings (each at least <see cref="MinSeconds"/> long), with other processes'
    /// share from the first reading to the last (<see cref="OthersOverStepPercent"/>); or null.
    /// </summary>
    public static CoreUse? Busiest(IReadOnlyList<CoreReading> readings, int cores) =>
        readings.Zip(readings.Skip(1), (a, b) => Between(a, b, cores)).OfType<CoreUse>().MaxBy(u => u.BusyPercent) is { } busiest
            && Between(readings[0], readings[^1], cores) is { } step
            ? busiest with { OthersOverStepPercent = step.OthersPercent }
            : null;

    /// <summary>"the machine's 2 cores were 97 % busy (the service 79 %, ...)", and with <paramref name="requestsInFlight"/> how long the service's threads queued for a core beside the requests' time.</summary>
    public string Describe(double? requestsInFlight = null)
    {
        var waited = requestsInFlight is { } inFlight && WaitedShare(inFlight) is { } share
            ? Invariant($"; the service's threads queued {ServiceWaitedSeconds:0.##} s for a core in those {Seconds:0.#} s{(WaitedPerRan is { } perRan ? $" ({perRan:0.#} x the {ServiceRanSeconds:0.##} s they ran)" : "")}, {100 * share:0} % of the time of the {inFlight:0.#} requests in flight (its other threads' queueing counts too)")
            : "";
        return Invariant($"the machine's {Cores} cores were {BusyPercent:0} % busy (the service {ServicePercent:0} %, the runner generating the load {RunnerPercent:0} %, other processes {OthersPercent:0} %, over its busiest {Seconds:0.#} s{waited})");
    }
}
