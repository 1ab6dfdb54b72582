using System.Diagnostics.Metrics;
using ConcurrencySandbox.Contracts.Telemetry;

namespace ConcurrencySandbox.Experiments.Telemetry;

/// <summary>
/// The sandbox's own instruments, published beside the runtime's <c>System.Runtime</c> meter: the experiments
/// count what they are doing, the telemetry (and <c>dotnet-counters monitor --counters ConcurrencySandbox</c>) reads it.
/// Static, as the runtime's own meters are: the counts are process-wide like the ThreadPool they sit beside.
/// Names and units follow the OpenTelemetry semantic conventions (lower-case, dot-separated, "{unit}" annotations).
/// </summary>
public static class SandboxMeter
{
    public const string Name = "ConcurrencySandbox";

    private static readonly Meter Meter = new(Name);

    internal static SandboxCount WorkUnitsActive { get; } =
        UpDownCounter("sandbox.work.units.active", "{unit}", "Work units (compute, spinwait, sleep) running now.");

    internal static SandboxCount WorkUnitsCancelled { get; } =
        Counter("sandbox.work.units.cancelled", "{unit}", "Work units stopped early because their request was abandoned.");

    internal static SandboxCount FanOutCallsActive { get; } =
        UpDownCounter("sandbox.fanout.calls.active", "{call}", "Fan-out calls to the third party in progress now.");

    internal static SandboxCount ReceiveRunsActive { get; } =
        UpDownCounter("sandbox.receive.runs.active", "{run}", "Receive experiment runs in progress now.");

    internal static SandboxCount ReceiveRunsCancelled { get; } =
        Counter("sandbox.receive.runs.cancelled", "{run}", "Receive experiment runs stopped, or not started, because their caller cancelled.");

    /// <summary>The counts now, as the instruments publish them, read without a listener's per-instrument allocation.</summary>
    internal static SandboxTelemetry Read() =>
        new(WorkUnitsActive.Value, WorkUnitsCancelled.Value, FanOutCallsActive.Value, ReceiveRunsActive.Value, ReceiveRunsCancelled.Value);

    private static SandboxCount UpDownCounter(string name, string unit, string description)
    {
        var count = new SandboxCount(name);
        Meter.CreateObservableUpDownCounter(name, () => count.Value, unit, description);
        return count;
    }

    private static SandboxCount Counter(string name, string unit, string description)
    {
        var count = new SandboxCount(name);
        Meter.CreateObservableCounter(name, () => count.Value, unit, description);
        return count;
    }
}

/// <summary>One count behind an observable instrument of the <see cref="SandboxMeter"/>.</summary>
internal sealed class SandboxCount(string instrumentName)
{
    private long _value;

    public string InstrumentName => instrumentName;

    public long Value => Interlocked.Read(ref _value);

    public void Increment() => Interlocked.Increment(ref _value);

    public void Decrement() => Interlocked.Decrement(ref _value);
}
