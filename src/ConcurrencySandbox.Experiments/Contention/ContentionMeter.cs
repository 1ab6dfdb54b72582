using System.Diagnostics.Metrics;
using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Experiments.Contention;

/// <summary>The contention experiment's instruments, on the sandbox's meter (<see cref="SandboxMeter.Name"/>) beside the others.</summary>
internal static class ContentionMeter
{
    private static readonly Meter Meter = new(SandboxMeter.Name);

    public static SandboxCount WaitersActive { get; } = Register(
        new SandboxCount("sandbox.contention.waiters.active"),
        count => Meter.CreateObservableUpDownCounter(count.InstrumentName, () => count.Value, "{request}", "Requests waiting to enter a contention critical section now."));

    public static SandboxCount WaitsCancelled { get; } = Register(
        new SandboxCount("sandbox.contention.waits.cancelled"),
        count => Meter.CreateObservableCounter(count.InstrumentName, () => count.Value, "{request}", "Contention waiters that left the queue because their request was abandoned."));

    private static SandboxCount Register(SandboxCount count, Action<SandboxCount> publish)
    {
        publish(count);
        return count;
    }
}
