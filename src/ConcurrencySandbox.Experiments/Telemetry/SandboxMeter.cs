using System.Diagnostics.Metrics;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Experiments.FanOut;
using ConcurrencySandbox.Experiments.Receive;
using ConcurrencySandbox.Experiments.Work;

namespace ConcurrencySandbox.Experiments.Telemetry;

/// <summary>
/// The sandbox's own meter, published beside the runtime's <c>System.Runtime</c> meter: the experiments
/// count what they are doing, the telemetry (and <c>dotnet-counters monitor --counters ConcurrencySandbox</c>) reads it.
/// Static, as the runtime's own meters are: the counts are process-wide like the ThreadPool they sit beside.
/// Names and units follow the OpenTelemetry semantic conventions (lower-case, dot-separated, "{unit}" annotations).
/// Each experiment declares its instruments in its own folder (<c>Work/WorkInstruments</c>, <c>FanOut/FanOutInstruments</c>,
/// <c>Receive/ReceiveInstruments</c>); <see cref="SandboxMeterReader"/> reads them into the telemetry.
/// </summary>
public static class SandboxMeter
{
    public const string Name = "ConcurrencySandbox";

    private static readonly Meter Meter = new(Name);

    /// <summary>The counts now, as the instruments publish them, read without a listener's per-instrument allocation.</summary>
    internal static SandboxTelemetry Read() =>
        new(WorkInstruments.UnitsActive.Value, WorkInstruments.UnitsCancelled.Value, FanOutInstruments.CallsActive.Value,
            ReceiveInstruments.RunsActive.Value, ReceiveInstruments.RunsCancelled.Value);

    /// <summary>An instrument that counts what is in progress now; each experiment declares its own in its folder.</summary>
    internal static SandboxCount UpDownCounter(string name, string unit, string description)
    {
        var count = new SandboxCount(name);
        Meter.CreateObservableUpDownCounter(name, () => count.Value, unit, description);
        return count;
    }

    /// <summary>An instrument that only grows.</summary>
    internal static SandboxCount Counter(string name, string unit, string description)
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
