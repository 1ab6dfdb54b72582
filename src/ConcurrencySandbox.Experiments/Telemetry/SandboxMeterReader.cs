using System.Diagnostics.Metrics;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Experiments.FanOut;
using ConcurrencySandbox.Experiments.Receive;
using ConcurrencySandbox.Experiments.Work;

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
            // Naming each experiment's instruments here also publishes them at the first read, before the experiment runs.
            return new SandboxTelemetry(
                Value(WorkInstruments.UnitsActive),
                Value(WorkInstruments.UnitsCancelled),
                Value(FanOutInstruments.CallsActive),
                Value(ReceiveInstruments.RunsActive),
                Value(ReceiveInstruments.RunsCancelled));
        }
    }

    public void Dispose() => _listener.Dispose();

    private long Value(SandboxCount count) => _latest.GetValueOrDefault(count.InstrumentName);
}
