using System.Diagnostics.Metrics;

namespace ConcurrencySandbox.Experiments.Telemetry;

/// <summary>Reads the <see cref="SandboxMeter"/> instruments through a <see cref="MeterListener"/>, as any outside consumer would.</summary>
public sealed class SandboxMeterReader : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly Dictionary<string, long> _latest = [];
    private readonly Lock _gate = new();

    public SandboxMeterReader()
    {
        SandboxMeter.PublishInstruments();
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

    /// <summary>The value each observable instrument reports now, by instrument name.</summary>
    public IReadOnlyDictionary<string, long> Read()
    {
        lock (_gate)
        {
            _latest.Clear();
            _listener.RecordObservableInstruments();
            return new Dictionary<string, long>(_latest);
        }
    }

    public void Dispose() => _listener.Dispose();
}
