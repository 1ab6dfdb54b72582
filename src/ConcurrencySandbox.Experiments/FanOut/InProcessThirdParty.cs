using System.Runtime.CompilerServices;

namespace ConcurrencySandbox.Experiments.FanOut;

/// <summary>The third party stubbed inside the process, as in seed 003: it just waits, then answers.</summary>
public sealed class InProcessThirdParty(StubDice dice) : IThirdParty
{
    /// <remarks>
    /// Not inlined, like a third party's client library would not be: with dynamic PGO the JIT otherwise folds this wait
    /// into the caller, and a stack sample then shows the pool thread in CallBatch.RunAsync instead of in the call.
    /// </remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public CallAnswer Call(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var (waitMs, answer) = Plan(dice.Roll(behaviour), timeout);
        // Blocks the thread exactly as Thread.Sleep does, but wakes when the caller gives up.
        cancellationToken.WaitHandle.WaitOne(waitMs);
        cancellationToken.ThrowIfCancellationRequested();
        return answer;
    }

    public async Task<CallAnswer> CallAsync(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var (waitMs, answer) = Plan(dice.Roll(behaviour), timeout);
        await Task.Delay(waitMs, cancellationToken);
        return answer;
    }

    /// <summary>How long the call waits and what it answers then; a hang with no timeout waits until cancelled.</summary>
    private static (int WaitMs, CallAnswer Answer) Plan(StubDraw draw, TimeSpan timeout)
    {
        var answersTooLate = timeout != Timeout.InfiniteTimeSpan && draw.DelayMs > timeout.TotalMilliseconds;
        if (draw.Hangs || answersTooLate)
        {
            return ((int)timeout.TotalMilliseconds, CallAnswer.TimedOut(timeout));
        }

        return (draw.DelayMs, draw.Fails ? CallAnswer.Failed("the stub answered with an injected failure") : CallAnswer.Ok);
    }
}
