using System.Threading.Tasks.Sources;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// One request on the runner's own socket loop (<see cref="EpollLoop"/>), from its send to its outcome: the awaitable
/// the user's loop waits on. Its client pools it (taken at the send, given back once the outcome is read), so a request
/// allocates nothing. Completed on the loop's thread, which then runs what waited for it (the user's next send) itself.
/// </summary>
internal sealed class LoopExchange(EpollHttpClient client) : IValueTaskSource<RequestOutcome>
{
    private ManualResetValueTaskSourceCore<RequestOutcome> _outcome;

    public byte[] Request { get; private set; } = [];

    /// <summary>Where the answer's body goes (a probe's), or null to skip it.</summary>
    public Stream? Body { get; private set; }

    /// <summary>When the request is given up (a <see cref="System.Diagnostics.Stopwatch"/> timestamp): a timeout, recorded as a lower bound.</summary>
    public long DeadlineTimestamp { get; private set; }

    public CancellationToken Cancellation { get; private set; }

    public ValueTask<RequestOutcome> Begin(byte[] request, Stream? body, long deadlineTimestamp, CancellationToken cancellationToken)
    {
        Request = request;
        Body = body;
        DeadlineTimestamp = deadlineTimestamp;
        Cancellation = cancellationToken;
        _outcome.Reset();
        return new ValueTask<RequestOutcome>(this, _outcome.Version);
    }

    public void Complete(RequestOutcome outcome) => _outcome.SetResult(outcome);

    /// <summary>Ends the request because its run was cancelled: what waits for it throws, as <see cref="SendRequest"/> promises.</summary>
    public void Cancel() => _outcome.SetException(new OperationCanceledException(Cancellation));

    /// <summary>Ends the request by the run's cancellation when it was cancelled, else with <paramref name="outcome"/>.</summary>
    public void CompleteUnlessCancelled(RequestOutcome outcome)
    {
        if (Cancellation.IsCancellationRequested)
        {
            Cancel();
        }
        else
        {
            Complete(outcome);
        }
    }

    public RequestOutcome GetResult(short token)
    {
        try
        {
            return _outcome.GetResult(token);
        }
        finally
        {
            Body = null;
            Cancellation = default;
            client.Return(this);
        }
    }

    public ValueTaskSourceStatus GetStatus(short token) => _outcome.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _outcome.OnCompleted(continuation, state, token, flags);
}
