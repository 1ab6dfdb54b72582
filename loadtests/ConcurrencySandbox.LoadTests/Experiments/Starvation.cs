using System.Globalization;
using ConcurrencySandbox.Experiments.FanOut;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>A variant and its latency with no load at all (what one request costs when nothing queues).</summary>
public sealed record Unloaded(string Name, double LatencyMs);

/// <summary>
/// Seed 003's verdict, shared by sleep and fanout: blocking work on the CLR pool starves it under load (mean 2.6 x the
/// stub's wait) while work that holds no pool thread stays near its unloaded latency. Judged at peak load, each variant
/// against its own unloaded latency.
/// </summary>
public static class Starvation
{
    /// <summary>A blocking variant counts as starved when its slowdown at peak load is at least this many times the reference's.</summary>
    public const double Ratio = 2.0;

    public static Finding Assess(IReadOnlyList<VariantResult> results, Unloaded blockingUnloaded, Unloaded referenceUnloaded, Unloaded? customPool)
    {
        var blocking = results.FirstOrDefault(r => r.Key.Name == blockingUnloaded.Name);
        var reference = results.FirstOrDefault(r => r.Key.Name == referenceUnloaded.Name);
        if (blocking is null || reference is null || reference.PeakLoadMeanMs <= 0)
        {
            return Finding.NotAssessed($"the {blockingUnloaded.Name} and {referenceUnloaded.Name} variants are both needed.");
        }
        var blockingSlowdown = blocking.PeakLoadMeanMs / blockingUnloaded.LatencyMs;
        var referenceSlowdown = reference.PeakLoadMeanMs / referenceUnloaded.LatencyMs;
        var ratio = blockingSlowdown / referenceSlowdown;
        var peakQueue = blocking.PeakQueue?.ToString(CultureInfo.InvariantCulture) ?? "n/a";
        var name = blocking.Key.Name;
        List<SeedComparison> comparisons =
        [
            new($"{name}: mean / unloaded latency", $"{Seed003Figures.ClrMeanSeconds / Seed003Figures.StubSeconds:0.0} x (mean {Seed003Figures.ClrMeanSeconds} s, {Seed003Figures.StubSeconds} s stub)",
                $"{blocking.Total.MeanMs / blockingUnloaded.LatencyMs:0.0} x (mean {blocking.Total.MeanMs / 1000:0.00} s, unloaded {blockingUnloaded.LatencyMs:0} ms)"),
            new($"{name}: max", $"{Seed003Figures.ClrMaxSeconds} s", $"{blocking.Total.MaxMs / 1000:0.00} s"),
            new($"{name}: longest wait for work to start", $"{Seed003Figures.ClrQueueWaitSeconds} s",
                blocking.MaxQueueWaitMs is { } waitedMs ? $"{waitedMs / 1000:0.00} s (peak queue {peakQueue} items)" : $"not reported by this endpoint (peak queue {peakQueue} items)"),
        ];
        if (customPool is not null && results.FirstOrDefault(r => r.Key.Name == customPool.Name) is { } custom)
        {
            comparisons.Add(new($"{custom.Key.Name}: mean / unloaded latency", $"{Seed003Figures.CustomMeanSeconds / Seed003Figures.StubSeconds:0.00} x (custom pool, mean {Seed003Figures.CustomMeanSeconds} s)",
                $"{custom.Total.MeanMs / customPool.LatencyMs:0.00} x (mean {custom.Total.MeanMs / 1000:0.00} s)"));
        }
        var measured = $"at peak load {name}'s mean latency was {blockingSlowdown:0.0} x its unloaded {blockingUnloaded.LatencyMs:0} ms ({blocking.PeakLoadMeanMs:0} ms) against {referenceSlowdown:0.0} x for {reference.Key.Name} ({reference.PeakLoadMeanMs:0} ms)";
        return ratio >= Ratio
            ? new(Outcome.Reproduced, comparisons, $"{measured}, the pool starvation seed 003 saw.")
            : new(Outcome.NotReproduced, comparisons, $"{measured}, a ratio of {ratio:0.0}, below the {Ratio:0} x that would show starvation.");
    }
}
