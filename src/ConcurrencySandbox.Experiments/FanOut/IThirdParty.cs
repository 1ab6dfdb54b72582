namespace ConcurrencySandbox.Experiments.FanOut;

/// <summary>
/// The slow third party a request fans out to. Failures and timeouts come back as answers, never as
/// exceptions; only the caller's own cancellation throws.
/// </summary>
public interface IThirdParty
{
    /// <summary>Calls and blocks the calling thread until the answer or the timeout.</summary>
    CallAnswer Call(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken);

    /// <summary>Calls without holding a thread while waiting.</summary>
    Task<CallAnswer> CallAsync(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken);
}
