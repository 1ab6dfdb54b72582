namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>The figures the seeds reported (shared/seeds), printed beside today's measurements.</summary>
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

    /// <summary>Seed 004 on 4 cores: efficiency (sync / Task.Run x 100) by loop cycles.</summary>
    public static readonly IReadOnlyList<(long Cycles, double EfficiencyPercent)> Seed004Efficiency =
    [
        (1, 0.26), (100_000, 70), (1_000_000, 94), (10_000_000, 135), (100_000_000, 184), (1_000_000_000, 199),
    ];

    /// <summary>The seed 004 row nearest (in decades) to <paramref name="cycles"/>.</summary>
    public static (long Cycles, double EfficiencyPercent) Seed004Nearest(long cycles) =>
        Seed004Efficiency.MinBy(row => Math.Abs(Math.Log10(row.Cycles) - Math.Log10(Math.Max(1, cycles))));
}
