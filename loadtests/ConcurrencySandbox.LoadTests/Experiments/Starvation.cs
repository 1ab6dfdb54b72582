using System.Globalization;
using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.Platform.Statistics;
using ConcurrencySandbox.Contracts.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>A variant and its latency with no load at all (what one request costs when nothing queues).</summary>
internal sealed record Unloaded(string Name, double LatencyMs);

/// <summary>
/// Seed 003's verdict, shared by sleep and fanout: blocking work on the CLR pool starves it under load (mean 2.6 x the
/// stub's wait) while work that holds no pool thread stays near its unloaded latency. Judged over the ramp (<see cref="OverRamp"/>), each variant
/// against its own unloaded latency. Timed-out requests are lower bounds: a mean that includes them is printed as
/// "at least", and only a ratio whose bound still clears <see cref="Ratio"/> counts as reproduced. One run of each
/// variant gives the ratio its 95 % CI by a seeded bootstrap over the ramp's send slices (docs/notebook/measurement.md); in
/// rounds (sleep) the rounds' CI states it instead (<see cref="Claim.OnVerdictFigure"/>).
/// </summary>
internal static class Starvation
{
    /// <summary>A blocking variant counts as starved when its slowdown over the ramp is at least this many times the reference's.</summary>
    public const double Ratio = 2.0;

    public static Finding Assess(IReadOnlyList<VariantResult> results, Unloaded blockingUnloaded, Unloaded referenceUnloaded, Unloaded? customPool)
    {
        var blocking = results.FirstOrDefault(r => r.Key.Name == blockingUnloaded.Name);
        var reference = results.FirstOrDefault(r => r.Key.Name == referenceUnloaded.Name);
        if (blocking is null || reference is null)
        {
            return Finding.NotAssessed($"the {blockingUnloaded.Name} and {referenceUnloaded.Name} variants are both needed.");
        }
        var (blockingSlices, referenceSlices) = (OverRamp(blocking), OverRamp(reference));
        var (blockingSent, referenceSent) = (SentSummary.Of(blockingSlices), SentSummary.Of(referenceSlices));
        var ramp = RampWords(blocking);
        if (referenceSent.Censored)
        {
            return Finding.NotAssessed($"{Censoring(referenceSent)} for {reference.Key.Name}, the reference, so its slowdown is only a lower bound and no ratio can be drawn.");
        }
        if (double.IsNaN(referenceSent.CompletedMeanMs) || double.IsNaN(blockingSent.AtLeastMeanMs))
        {
            return Finding.NotAssessed($"no request sent {ramp} by {blocking.Key.Name} or {reference.Key.Name} has a latency or a bound.");
        }
        if ((PhysicalLimits.Latency($"{blocking.Key.Name}'s mean latency {ramp}", blockingSent.CompletedMeanMs, blockingUnloaded.LatencyMs)
            ?? PhysicalLimits.Latency($"{reference.Key.Name}'s mean latency {ramp}", referenceSent.CompletedMeanMs, referenceUnloaded.LatencyMs)) is { } tooFast)
        {
            return Finding.Impossible([], tooFast);
        }
        var blockingSlowdown = blockingSent.AtLeastMeanMs / blockingUnloaded.LatencyMs;
        var referenceSlowdown = referenceSent.CompletedMeanMs / referenceUnloaded.LatencyMs;
        var ratio = blockingSlowdown / referenceSlowdown;
        // The same ratio on each pair of resampled ramps: requests sent in the same 0.1 s share what slowed them.
        var interval = Bootstrap.Interval(blockingSlices, referenceSlices, (b, r) =>
            SentSummary.Of(b).AtLeastMeanMs / blockingUnloaded.LatencyMs / (SentSummary.Of(r).CompletedMeanMs / referenceUnloaded.LatencyMs));
        var peakQueue = blocking.PeakQueue?.ToString(CultureInfo.InvariantCulture) ?? "n/a";
        var name = blocking.Key.Name;
        var max = blocking.Total.Max;
        var blockingFigure = Slowdown(blockingSent, blockingUnloaded);
        List<SeedComparison> comparisons =
        [
            new($"{name}: mean {ramp} / unloaded latency", $"{Seed003Figures.ClrMeanSeconds / Seed003Figures.StubSeconds:0.0} x (mean {Seed003Figures.ClrMeanSeconds} s, {Seed003Figures.StubSeconds} s stub)", blockingFigure),
            new($"{name}: max", $"{Seed003Figures.ClrMaxSeconds} s", MaxText(blocking)),
            new($"{name}: longest wait for work to start", $"{Seed003Figures.ClrQueueWaitSeconds} s",
                blocking.MaxQueueWaitMs is { } waitedMs ? $"{(blocking.Total.TimedOut > 0 ? "at least " : "")}{waitedMs / 1000:0.00} s (peak queue {peakQueue} items)" : $"not reported by this endpoint (peak queue {peakQueue} items)"),
        ];
        if (customPool is not null && results.FirstOrDefault(r => r.Key.Name == customPool.Name) is { } custom)
        {
            comparisons.Add(new($"{custom.Key.Name}: mean {ramp} / unloaded latency", $"{Seed003Figures.CustomMeanSeconds / Seed003Figures.StubSeconds:0.00} x (custom pool, mean {Seed003Figures.CustomMeanSeconds} s)",
                Slowdown(SentSummary.Of(OverRamp(custom)), customPool)));
        }
        var measured = $"{ramp} {name}'s mean latency was {blockingFigure} against {referenceSlowdown:0.0} x for {reference.Key.Name} ({referenceSent.CompletedMeanMs:0} ms)";
        var figure = new VerdictFigure($"{name} / {reference.Key.Name} slowdown {ramp}", ratio, Ratio, ReproducedAbove: true, "0.0", " x") { LowerBound = blockingSent.Censored };
        // The share of the reference's latency that is not the stub's wait: the most a 2x CPU speed change can move its slowdown by.
        var speedShare = Math.Max(0, referenceSent.CompletedMeanMs - referenceUnloaded.LatencyMs) / referenceSent.CompletedMeanMs;
        var slices = $"{name} sent {CountText.Of(blockingSent.Requests, "request")} in {CountText.Of(blockingSlices.Count, "send slice")} {ramp}, {reference.Key.Name} {CountText.Of(referenceSent.Requests)} in {CountText.Of(referenceSlices.Count)}";
        var latency = LatencyClaim(figure, interval, speedShare, slices, $"{name} {blockingFigure} / {reference.Key.Name} {referenceSlowdown:0.0} x");
        IReadOnlyList<Claim> claims =
        [
            latency,
            MaxClaim(max, blockingUnloaded, name, MaxText(blocking)),
            WaitClaim(blocking.MaxQueueWaitMs, blocking.Total.TimedOut > 0, blockingUnloaded, name),
        ];
        var judgement = latency.Verdict switch
        {
            ClaimVerdict.Confirmed => "the pool starvation seed 003 saw",
            ClaimVerdict.Refuted => Invariant($"below the {Ratio:0} x that would show starvation"),
            _ => $"no verdict on it: {latency.Why}",
        };
        return Finding.OfClaims(claims, comparisons, Invariant($"{measured}; the ratio {(figure.LowerBound ? "at least " : "")}{ratio:0.0} x {latency.Interval}: {judgement}.")) with { Figure = figure };
    }

