using ConcurrencySandbox.Contracts.Receive;
using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Experiments.Receive;

/// <summary>Runs one receive experiment: a fresh loopback connection, a sender thread and a receiver thread.</summary>
public static class ReceiveRunner
{
    /// <summary>
    /// Receives on a dedicated thread so its CPU clock and allocation counter see the receive loop and nothing else.
    /// Cancelling closes the connection, so even a receive blocked in the kernel returns at once.
    /// </summary>
    public static Task<ReceiveResult> RunAsync(ReceiveVariant variant, ReceivePlan plan, CancellationToken cancellationToken)
    {
        plan.Validate();
        if (cancellationToken.IsCancellationRequested)
        {
            // Counted too: a compare cancelled between two runs stops here.
            ReceiveInstruments.RunsCancelled.Increment();
            return Task.FromCanceled<ReceiveResult>(cancellationToken);
        }

        var completion = new TaskCompletionSource<ReceiveResult>(TaskCreationOptions.RunContinuationsAsynchronously);
        var receiver = new Thread(() => Run(variant, plan, completion, cancellationToken))
        {
            IsBackground = true,
            Name = $"receive-{variant.Name}",
        };
        ReceiveInstruments.RunsActive.Increment();
        receiver.Start();
        return completion.Task;
    }

    private static void Run(ReceiveVariant variant, ReceivePlan plan, TaskCompletionSource<ReceiveResult> completion, CancellationToken cancellationToken)
    {
        // The run leaves sandbox.receive.runs.active before its task completes, so whoever awaits it sees the count already down.
        Action complete;
        try
        {
            var result = Receive(variant, plan, cancellationToken);
            complete = () => completion.TrySetResult(result);
        }
        catch (Exception) when (cancellationToken.IsCancellationRequested)
        {
            ReceiveInstruments.RunsCancelled.Increment();
            complete = () => completion.TrySetCanceled(cancellationToken);
        }
        catch (Exception failure)
        {
            complete = () => completion.TrySetException(failure);
        }

        ReceiveInstruments.RunsActive.Decrement();
        complete();
    }

    private static ReceiveResult Receive(ReceiveVariant variant, ReceivePlan plan, CancellationToken cancellationToken)
    {
        using var connection = LoopbackConnection.Open();
        using var abort = cancellationToken.Register(connection.Dispose);
        var sender = MessageSender.Start(connection, plan, cancellationToken);
        ReceiveResult result;
        try
        {
            result = MessageReceiver.Receive(connection.Receiver, variant, plan, cancellationToken);
        }
        catch (Exception failure) when (!cancellationToken.IsCancellationRequested && sender.Failure is not null)
        {
            throw new IOException($"The sender failed: {sender.Failure.Message}", new AggregateException(failure, sender.Failure));
        }

        sender.Thread.Join();
        return result;
    }
}
