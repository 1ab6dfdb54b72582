using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Experiments;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// The first screen's one plain sentence (<see cref="RunSummary.Answer"/>), worded by the analysis from the summary's
/// own fields, so every figure in it is one the tiles and tables print: what was tested (the seed introduced in words),
/// which variants answered everything and at what p99, which failed and how many, and how sure the verdict is.
/// "async and dedicated answered every request up to 40 users, p99 async 1031.2 ms, dedicated 1040.1 ms; threadpool failed 67.3 % of its 52 requests (35 timed out); ...".
/// </summary>
public static class PlainAnswer
{
    public static string Of(RunSummary r)
    {
        var tested = SeedReports.Introduce(r.Seed) is { } seed ? $"{r.Experiment} re-runs {seed}" : $"{r.Experiment} against {r.Target}";
        return $"{tested}: {Found(r)}.";
    }

    /// <summary>
    /// What the run found, without what was tested (a page of several runs, the matrix, says that once): what held and
    /// what failed by how much, then how sure the verdict is.
    /// </summary>
    /// <param name="effectSaid">The seed's effect was already said in words on the page: name it by its seed only.</param>
    public static string Found(RunSummary r, bool effectSaid = false)
    {
        var measured = r.Variants.Where(v => v.Requests > 0).ToList();
        if (measured.Count == 0)
        {
            return r.Partial is not null
                ? "the run was stopped before its first step ended, so nothing was measured and there is no verdict"
                : $"no {r.Words.Unit} were sent, so there is nothing to compare and no verdict";
        }
        var body = r.Capacity is { } capacity ? Capacity(capacity) : string.Join("; ", Variants(r, measured)) + ProfileSlo(r);
        return body + Sureness(r, effectSaid);
    }

    /// <summary>
    /// "; its SLO (p99 ≤ 250.5 ms) held up to 32 users and broke at 36 users": a `run --url` profile judged by an SLO as
    /// its headline judges it (the headline's own figures), so a page whose variants answered every request does not say
    /// only that while its headline says the service broke. Empty where the headline judged no SLO.
    /// </summary>
    private static string ProfileSlo(RunSummary r)
    {
        SummaryFigure? Figure(string name) => r.HeadlineFigures?.FirstOrDefault(f => f.Name == name);
        if (Figure("SLO p99") is not { } slo)
        {
            return "";
        }
        var held = Figure("held") is { } h ? $"held up to {ResponseCurve.LoadText(h.Value, h.Unit)}" : "held at no load tried";
        var broke = Figure("broke at") is { } b ? $" and broke at {ResponseCurve.LoadText(b.Value, b.Unit)}" : ", no load tried broke it";
        return Invariant($"; its SLO (p99 \u2264 {slo.Value:0.#} ms) {held}{broke}");
    }

    /// <summary>"held its SLO (p99 ≤ 500 ms) up to 12 users and broke it at 16 users (why)".</summary>
    private static string Capacity(SummaryCapacity c)
    {
        var held = c.Held is { } h ? $"held its SLO ({Slo(c)}) up to {ResponseCurve.LoadText(h, c.Unit)}" : $"held its SLO ({Slo(c)}) at no load tried";
        return held + (c.BrokeAt is { } b ? $" and broke it at {ResponseCurve.LoadText(b, c.Unit)}{(c.BrokeBecause is { } why ? $" ({why})" : "")}" : ", no load tried broke it");
    }

    /// <summary>
    /// The SLO as a first screen says it, "p99 ≤ 1062.9 ms"; how it was set (from one user's p99, on how many requests) is
    /// said once, under the headline. The whole description where there is no figure ("no SLO: ...").
    /// </summary>
    public static string Slo(SummaryCapacity c) => double.IsFinite(c.SloP99Ms) ? Invariant($"p99 ≤ {c.SloP99Ms:0.#} ms") : c.Slo;

