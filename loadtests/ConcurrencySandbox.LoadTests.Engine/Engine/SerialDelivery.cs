namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// Runs handed-in actions one at a time, in the order they were posted, with no lock held while one runs: a component
/// posts under its own lock (so the order is the order of its state) and calls <see cref="Run"/> after releasing it.
/// Whichever caller finds no one running runs everything queued; a caller that finds someone running returns at once,
/// its action run by that one. So no lock order can form between a component and what it calls.
/// </summary>
public sealed class SerialDelivery
{
    private readonly Queue<Action> _queue = [];
    private bool _running;

    /// <summary>True when nothing is queued and no one is running the queue.</summary>
    public bool Idle
    {
        get
        {
            lock (_queue)
            {
                return !_running && _queue.Count == 0;
            }
        }
    }

    /// <summary>Queues <paramref name="action"/>; it runs on the next <see cref="Run"/>. Cheap enough to call under a lock.</summary>
    public void Post(Action action)
    {
        lock (_queue)
        {
            _queue.Enqueue(action);
        }
    }

    /// <summary>
    /// Runs every queued action, unless another caller is running them now (it runs this one's too). An action that
    /// throws ends the run with the exception on this caller; the rest stay queued for the next run.
    /// </summary>
    public void Run()
    {
        lock (_queue)
        {
            if (_running)
            {
                return;
            }
            _running = true;
        }
        while (true)
        {
            Action next;
            lock (_queue)
            {
                if (!_queue.TryDequeue(out next!))
                {
                    _running = false;
                    return;
                }
            }
            try
            {
                next();
            }
            catch
            {
                lock (_queue)
                {
                    _running = false;
                }
                throw;
            }
        }
    }
}
