using System.Diagnostics.Metrics;

namespace ConcurrencySandbox.Experiments.Telemetry;

/// <summary>
/// The sandbox's own instruments, published beside the runtime's <c>System.Runtime</c> meter: the experiments
/// count what they are doing, the telemetry (and <c>dotnet-counters monitor --counters ConcurrencySandbox</c>) reads it.
/// Static, as the runtime's own meters are: the counts are process-wide like the ThreadPool they sit beside.
/// </summary>
public static class SandboxMeter
{
    public const string Name = "ConcurrencySandbox";

    /// <summary>Work units (compute, spinwait, sleep) running now; unit "{unit}".</summary>
    public const string WorkUnitsActive = "sandbox.work.units.active";

    /// <summary>Work units that stopped early because their request was abandoned, since the process started; unit "{unit}".</summary>
    public const string WorkUnitsCancelled = "sandbox.work.units.cancelled";

    /// <summary>Fan-out calls to the third party in progress now; unit "{call}".</summary>
    public const string FanOutCallsActive = "sandbox.fanout.calls.active";

    private static readonly Meter Meter = new(Name);
    private static long _workUnitsActive;
    private static long _workUnitsCancelled;
    private static long _fanOutCallsActive;

    static SandboxMeter()
    {
        Meter.CreateObservableUpDownCounter(WorkUnitsActive, () => Interlocked.Read(ref _workUnitsActive), "{unit}", "Work units running now.");
        Meter.CreateObservableCounter(WorkUnitsCancelled, () => Interlocked.Read(ref _workUnitsCancelled), "{unit}", "Work units stopped early by an abandoned request.");
        Meter.CreateObservableUpDownCounter(FanOutCallsActive, () => Interlocked.Read(ref _fanOutCallsActive), "{call}", "Third-party calls in progress now.");
    }

    internal static void WorkUnitStarted() => Interlocked.Increment(ref _workUnitsActive);

    internal static void WorkUnitEnded(bool cancelled)
    {
        if (cancelled)
        {
            Interlocked.Increment(ref _workUnitsCancelled);
        }

        Interlocked.Decrement(ref _workUnitsActive);
    }

    internal static void FanOutCallStarted() => Interlocked.Increment(ref _fanOutCallsActive);

    internal static void FanOutCallEnded() => Interlocked.Decrement(ref _fanOutCallsActive);
}