    /// <summary>An extreme (the slowest request, the longest wait) has no CI: it is judged only when it clears its threshold.</summary>
    private const string Extreme = "[no 95 % CI: an extreme has none, so it is judged only when it clears its threshold]";

    /// <summary>
    /// Seed 003's first claim: under load the blocking variant's mean latency grows many times more than the reference's.
    /// Stated only when the ratio's 95 % CI (the seeded bootstrap over the ramp's send slices) clears
    /// <see cref="Ratio"/> and would still clear it after a 2x CPU speed change (<paramref name="speedShare"/>: the part of
    /// the reference's latency that is not the stub's wait); timed-out requests make the CI's ends lower bounds.
    /// </summary>
    /// <param name="slices">How many requests and send slices each variant had over the ramp, for the line that says why there is no CI.</param>
    private static Claim LatencyClaim(VerdictFigure figure, (double Low, double High)? interval, double speedShare, string slices, string text)
    {
        var figureText = $"{text} = {(figure.LowerBound ? "at least " : "")}{figure.Value:0.0} x the reference's slowdown";
        if (interval is not { } ci)
        {
            return new("latency under load", ClaimVerdict.Inconclusive, figureText, Invariant($"[no 95 % CI: fewer than {Bootstrap.MinimumCount} send slices over the ramp]"),
                $"too few requests sent over the ramp to resample: {slices}; a starved strategy sends only as many as come back, so longer steps (--profile seed003) may send more") { OnVerdictFigure = true };
        }
        var ciText = Invariant($"[{ci.Low:0.0}, {ci.High:0.0}]{(figure.LowerBound ? ", both ends lower bounds" : "")}");
        var side = figure.SideOf(ci.Low, ci.High, figure.LowerBound);
        // A 2x CPU speed change scales at most the reference's non-waiting share, so the ratio by at most 1 + that share.
        var robust = side switch
        {
            true => ci.Low / (1 + speedShare) >= Ratio,
            false => ci.High * (1 + speedShare) < Ratio,
            null => true,
        };
        var speed = Invariant($"the reference's non-waiting share was {speedShare * 100:0.#} %, so a 2x CPU speed change moves the ratio by at most that");
        var verdict = robust ? VerdictFigure.ClaimOf(side) : ClaimVerdict.Inconclusive;
        var why = (side, robust) switch
        {
            (true, true) => Invariant($"the CI clears the {Ratio:0} x that shows starvation, and {speed}; seed 003: 2.6 x against 1.1 x"),
            (false, true) => Invariant($"the CI lies below the {Ratio:0} x that would show starvation, and {speed}"),
            (_, false) => Invariant($"the CI clears {Ratio:0} x by less than a 2x CPU speed change could move it: {speed}"),
            _ when figure.LowerBound => Invariant($"the CI of a lower bound reaches below {Ratio:0} x: the timed-out requests hide the rest"),
            _ => Invariant($"the CI straddles the {Ratio:0} x that would show starvation"),
        };
        return new("latency under load", verdict, figureText, ciText, why) { OnVerdictFigure = true };
    }

