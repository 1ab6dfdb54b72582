using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Experiments.FanOut;

/// <summary>The calls of one fan-out: times and records each one, and completes when the last one ends.</summary>
internal sealed class CallBatch(int calls, TimeProvider timeProvider, CancellationToken cancellationToken)
{
    private readonly CallRecord?[] _records = new CallRecord?[calls];
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _remaining = calls;

    public Task Completion => _completion.Task;

    /// <summary>Every call's record; only complete when the caller has not given up.</summary>
    public IReadOnlyList<CallRecord> Records
    {
        get
        {
            // A call skipped or abandoned because of cancellation left no record.
            cancellationToken.ThrowIfCancellationRequested();
            return Array.ConvertAll(_records, call => call!);
        }
    }

    /// <summary>Hands each call to <paramref name="enqueue"/>, which decides where and when it runs.</summary>
    public void Queue(Action<Action> enqueue, Func<Task<CallAnswer>> call)
    {
        if (_records.Length == 0)
        {
            _completion.TrySetResult();
        }

        for (var i = 0; i < _records.Length; i++)
        {
            var index = i;
            var enqueuedAt = timeProvider.GetTimestamp();
            // RunAsync never throws, so nothing is lost by not observing its task here.
            enqueue(() => _ = RunAsync(index, enqueuedAt, call));
        }
    }

    /// <summary>
    /// Blocks the calling thread until every call has ended, as seed 003's request did. A plain kernel wait on
    /// purpose: Task.Wait would tell the pool that the thread is blocked and change the experiment.
    /// </summary>
    public void WaitBlocking()
    {
        WaitHandle.WaitAny([((IAsyncResult)_completion.Task).AsyncWaitHandle, cancellationToken.WaitHandle]);
        cancellationToken.ThrowIfCancellationRequested();
    }

    private async Task RunAsync(int index, long enqueuedAt, Func<Task<CallAnswer>> call)
    {
        try
        {
            if (cancellationToken.IsCancellationRequested)
            {
                return;
            }

            var startedAt = timeProvider.GetTimestamp();
            var threadId = Environment.CurrentManagedThreadId;
            var thread = CurrentThread();
            CallAnswer answer;
            FanOutInstruments.CallsActive.Increment();
            try
            {
                answer = await call();
            }
            catch (Exception) when (cancellationToken.IsCancellationRequested)
            {
                return;
            }
            catch (Exception e)
            {
                answer = CallAnswer.Failed($"the call threw {e.GetType().Name}: {e.Message}");
            }
            finally
            {
                FanOutInstruments.CallsActive.Decrement();
            }

            _records[index] = new CallRecord(
                index,
                timeProvider.GetElapsedTime(enqueuedAt, startedAt).TotalMilliseconds,
                timeProvider.GetElapsedTime(startedAt).TotalMilliseconds,
                answer.Outcome,
                answer.Error,
                threadId,
                thread);
        }
        finally
        {
            if (Interlocked.Decrement(ref _remaining) == 0)
            {
                _completion.TrySetResult();
            }
        }
    }

    private static CallThread CurrentThread() =>
        Thread.CurrentThread.IsThreadPoolThread ? CallThread.Pool
        : DedicatedThreadPool.IsDedicatedThread ? CallThread.Dedicated
        : CallThread.Other;
}
