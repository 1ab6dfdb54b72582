using ConcurrencySandbox.Contracts.Telemetry;

namespace ConcurrencySandbox.Experiments.Telemetry;

/// <summary>
/// Samples the runtime at a fixed interval on a thread of its own and keeps the latest samples.
/// A starved ThreadPool cannot delay it, so the history has no gaps exactly when the live endpoint would.
/// Taking and keeping a sample allocates nothing: the ring holds the snapshots' values.
/// </summary>
public sealed class TelemetryRecorder : IDisposable
{
    private readonly RuntimeSampler _sampler;
    private readonly RuntimeSnapshot[] _ring;
    private readonly ManualResetEventSlim _stop = new();
    private readonly Lock _gate = new();
    private readonly Thread _thread;
    private long _written;

    public TelemetryRecorder(RuntimeSampler sampler, TimeSpan interval, int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(interval, TimeSpan.Zero);
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        _sampler = sampler;
        Interval = interval;
        _ring = new RuntimeSnapshot[capacity];
        _thread = new Thread(Record) { IsBackground = true, Name = "telemetry-recorder" };
        _thread.Start();
    }

    public TimeSpan Interval { get; }

    /// <summary>The managed id of the recording thread (not a pool thread).</summary>
    public int ThreadId => _thread.ManagedThreadId;

    /// <summary>The kept samples taken after <paramref name="uptimeSeconds"/>, oldest first.</summary>
    public IReadOnlyList<RuntimeSnapshot> Since(double uptimeSeconds)
    {
        lock (_gate)
        {
            var count = (int)Math.Min(_written, _ring.Length);
            return Enumerable.Range(0, count)
                .Select(i => _ring[(_written - count + i) % _ring.Length])
                .Where(s => s.UptimeSeconds > uptimeSeconds)
                .ToList();
        }
    }

    public void Dispose()
    {
        _stop.Set();
        _thread.Join();
        _stop.Dispose();
    }

    private void Record()
    {
        do
        {
            var snapshot = _sampler.Sample();
            lock (_gate)
            {
                _ring[_written % _ring.Length] = snapshot;
                _written++;
            }
        }
        while (!_stop.Wait(Interval));
    }
}
