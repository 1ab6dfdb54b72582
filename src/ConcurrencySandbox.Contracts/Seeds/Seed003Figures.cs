namespace ConcurrencySandbox.Contracts.Seeds;

/// <summary>Seed 003's fan-out figures (shared/seeds), printed beside today's by the load runner's sleep and fanout verdicts.</summary>
public static class Seed003Figures
{
    /// <summary>The third party's own wait.</summary>
    public const double StubSeconds = 4.0;

    /// <summary>The CLR pool's mean latency.</summary>
    public const double ClrMeanSeconds = 10.4;

    public const double ClrMaxSeconds = 19.8;

    /// <summary>The longest a call waited in the CLR pool's queue before it started.</summary>
    public const double ClrQueueWaitSeconds = 12.0;

    /// <summary>The custom (dedicated) pool's mean latency.</summary>
    public const double CustomMeanSeconds = 4.5;
}
