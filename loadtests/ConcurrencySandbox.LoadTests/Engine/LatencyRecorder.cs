namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// Collects request outcomes cheaply: one append under a short lock into the current interval's buffer.
/// The reporter swaps the buffer out once per interval; every sample is also kept for the variant's totals.
/// </summary>
public sealed class LatencyRecorder
{
    private readonly object _gate = new();
    private readonly List<double> _all = [];
    private List<double> _current = [];
    private long _currentFailed;
    private long _allFailed;

    public void Record(double latencyMs, bool ok)
    {
        lock (_gate)
        {
            _current.Add(latencyMs);
            if (!ok)
            {
                _currentFailed++;
            }
        }
    }

    /// <summary>Takes the samples recorded since the previous call as one interval's statistics.</summary>
    public LatencyStats TakeInterval()
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
        return LatencyStats.From([.. samples], failed);
    }

    /// <summary>Statistics over every interval taken so far.</summary>
    public LatencyStats Total() => LatencyStats.From([.. _all], _allFailed);
}
