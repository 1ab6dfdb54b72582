using System.Diagnostics.Metrics;
using System.Globalization;
using System.Text;
using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Api.Metrics;

/// <summary>
/// The runtime's System.Runtime meter and the sandbox's own meter in the Prometheus text exposition format (0.0.4),
/// named as OpenTelemetry's Prometheus exporter names them: dots to underscores, the unit appended
/// (s: seconds, By: bytes, {annotations} dropped), counters ending in _total. Synchronous on the calling thread:
/// <see cref="MeterListener.RecordObservableInstruments"/> runs each instrument's callback right there, so a
/// control-plane thread can render it while the ThreadPool starves. Both meters publish observable instruments
/// only (read on demand); synchronous instruments would need aggregating between scrapes and are not read.
/// </summary>
public sealed class PrometheusExposition : IDisposable
{
    public const string ContentType = "text/plain; version=0.0.4; charset=utf-8";
    public const string RuntimeMeterName = "System.Runtime";

    private static readonly Dictionary<string, string> Units = new(StringComparer.Ordinal)
    {
        ["s"] = "seconds",
        ["ms"] = "milliseconds",
        ["us"] = "microseconds",
        ["ns"] = "nanoseconds",
        ["By"] = "bytes",
        ["KiBy"] = "kibibytes",
        ["MiBy"] = "mebibytes",
        ["%"] = "percent",
    };

    private readonly MeterListener _listener = new();
    private readonly Lock _scrape = new();
    private readonly List<Instrument> _instruments = [];
    private readonly Dictionary<Instrument, List<(double Value, KeyValuePair<string, object?>[] Tags)>> _measurements = [];

    public PrometheusExposition()
    {
        SandboxMeter.PublishInstruments();
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.IsObservable && instrument.Meter.Name is RuntimeMeterName or SandboxMeter.Name)
            {
                lock (_scrape)
                {
                    _instruments.Add(instrument);
                }

                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.MeasurementsCompleted = (instrument, _) =>
        {
            lock (_scrape)
            {
                _instruments.Remove(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<int>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.Start();
    }

    /// <summary>Reads every instrument now and renders them; one scrape at a time.</summary>
    public string Render()
    {
        lock (_scrape)
        {
            _measurements.Clear();
            _listener.RecordObservableInstruments();
            var text = new StringBuilder();
            foreach (var instrument in _instruments)
            {
                if (_measurements.TryGetValue(instrument, out var points))
                {
                    Family(text, instrument, points);
                }
            }

            return text.ToString();
        }
    }

    public void Dispose() => _listener.Dispose();

    /// <summary>The instrument's name in Prometheus, e.g. dotnet.gc.pause.time (s, counter) as dotnet_gc_pause_time_seconds_total.</summary>
    public static string MetricName(Instrument instrument)
    {
        var name = Sanitize(instrument.Name);
        var unit = Unit(instrument);
        if (unit.Length > 0 && !name.EndsWith("_" + unit, StringComparison.Ordinal))
        {
            name += "_" + unit;
        }

        return IsCounter(instrument) ? name + "_total" : name;
    }

    // Called on the scraping thread, inside RecordObservableInstruments, so under the scrape lock.
    private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (!_measurements.TryGetValue(instrument, out var points))
        {
            _measurements[instrument] = points = [];
        }

        points.Add((value, tags.ToArray()));
    }

    private static void Family(StringBuilder text, Instrument instrument, List<(double Value, KeyValuePair<string, object?>[] Tags)> points)
    {
        var name = MetricName(instrument);
        if (instrument.Description is { Length: > 0 } description)
        {
            text.Append("# HELP ").Append(name).Append(' ').Append(description.Replace("\\", "\\\\", StringComparison.Ordinal).Replace("\n", "\\n", StringComparison.Ordinal)).Append('\n');
        }

        text.Append("# TYPE ").Append(name).Append(IsCounter(instrument) ? " counter\n" : " gauge\n");
        foreach (var (value, tags) in points)
        {
            text.Append(name);
            if (tags.Length > 0)
            {
                text.Append('{').AppendJoin(',', tags.Select(tag => $"{Sanitize(tag.Key)}=\"{LabelValue(tag.Value)}\"")).Append('}');
            }

            text.Append(' ').Append(Number(value)).Append('\n');
        }
    }

    private static bool IsCounter(Instrument instrument) => instrument.GetType().IsGenericType && instrument.GetType().GetGenericTypeDefinition() == typeof(ObservableCounter<>);

    private static string Unit(Instrument instrument)
    {
        var unit = instrument.Unit ?? string.Empty;
        if (unit.StartsWith('{') || unit.Length == 0)
        {
            return string.Empty; // an annotation such as {thread} counts things: no unit in the name
        }

        if (unit == "1")
        {
            return IsCounter(instrument) ? string.Empty : "ratio";
        }

        return Units.TryGetValue(unit, out var spelled) ? spelled : Sanitize(unit);
    }

    private static string Sanitize(string name)
    {
        var text = new StringBuilder(name.Length);
        foreach (var c in name)
        {
            var valid = char.IsAsciiLetterOrDigit(c) || c == '_';
            if (valid || (text.Length > 0 && text[^1] != '_'))
            {
                text.Append(valid ? c : '_');
            }
        }

        return text.Length > 0 && char.IsAsciiDigit(text[0]) ? "_" + text : text.ToString().TrimEnd('_');
    }

    private static string LabelValue(object? value) =>
        (Convert.ToString(value, CultureInfo.InvariantCulture) ?? string.Empty)
            .Replace("\\", "\\\\", StringComparison.Ordinal)
            .Replace("\"", "\\\"", StringComparison.Ordinal)
            .Replace("\n", "\\n", StringComparison.Ordinal);

    private static string Number(double value) => value switch
    {
        double.PositiveInfinity => "+Inf",
        double.NegativeInfinity => "-Inf",
        _ when double.IsNaN(value) => "NaN",
        _ => value.ToString("R", CultureInfo.InvariantCulture),
    };
}
