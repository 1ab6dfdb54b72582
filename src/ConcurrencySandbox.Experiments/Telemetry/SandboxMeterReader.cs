using System.Diagnostics.Metrics;
using ConcurrencySandbox.Contracts.Telemetry;

namespace ConcurrencySandbox.Experiments.Telemetry;

/// <summary>Reads the <see cref="SandboxMeter"/> instruments through a <see cref="MeterListener"/>, as any outside consumer would.</summary>
public sealed class SandboxMeterReader : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly Dictionary<string, long> _latest = [];
    private readonly Lock _gate = new();

    public SandboxMeterReader()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == SandboxMeter.Name)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((instrument, value, _, _) => _latest[instrument.Name] = value);
        _listener.Start();
    }

    /// <summary>The value each observable instrument reports now.</summary>
    public SandboxTelemetry Read()
    {
        lock (_gate)
        {
            _latest.Clear();
            _listener.RecordObservableInstruments();
            return new SandboxTelemetry(
                Value(SandboxMeter.WorkUnitsActive),
                Value(SandboxMeter.WorkUnitsCancelled),
                Value(SandboxMeter.FanOutCallsActive),
                Value(SandboxMeter.ReceiveRunsActive),
                Value(SandboxMeter.ReceiveRunsCancelled));
        }
    }

    public void Dispose() => _listener.Dispose();

    private long Value(SandboxCount count) => _latest.GetValueOrDefault(count.InstrumentName);
}
