using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.Contracts.ThreadPools;

namespace ConcurrencySandbox.Experiments.FanOut;

/// <summary>What one fan-out request asks for: how to run the calls, how many, how the third party behaves, and each call's timeout.</summary>
public sealed record FanOutPlan(FanOutStrategy Strategy, int Calls, StubBehaviour Stub, TimeSpan Timeout);

/// <summary>Runs one request's third-party calls with the chosen strategy and reports on every call.</summary>
public sealed class FanOutRunner(IThirdParty thirdParty, DedicatedThreadPool dedicatedPool, TimeProvider timeProvider)
{
    /// <summary>
    /// Runs the calls. With <c>threadpool</c> and <c>sync-over-async</c> the calling thread blocks until all have
    /// ended (the returned task is already complete); with <c>dedicated</c> and <c>async</c> it is released.
    /// </summary>
    public async Task<FanOutReport> RunAsync(FanOutPlan plan, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(plan.Calls);
        var before = ThreadPoolSnapshot.Capture();
        var startedAt = timeProvider.GetTimestamp();
        var batch = new CallBatch(plan.Calls, timeProvider, cancellationToken);
        var (stub, timeout) = (plan.Stub, plan.Timeout);
        switch (plan.Strategy)
        {
            case FanOutStrategy.ThreadPool:
                batch.Queue(QueueOnThreadPool, Blocking(() => thirdParty.Call(stub, timeout, cancellationToken)));
                batch.WaitBlocking();
                break;
            case FanOutStrategy.SyncOverAsync:
                batch.Queue(QueueOnThreadPool, Blocking(() => thirdParty.CallAsync(stub, timeout, cancellationToken).Result));
                batch.WaitBlocking();
                break;
            case FanOutStrategy.Dedicated:
                batch.Queue(dedicatedPool.Enqueue, Blocking(() => thirdParty.Call(stub, timeout, cancellationToken)));
                await batch.Completion.WaitAsync(cancellationToken);
                break;
            case FanOutStrategy.Async:
                batch.Queue(static work => work(), () => thirdParty.CallAsync(stub, timeout, cancellationToken));
                await batch.Completion.WaitAsync(cancellationToken);
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(plan), plan.Strategy, "Unknown fan-out strategy.");
        }

        var elapsedMs = timeProvider.GetElapsedTime(startedAt).TotalMilliseconds;
        return Report(plan.Strategy, elapsedMs, batch.Records, before, ThreadPoolSnapshot.Capture());
    }

    private static FanOutReport Report(
        FanOutStrategy strategy, double elapsedMs, IReadOnlyList<CallRecord> results, ThreadPoolSnapshot before, ThreadPoolSnapshot after) =>
        new(
            strategy.Name(),
            results.Count,
            elapsedMs,
            results,
            MsSummary.Of([.. results.Select(call => call.QueueWaitMs)]),
            MsSummary.Of([.. results.Select(call => call.DurationMs)]),
            results.Count(call => call.Outcome == CallOutcome.Ok),
            results.Count(call => call.Outcome == CallOutcome.Failed),
            results.Count(call => call.Outcome == CallOutcome.TimedOut),
            results.Select(call => call.ThreadId).Distinct().Count(),
            before,
            after);

    // The global queue, as QueueUserWorkItem from a request thread used in seed 003.
    private static void QueueOnThreadPool(Action work) => ThreadPool.QueueUserWorkItem(static item => item(), work, preferLocal: false);

    // A blocking call finishes before its task is returned, so the thread stays held for the whole call.
    private static Func<Task<CallAnswer>> Blocking(Func<CallAnswer> call) => () => Task.FromResult(call());
}