    /// <summary>The variants that answered everything (grouped when their p99 reads the same), then each that failed or got no answer.</summary>
    private static IEnumerable<string> Variants(RunSummary r, IReadOnlyList<SummaryVariant> measured)
    {
        var unit = r.Words.Unit;
        var clean = measured.Where(v => v.Failed == 0).ToList();
        var upTo = measured.All(v => v.LoadUnit == "burst") ? "" : $" up to {ResponseCurve.LoadText(measured.Max(v => v.PeakLoad), measured[0].LoadUnit)}";
        if (clean.Count > 0)
        {
            var fastestFirst = clean.OrderBy(v => v.P99Ms).ToList();
            var p99s = fastestFirst.Select(P99).Distinct().ToList();
            yield return p99s.Count == 1
                ? $"{Names(fastestFirst)} answered every {Singular(unit)} at p99 {p99s[0]}{upTo}"
                : $"{Names(fastestFirst)} answered every {Singular(unit)}{upTo}, p99 " + string.Join(", ", fastestFirst.Select(v => $"{v.Name} {P99(v)}"));
        }
        foreach (var v in measured.Where(v => v.Failed > 0))
        {
            yield return v.Outcomes.Completed == 0
                ? $"{v.Name} got no answer to any of its {CountText.Of(v.Requests)} {unit}{How(v.Outcomes)}"
                : Invariant($"{v.Name} failed {v.Outcomes.FailedPercent:0.#} % of its {CountText.Of(v.Requests)} {unit}{How(v.Outcomes)}");
        }
    }

    private static string How(SummaryOutcomes o) => $" ({o.FailureParts()})";

    /// <summary>The p99 as the tiles and tables print it ("1001.3 ms", "\u2265 60000 ms"), so the page gives it one value.</summary>
    private static string P99(SummaryVariant v) => $"{ReportWriter.Latency(v, v.P99Ms, "p99Ms")} ms";

    private static string Names(IReadOnlyList<SummaryVariant> variants) =>
        variants.Count == 1 ? variants[0].Name : $"{string.Join(", ", variants.SkipLast(1).Select(v => v.Name))} and {variants[^1].Name}";

    private static string Singular(string unit) => unit.EndsWith('s') ? unit[..^1] : unit;

    /// <summary>
    /// "; seed 003's effect reproduced", "partly reproduced: 1 of 3 claims confirmed, 2 inconclusive" or "not reproduced: 1
    /// of 3 claims refuted, 2 inconclusive" by the verdict's own rule (<see cref="ClaimsVerdict"/>), with the rounds' 95 %
    /// CI when there is one.
    /// </summary>
    private static string Sureness(RunSummary r, bool effectSaid)
    {
        var claims = r.Claims ?? [];
        var refuted = ClaimsVerdict.Tally(claims, ClaimVerdict.Refuted);
        var ci = r.Rounds is { Figure: { } figure, Median: { } median } rounds
            ? $" ({figure} {rounds.Show(median)}{(rounds.Low is { } low && rounds.High is { } high ? $", 95 % CI {rounds.Show(low)} to {rounds.Show(high)}" : ", no 95 % CI")} over {CountText.Of(rounds.Rounds.Count, "round")})"
            : "";
        if (SeedReports.Effect(r.Seed) is not { } words)
        {
            // A user's service re-runs no seed: its verdict is the capacity or the diagnosis, already said.
            return "";
        }
        var effect = effectSaid ? "" : $" ({words})";
        if (Enum.TryParse<Outcome>(r.Outcome, out var outcome) && ClaimsVerdict.Partly(outcome, claims))
        {
            return $"; seed {r.Seed}'s effect{effect} partly reproduced: {ClaimsVerdict.Tally(claims, ClaimVerdict.Confirmed)}{ci}";
        }
        return r.Outcome switch
        {
            nameof(Outcome.Reproduced) => $"; seed {r.Seed}'s effect{effect} reproduced{ci}",
            nameof(Outcome.NotReproduced) => $"; seed {r.Seed}'s effect{effect} not reproduced{(refuted.Length > 0 ? $": {refuted}" : "")}{ci}",
            nameof(Outcome.Inconclusive) => $"; whether seed {r.Seed}'s effect{effect} holds is inconclusive{ci}: {Undecided(r)}",
            nameof(Outcome.Impossible) => "; no verdict: a figure cannot be true on this machine (flagged below)",
            nameof(Outcome.NotAssessed) => r.Partial is not null ? "; no verdict: the run was stopped before every variant ran" : "; not assessed: the variants the verdict needs did not all produce data",
            nameof(Outcome.NoVerdict) => "; figures only, no verdict (too short a load to judge)",
            _ => "",
        };
    }

    /// <summary>
    /// What to do about an inconclusive verdict: more rounds where too few gave no CI, a quieter machine or more rounds
    /// where the rounds' CI straddles the threshold; else the verdict below says why (a capacity search that held the
    /// top of its ramp, clients at their CPU limit), never a generic "run it again" that would not change it.
    /// </summary>
    private static string Undecided(RunSummary r) => r.Rounds switch
    {
        { Median: not null, Low: null } => "too few rounds to tell, so run it with more (--rounds)",
        { Low: not null } => "the 95 % CI straddles the verdict's threshold, so run it again on a quieter machine or with more rounds",
        _ => "the verdict below says why and what to change",
    };
}
