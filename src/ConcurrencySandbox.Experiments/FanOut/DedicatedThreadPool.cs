namespace ConcurrencySandbox.Experiments.FanOut;

/// <summary>
/// A fixed set of named threads the app owns, with its own queue: seed 003's custom thread pool. It starts
/// every queued item as soon as a thread is free, with none of the CLR pool's injection heuristics. Idle
/// threads sleep on a monitor (no spinning). Disposing lets the queued items finish, then stops the threads.
/// </summary>
public sealed class DedicatedThreadPool : IDisposable
{
    [ThreadStatic]
    private static DedicatedThreadPool? owner;

    private readonly Queue<Action> queue = new();
    private readonly Thread[] threads;
    private bool disposed;

    public DedicatedThreadPool(int threadCount, string name = "dedicated")
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(threadCount, 1);
        threads = new Thread[threadCount];
        for (var i = 0; i < threadCount; i++)
        {
            threads[i] = new Thread(Work) { IsBackground = true, Name = $"{name} {i + 1}/{threadCount}" };
            threads[i].Start();
        }
    }

    /// <summary>True on a thread of any dedicated pool.</summary>
    public static bool IsDedicatedThread => owner is not null;

    public int ThreadCount => threads.Length;

    public int QueueLength
    {
        get
        {
            lock (queue)
            {
                return queue.Count;
            }
        }
    }

    /// <summary>Queues work for the next free thread. The work must not throw, as with ThreadPool.</summary>
    public void Enqueue(Action work)
    {
        lock (queue)
        {
            ObjectDisposedException.ThrowIf(disposed, this);
            queue.Enqueue(work);
            Monitor.Pulse(queue);
        }
    }

    public void Dispose()
    {
        lock (queue)
        {
            if (disposed)
            {
                return;
            }

            disposed = true;
            Monitor.PulseAll(queue);
        }

        foreach (var thread in threads)
        {
            thread.Join();
        }
    }

    private void Work()
    {
        owner = this;
        while (true)
        {
            Action work;
            lock (queue)
            {
                while (queue.Count == 0)
                {
                    if (disposed)
                    {
                        return;
                    }

                    Monitor.Wait(queue);
                }

                work = queue.Dequeue();
            }

            work();
        }
    }
}
