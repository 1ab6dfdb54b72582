using System.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>One request's outcome: when it completed (seconds since the variant began), how long it took, whether it succeeded.</summary>
public readonly record struct RequestSample(double CompletedSeconds, double LatencyMs, bool Ok)
{
    public double StartedSeconds => CompletedSeconds - LatencyMs / 1000;
}

/// <summary>
/// Collects request outcomes cheaply: one append under a short lock into the current interval's buffer.
/// The reporter swaps the buffer out once per interval; every sample is also kept for the variant's totals, and
/// every request with its completion time for the per-request timeline and the peak-step mean.
/// </summary>
public sealed class LatencyRecorder(long startTimestamp)
{
    private readonly object _gate = new();
    private readonly List<RequestSample> _requests = [];
    private readonly List<double> _all = [];
    private List<double> _current = [];
    private long _currentFailed;
    private long _allFailed;
    private double[] _previous = [];
    private long _previousFailed;

    public LatencyRecorder() : this(Stopwatch.GetTimestamp())
    {
    }

    public void Record(double latencyMs, bool ok)
    {
        lock (_gate)
        {
            _current.Add(latencyMs);
            _requests.Add(new RequestSample(Stopwatch.GetElapsedTime(startTimestamp).TotalSeconds, latencyMs, ok));
            if (!ok)
            {
                _currentFailed++;
            }
        }
    }

    /// <summary>
    /// Takes the samples recorded since the previous call as one interval's statistics; with
    /// <paramref name="extendPrevious"/> the statistics cover the previous interval's samples too (a row that grows).
    /// Called by one reporter at a time.
    /// </summary>
    public LatencyStats TakeInterval(bool extendPrevious = false)
    {
        List<double> samples;
        long failed;
        lock (_gate)
        {
            samples = _current;
            failed = _currentFailed;
            _current = new List<double>(samples.Count);
            _currentFailed = 0;
        }
        _all.AddRange(samples);
        _allFailed += failed;
        _previous = extendPrevious ? [.. _previous, .. samples] : [.. samples];
        _previousFailed = extendPrevious ? _previousFailed + failed : failed;
        return LatencyStats.From(_previous, _previousFailed);
    }

    /// <summary>Every request recorded so far, in completion order.</summary>
    public RequestSample[] Requests()
    {
        lock (_gate)
        {
            return [.. _requests];
        }
    }

    /// <summary>Statistics over every interval taken so far.</summary>
    public LatencyStats Total() => LatencyStats.From([.. _all], _allFailed);
}
