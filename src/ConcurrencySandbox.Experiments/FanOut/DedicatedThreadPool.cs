namespace ConcurrencySandbox.Experiments.FanOut;

/// <summary>
/// A fixed set of named threads the app owns, with its own queue: seed 003's custom thread pool. It starts
/// every queued item as soon as a thread is free, with none of the CLR pool's injection heuristics. Idle
/// threads sleep on a monitor (no spinning). Disposing lets the queued items finish, then stops the threads.
/// </summary>
public sealed class DedicatedThreadPool : IDisposable
{
    [ThreadStatic]
    private static DedicatedThreadPool? _owner;

    private readonly Queue<Action> _queue = new();
    private readonly Thread[] _threads;
    private bool _disposed;

    public DedicatedThreadPool(int threadCount, string name = "dedicated")
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(threadCount, 1);
        _threads = new Thread[threadCount];
        for (var i = 0; i < threadCount; i++)
        {
            _threads[i] = new Thread(Work) { IsBackground = true, Name = $"{name} {i + 1}/{threadCount}" };
            _threads[i].Start();
        }
    }

    /// <summary>True on a thread of any dedicated pool.</summary>
    public static bool IsDedicatedThread => _owner is not null;

    public int ThreadCount => _threads.Length;

    public int QueueLength
    {
        get
        {
            lock (_queue)
            {
                return _queue.Count;
            }
        }
    }

    /// <summary>Queues work for the next free thread. The work must not throw, as with ThreadPool.</summary>
    public void Enqueue(Action work)
    {
        lock (_queue)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _queue.Enqueue(work);
            Monitor.Pulse(_queue);
        }
    }

    public void Dispose()
    {
        lock (_queue)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            Monitor.PulseAll(_queue);
        }

        foreach (var thread in _threads)
        {
            thread.Join();
        }
    }

    private void Work()
    {
        _owner = this;
        while (true)
        {
            Action work;
            lock (_queue)
            {
                while (_queue.Count == 0)
                {
                    if (_disposed)
                    {
                        return;
                    }

                    Monitor.Wait(_queue);
                }

                work = _queue.Dequeue();
            }

            work();
        }
    }
}
