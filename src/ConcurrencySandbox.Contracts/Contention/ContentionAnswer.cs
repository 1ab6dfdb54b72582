namespace ConcurrencySandbox.Contracts.Contention;

/// <summary>
/// One request's passage through the critical section: how long it waited and held it, the runtime's lock contention
/// count during the request (process-wide, so concurrent requests add to it) and the pool's threads afterwards.
/// </summary>
public sealed record ContentionAnswer(
    string Variant, int HoldMs, double WaitedMs, double HeldMs, long LockContentionDelta, int PoolThreadCount);
