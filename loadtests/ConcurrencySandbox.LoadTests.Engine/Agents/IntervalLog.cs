using System.Globalization;
using System.Text;
using HdrHistogram;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// An agent's own HdrHistogram log (.hlog), line for line what HdrHistogram's <see cref="HistogramLogWriter"/> writes
/// (its header, then per interval its start, length, maximum and compressed histogram, in UTF-16), except that each
/// interval line takes the histogram as <see cref="HistogramWire"/> already encoded it for the coordinator: an interval
/// is compressed once, not once for the wire and again for the log.
/// </summary>
internal sealed class IntervalLog : IDisposable
{
    private readonly StreamWriter _log;

    /// <summary>Writes the log's header (format version, <paramref name="startTime"/>, legend) with HdrHistogram's own writer.</summary>
    public IntervalLog(Stream stream, DateTime startTime)
    {
        using (var header = new HistogramLogWriter(stream))
        {
            header.Write(startTime);
        }
        _log = new StreamWriter(stream, Encoding.Unicode, 1024, leaveOpen: true) { NewLine = "\n" };
    }

    /// <summary>Appends <paramref name="histogram"/>'s line, its compressed form given as <paramref name="encoded"/> (<see cref="HistogramWire.Encode"/> of it), and flushes it to disk.</summary>
    public void Append(HistogramBase histogram, string encoded)
    {
        var startSeconds = histogram.StartTimeStamp / 1000.0;
        var lengthSeconds = histogram.EndTimeStamp / 1000.0 - startSeconds;
        var maxSeconds = histogram.GetMaxValue() / 1_000_000.0;
        _log.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{startSeconds:F3},{lengthSeconds:F3},{maxSeconds:F3},{encoded}"));
        _log.Flush();
    }

    public void Dispose() => _log.Dispose();
}
