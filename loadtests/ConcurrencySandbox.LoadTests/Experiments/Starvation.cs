using System.Globalization;
using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>A variant and its latency with no load at all (what one request costs when nothing queues).</summary>
public sealed record Unloaded(string Name, double LatencyMs);

/// <summary>
/// Seed 003's verdict, shared by sleep and fanout: blocking work on the CLR pool starves it under load (mean 2.6 x the
/// stub's wait) while work that holds no pool thread stays near its unloaded latency. Judged at peak load, each variant
/// against its own unloaded latency. Timed-out requests are lower bounds: a mean that includes them is printed as
/// "at least", and only a ratio whose bound still clears <see cref="Ratio"/> counts as reproduced.
/// </summary>
public static class Starvation
{
    /// <summary>A blocking variant counts as starved when its slowdown at peak load is at least this many times the reference's.</summary>
    public const double Ratio = 2.0;

    public static Finding Assess(IReadOnlyList<VariantResult> results, Unloaded blockingUnloaded, Unloaded referenceUnloaded, Unloaded? customPool)
    {
        var blocking = results.FirstOrDefault(r => r.Key.Name == blockingUnloaded.Name);
        var reference = results.FirstOrDefault(r => r.Key.Name == referenceUnloaded.Name);
        if (blocking is null || reference is null)
        {
            return Finding.NotAssessed($"the {blockingUnloaded.Name} and {referenceUnloaded.Name} variants are both needed.");
        }
        var (blockingPeak, referencePeak) = (blocking.SentAtPeak(), reference.SentAtPeak());
        if (referencePeak.Censored)
        {
            return Finding.NotAssessed($"{Censoring(referencePeak)} for {reference.Key.Name}, the reference, so its slowdown is only a lower bound and no ratio can be drawn.");
        }
        if (double.IsNaN(referencePeak.CompletedMeanMs) || double.IsNaN(blockingPeak.AtLeastMeanMs))
        {
            return Finding.NotAssessed($"no request sent at peak load by {blocking.Key.Name} or {reference.Key.Name} has a latency or a bound.");
        }
        if ((PhysicalLimits.Latency($"{blocking.Key.Name}'s mean latency at peak load", blockingPeak.CompletedMeanMs, blockingUnloaded.LatencyMs)
            ?? PhysicalLimits.Latency($"{reference.Key.Name}'s mean latency at peak load", referencePeak.CompletedMeanMs, referenceUnloaded.LatencyMs)) is { } tooFast)
        {
            return Finding.Impossible([], tooFast);
        }
        var blockingSlowdown = blockingPeak.AtLeastMeanMs / blockingUnloaded.LatencyMs;
        var referenceSlowdown = referencePeak.CompletedMeanMs / referenceUnloaded.LatencyMs;
        var ratio = blockingSlowdown / referenceSlowdown;
        var peakQueue = blocking.PeakQueue?.ToString(CultureInfo.InvariantCulture) ?? "n/a";
        var name = blocking.Key.Name;
        var whole = SentSummary.Of(blocking.Sent);
        List<SeedComparison> comparisons =
        [
            new($"{name}: mean / unloaded latency", $"{Seed003Figures.ClrMeanSeconds / Seed003Figures.StubSeconds:0.0} x (mean {Seed003Figures.ClrMeanSeconds} s, {Seed003Figures.StubSeconds} s stub)",
                Slowdown(whole, blockingUnloaded)),
            new($"{name}: max", $"{Seed003Figures.ClrMaxSeconds} s", whole.Censored
                ? $"at least {whole.TimedOutAtMs / 1000:0.#} s ({Censoring(whole)})"
                : $"{blocking.Total.MaxMs / 1000:0.00} s"),
            new($"{name}: longest wait for work to start", $"{Seed003Figures.ClrQueueWaitSeconds} s",
                blocking.MaxQueueWaitMs is { } waitedMs ? $"{waitedMs / 1000:0.00} s (peak queue {peakQueue} items)" : $"not reported by this endpoint (peak queue {peakQueue} items)"),
        ];
        if (customPool is not null && results.FirstOrDefault(r => r.Key.Name == customPool.Name) is { } custom)
        {
            comparisons.Add(new($"{custom.Key.Name}: mean / unloaded latency", $"{Seed003Figures.CustomMeanSeconds / Seed003Figures.StubSeconds:0.00} x (custom pool, mean {Seed003Figures.CustomMeanSeconds} s)",
                Slowdown(SentSummary.Of(custom.Sent), customPool)));
        }
        var blockingFigure = blockingPeak.Censored
            ? $"at least {blockingSlowdown:0.0} x its unloaded {blockingUnloaded.LatencyMs:0} ms ({Censoring(blockingPeak)}: a lower bound)"
            : $"{blockingSlowdown:0.0} x its unloaded {blockingUnloaded.LatencyMs:0} ms ({blockingPeak.CompletedMeanMs:0} ms)";
        var measured = $"at peak load {name}'s mean latency was {blockingFigure} against {referenceSlowdown:0.0} x for {reference.Key.Name} ({referencePeak.CompletedMeanMs:0} ms)";
        var figure = new VerdictFigure($"{name} / {reference.Key.Name} slowdown at peak load", ratio, Ratio, ReproducedAbove: true, "0.0", " x") { LowerBound = blockingPeak.Censored };
        if (ratio >= Ratio)
        {
            return new(Outcome.Reproduced, comparisons, $"{measured}, the pool starvation seed 003 saw.") { Figure = figure };
        }
        return blockingPeak.Censored
            ? new(Outcome.NotAssessed, comparisons, $"{measured}; the lower bound of {ratio:0.0} is below {Ratio:0} x and the timed-out requests hide the rest.") { Figure = figure }
            : new(Outcome.NotReproduced, comparisons, $"{measured}, a ratio of {ratio:0.0}, below the {Ratio:0} x that would show starvation.") { Figure = figure };
    }

    /// <summary>"2.6 x (mean 2.60 s, unloaded 1000 ms)", or with timeouts "at least 60.0 x (36 of 61 timed out at 60 s: a lower bound)".</summary>
    private static string Slowdown(SentSummary sent, Unloaded unloaded)
    {
        if (double.IsNaN(sent.AtLeastMeanMs))
        {
            return "n/a (no request completed or timed out)";
        }
        var slowdown = sent.AtLeastMeanMs / unloaded.LatencyMs;
        return sent.Censored
            ? $"at least {slowdown:0.0} x ({Censoring(sent)}: a lower bound)"
            : $"{slowdown:0.0#} x (mean {sent.CompletedMeanMs / 1000:0.00} s, unloaded {unloaded.LatencyMs:0} ms)";
    }

    /// <summary>"36 of 61 requests timed out at 60 s".</summary>
    private static string Censoring(SentSummary sent) =>
        string.Create(CultureInfo.InvariantCulture, $"{sent.TimedOut} of {sent.Requests} requests timed out at {sent.TimedOutAtMs / 1000:0.#} s");
}
