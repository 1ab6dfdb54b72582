namespace ConcurrencySandbox.Contracts.Seeds;

/// <summary>Seed 001's published figures (2011, .NET 4, F#, YourKit), printed beside today's.</summary>
public static class Seed001Figures
{
    /// <summary>The pooled (SAEA) server's heap against the allocation-heavy one's: "around half the size".</summary>
    public const double PooledHeapShare = 0.5;

    /// <summary>"The process memory is 15MB less."</summary>
    public const double ProcessMemorySavedMegabytes = 15;

    /// <summary>Allocations the pool removed in the 5-minute run: "310,188 of them, that's 27% of the total garbage".</summary>
    public const long AllocationsRemoved = 310_188;

    public const double AllocationsRemovedShareOfGarbage = 0.27;
}
