using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Experiments.Contention;

/// <summary>The contention experiment's instruments on the <see cref="SandboxMeter"/>, published at the first contention request.</summary>
internal static class ContentionInstruments
{
    public static SandboxCount WaitersActive { get; } =
        SandboxMeter.UpDownCounter("sandbox.contention.waiters.active", "{request}", "Requests waiting to enter a contention critical section now.");

    public static SandboxCount WaitsCancelled { get; } =
        SandboxMeter.Counter("sandbox.contention.waits.cancelled", "{request}", "Contention waiters that left the queue because their request was abandoned.");
}
