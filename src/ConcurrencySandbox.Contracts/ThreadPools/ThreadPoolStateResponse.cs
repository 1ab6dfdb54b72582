namespace ConcurrencySandbox.Contracts.ThreadPools;

/// <summary>The API's <c>GET /api/threadpool</c> answer (and PUT's and reset's): the pool now, the start-up limits that reset returns to, and the facts that explain the pool's behaviour.</summary>
public sealed record ThreadPoolStateResponse(ThreadPoolSnapshot ThreadPool, ThreadPoolLimits Startup, int ProcessorCount, bool IsServerGC, string GCMode);
