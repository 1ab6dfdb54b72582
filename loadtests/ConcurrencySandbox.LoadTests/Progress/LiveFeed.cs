using System.Text;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>
/// The live page's event feed: every event of the run as one JSON line, kept in order, so a page that connects late
/// (or reconnects) gets the whole run so far, then each event as it comes. Publishing appends and wakes the readers:
/// a slow or gone browser never holds up the runner, each reader writes on its own thread.
/// </summary>
internal sealed class LiveFeed : IProgressListener
{
    private static readonly TimeSpan KeepAlive = TimeSpan.FromSeconds(15);

    private readonly object _gate = new();
    private readonly List<string> _events = [];
    // Each connected reader's next event (its place in _events), by reader.
    private readonly Dictionary<object, int> _readers = [];

    /// <summary>Readers connected now.</summary>
    public int Readers
    {
        get
        {
            lock (_gate)
            {
                return _readers.Count;
            }
        }
    }

    public void On(ProgressEvent e)
    {
        var json = e.ToJson();
        lock (_gate)
        {
            _events.Add(json);
            Monitor.PulseAll(_gate);
        }
    }

    /// <summary>
    /// Writes the events after number <paramref name="after"/> (SSE ids count from 1; 0 for all) to <paramref name="write"/>
    /// as they come, with a comment line after 15 s of silence, until writing throws (the browser left). Blocks: run it
    /// on the connection's own thread.
    /// </summary>
    public void Serve(long after, Action<string> write)
    {
        var reader = new object();
        lock (_gate)
        {
            _readers[reader] = (int)Math.Clamp(after, 0, _events.Count);
        }
        try
        {
            while (true)
            {
                int from;
                string[] batch;
                lock (_gate)
                {
                    from = _readers[reader];
                    if (from >= _events.Count)
                    {
                        Monitor.Wait(_gate, KeepAlive);
                    }
                    batch = [.. _events.Skip(from)];
                }
                var text = new StringBuilder();
                for (var i = 0; i < batch.Length; i++)
                {
                    text.Append("id: ").Append(from + i + 1).Append("\ndata: ").Append(batch[i]).Append("\n\n");
                }
                write(batch.Length == 0 ? ": keep-alive\n\n" : text.ToString());
                lock (_gate)
                {
                    _readers[reader] = from + batch.Length;
                    Monitor.PulseAll(_gate);
                }
            }
        }
        finally
        {
            lock (_gate)
            {
                _readers.Remove(reader);
                Monitor.PulseAll(_gate);
            }
        }
    }

    /// <summary>Waits until every connected reader has been sent every event, or <paramref name="limit"/> has passed; true when they all had it.</summary>
    public bool WaitUntilDelivered(TimeSpan limit)
    {
        var deadline = DateTime.UtcNow + limit;
        lock (_gate)
        {
            while (_readers.Values.Any(next => next < _events.Count))
            {
                var left = deadline - DateTime.UtcNow;
                if (left <= TimeSpan.Zero)
                {
                    return false;
                }
                Monitor.Wait(_gate, left);
            }
            return true;
        }
    }
}