    /// <summary>Seed 003's second claim: the slowest request took far longer than the stub (19.8 s for a 4 s stub, 5 x); an extreme, judged only when it clears <see cref="Ratio"/>.</summary>
    private static Claim MaxClaim(LatencyFigure max, Unloaded unloaded, string name, string text)
    {
        var figure = $"{name} max {text}";
        if (double.IsNaN(max.Ms))
        {
            return new("max latency", ClaimVerdict.Inconclusive, figure, Extreme, "no request was answered or timed out");
        }
        var times = max.Ms / unloaded.LatencyMs;
        var line = Invariant($"{(max.IsLowerBound ? "at least " : "")}{times:0.0} x the unloaded {unloaded.LatencyMs:0} ms");
        return times >= Ratio
            ? new("max latency", ClaimVerdict.Confirmed, figure, Extreme, Invariant($"{line}: at least one request took {Ratio:0} x the stub or more; seed 003: {Seed003Figures.ClrMaxSeconds / Seed003Figures.StubSeconds:0.0} x"))
            : new("max latency", ClaimVerdict.Inconclusive, figure, Extreme, Invariant($"{line}, below {Ratio:0} x: a longer run may hold a slower request, so an extreme below the line decides nothing"));
    }

    /// <summary>
    /// Seed 003's third claim: work waited in the pool's queue longer than the call itself before it started (12 s for a
    /// 4 s stub). An extreme, judged only when it clears the call's own time; with timed-out requests the longest wait
    /// reported is a lower bound: calls that never started report none.
    /// </summary>
    private static Claim WaitClaim(double? maxWaitMs, bool censored, Unloaded unloaded, string name)
    {
        if (maxWaitMs is not { } waitMs)
        {
            return new("wait to start", ClaimVerdict.Inconclusive, $"{name}: not reported by this endpoint", "[no figure]", "only the fan-out endpoint reports its calls' queue wait");
        }
        var figure = Invariant($"{name} longest wait {(censored ? "at least " : "")}{waitMs / 1000:0.00} s against the unloaded {unloaded.LatencyMs / 1000:0.00} s");
        return waitMs >= unloaded.LatencyMs
            ? new("wait to start", ClaimVerdict.Confirmed, figure, Extreme, Invariant($"work waited longer than the call itself; seed 003: {Seed003Figures.ClrQueueWaitSeconds:0} s for a {Seed003Figures.StubSeconds:0} s stub"))
            : new("wait to start", ClaimVerdict.Inconclusive, figure, Extreme, "no call waited as long as the call itself here, but a longer run may hold a longer wait, so an extreme below the line decides nothing");
    }

    /// <summary>The run's max latency: "at least 60 s (32 of 58 timed out)" when requests timed out, else "19.80 s".</summary>
    private static string MaxText(VariantResult v) => v.Total.Max is { IsLowerBound: true } max
        ? Invariant($"at least {(double.IsNaN(max.Ms) ? "the timeout" : $"{max.Ms / 1000:0.#} s")} ({v.Total.TimedOut} of {v.Total.Requests} timed out)")
        : Invariant($"{v.Total.MaxMs / 1000:0.00} s");

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

    /// <summary>"36 of 61 requests timed out at 60 s", "2 of 61 requests failed without an answer", or both.</summary>
    private static string Censoring(SentSummary sent) => string.Join(", ", new[]
    {
        sent.TimedOut > 0 ? Invariant($"{sent.TimedOut} of {sent.Requests} requests timed out at {sent.TimedOutAtMs / 1000:0.#} s") : null,
        sent.ConnectionErrors > 0 ? Invariant($"{sent.ConnectionErrors} of {sent.Requests} requests failed without an answer") : null,
    }.OfType<string>());

    /// <summary>
    /// The send slices the figures read: every request sent over the ramp, as seed 003's "average response time" was
    /// its whole 8-minute test's. The peak step alone holds too few for a CI: a starved strategy sends only as many
    /// requests as come back, and they come back together (the quick profile's 6 s peak step: 4 requests; its top
    /// quarter: 22 requests in 4 send slices).
    /// </summary>
    private static IReadOnlyList<SentSlice> OverRamp(VariantResult v) => v.Sent;

    /// <summary>"over the ramp (4-40 users)": the loads the figures read.</summary>
    private static string RampWords(VariantResult v)
    {
        var unit = v.LoadUnit == "rate" ? "requests/s" : v.LoadUnit;
        // The intervals after the load ended (in-flight requests draining) carry no load.
        var from = v.Intervals.Select(i => i.Load).Where(load => load > 0).DefaultIfEmpty(v.PeakLoad).Min();
        return from < v.PeakLoad ? Invariant($"over the ramp ({from:0.#}-{v.PeakLoad:0.#} {unit})") : Invariant($"at {v.PeakLoad:0.#} {unit}");
    }
}
