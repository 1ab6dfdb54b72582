namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>The figures seeds 003 and 000 reported (shared/seeds), printed beside today's; seed 004's live with the work units.</summary>
public static class SeedFigures
{
    /// <summary>Seed 003: the stub's wait, the CLR pool's mean, max and longest queue wait, the custom pool's mean (seconds).</summary>
    public const double Seed003StubSeconds = 4.0;
    public const double Seed003ClrMeanSeconds = 10.4;
    public const double Seed003ClrMaxSeconds = 19.8;
    public const double Seed003ClrQueueWaitSeconds = 12.0;
    public const double Seed003CustomMeanSeconds = 4.5;

    /// <summary>Seed 000: the first request's latency with 4 and with 40 bindings (seconds).</summary>
    public const double Seed000FirstRequest4Seconds = 1.8;
    public const double Seed000FirstRequest40Seconds = 37.7;
}
