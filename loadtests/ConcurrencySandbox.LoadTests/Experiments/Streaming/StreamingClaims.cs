using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.Platform.Statistics;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Experiments.Streaming;

/// <summary>
/// A pooled variant's figure as a share of allocating's: the ratio of the two medians over the steady state's windows
/// (<see cref="StreamingResult.Windows"/>), and a 95 % interval from the two medians' own (its ends are the ratios of
/// the far ends, so it covers both intervals at once); null ends when either median has no interval (under 6 windows).
/// </summary>
internal sealed record Share(string Variant, double Median, double? Low, double? High)
{
    public static Share Of(string variant, Estimate pooled, Estimate allocating) => new(
        variant,
        pooled.Median / allocating.Median,
        pooled.Low is { } pl && allocating.High is { } ah && ah > 0 && allocating.Low > 0 ? pl / ah : null,
        pooled.High is { } ph && allocating.Low is { } al && al > 0 ? ph / al : null)
    {
        NoIntervalBecause = Math.Min(pooled.Count, allocating.Count) < MedianInterval.MinimumCount
            ? Invariant($"below {MedianInterval.MinimumCount} windows")
            : "allocating's own interval reaches 0, so no share of it is bounded",
    };

    /// <summary>Why <see cref="Low"/> and <see cref="High"/> are null, when they are.</summary>
    public string NoIntervalBecause { get; init; } = "";

    public bool HasInterval => Low is not null && High is not null;

    /// <summary>
    /// "saea-pooled 4.1 % [2.0, 6.3] of allocating's", or with "[no 95 % CI: below 6 windows]". A share not told from 0
    /// (below 0, or its interval reaching 0: <see cref="Noise.Within"/>) and wholly at or below the claim's
    /// <paramref name="line"/> is the drop it measured, "saea-pooled dropped to none within noise (measured -0.3 % [-1.2,
    /// 0.1] of allocating's)"; one whose interval holds 100 % does not tell the two variants apart, "saea-pooled no
    /// difference measured (within noise: measured 98 % [90, 106] of allocating's)". The words say what was measured; the
    /// claim's verdict is <see cref="StreamingClaims"/>'s rule alone.
    /// </summary>
    public string Describe(double line)
    {
        var measured = (HasInterval ? Invariant($"{Median * 100:0.#} % [{Low * 100:0.#}, {High * 100:0.#}]") : Invariant($"{Median * 100:0.#} % [no 95 % CI: {NoIntervalBecause}]")) + " of allocating's";
        return $"{Variant} " + (Noise.Within(Median, Low, High) && (High ?? Median) <= line ? $"{DroppedToNone} (measured {measured})"
            : Low <= 1 && High >= 1 ? Noise.Describe(measured)
            : measured);
    }

    /// <summary>A pooled figure not told from 0: what pooling did to it, said as the drop it is.</summary>
    public const string DroppedToNone = "dropped to none within noise";
}

/// <summary>
/// Seed 001's three claims, each judged on its own from the steady state's windows: pooling removes the per-message
/// garbage, halves the heap, and costs less CPU. Each claim holds for every pooled variant or none: a claim is
/// confirmed when every pooled variant's interval lies on the claim's side of its line, refuted when every one lies on
/// the other side, and inconclusive when an interval straddles the line, has too few windows, or the variants disagree.
/// </summary>
internal static class StreamingClaims
{
    /// <summary>"Around half the size": a pooled heap at most this share of allocating's counts as halved.</summary>
    public const double HalvedHeapShare = 0.6;

    public static IReadOnlyList<Claim> Judge(StreamingResult allocating, IReadOnlyList<(string Name, StreamingResult Result)> pooled) =>
    [
        Judge("garbage gone", pooled, allocating, w => w.NetAllocatedBytesPerMessage, StreamingExperiment.PooledAllocationShare,
            Invariant($"at most {StreamingExperiment.PooledAllocationShare * 100:0} % of allocating's bytes per message net of idle; seed 001: {Seed001Figures.AllocationsRemoved:N0} allocations, {Seed001Figures.AllocationsRemovedShareOfGarbage * 100:0} % of all garbage, removed")),
        Judge("heap halved", pooled, allocating, w => w.HeapBytes, HalvedHeapShare,
            Invariant($"at most {HalvedHeapShare * 100:0} % of allocating's mean heap; seed 001: \"around half the size\"")),
        // All in, not net of idle: on a busy machine the idle process's rate is noise as large as the figure, and a share of a figure near 0 is no figure.
        Judge("less CPU", pooled, allocating, w => w.CpuMicrosecondsPerMessage, 1,
            "below 100 % of allocating's CPU per message, all in; seed 001: less CPU"),
    ];

    private static Claim Judge(string what, IReadOnlyList<(string Name, StreamingResult Result)> pooled, StreamingResult allocating, Func<StreamingWindow, double> figure, double line, string claim)
    {
        var reference = allocating.Windows(figure);
        if (reference.Count == 0 || pooled.Any(p => p.Result.Windows(figure).Count == 0))
        {
            return new(what, ClaimVerdict.Inconclusive, "no steady window in every variant", "[no figure]", claim);
        }
        var allocatingEstimate = Estimates.Of(reference);
        var shares = pooled.Select(p => Share.Of(p.Name, Estimates.Of(p.Result.Windows(figure)), allocatingEstimate)).ToList();
        var text = string.Join("; ", shares.Select(s => s.Describe(line)));
        var interval = Invariant($"(medians of {pooled.Select(p => p.Result.Windows(figure).Count).Append(reference.Count).Min()}+ steady windows)");
        if (shares.Any(s => !s.HasInterval))
        {
            return new(what, ClaimVerdict.Inconclusive, text, interval, $"too few windows for a 95 % CI; the claim: {claim}");
        }
        var verdict = shares.All(s => s.High <= line) ? ClaimVerdict.Confirmed
            : shares.All(s => s.Low > line) ? ClaimVerdict.Refuted
            : ClaimVerdict.Inconclusive;
        var why = verdict switch
        {
            ClaimVerdict.Confirmed => $"every interval at or below the line; the claim: {claim}",
            ClaimVerdict.Refuted => $"every interval above the line; the claim: {claim}",
            _ => shares.Any(s => s.High <= line) && shares.Any(s => s.Low > line)
                ? $"the pooled variants disagree; the claim: {claim}"
                : $"an interval straddles the line; the claim: {claim}",
        };
        return new(what, verdict, text, interval, why);
    }
}
