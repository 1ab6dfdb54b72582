using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Running;

/// <summary>
/// The one rule that says a load broke the service, for --find-capacity's steps and a plain profile's steps alike: its
/// p99 passed the SLO (given by --slo-p99-ms, else <see cref="CapacityOptions.DefaultSloFactor"/> x the unloaded p99,
/// at least <see cref="UnloadedBaseline.SloFloorMs"/>), or more than <see cref="Experiments.Experiment.MaxFailedPercent"/> %
/// of its requests failed or timed out. A starved pool alone never broke it: a spell that did not move p99 past the SLO
/// is "starved for N s; latency held". A p99 over the SLO by less than its own uncertainty (its low end,
/// <see cref="LatencyStats.P99LowMs"/>, at or under the SLO) is "at the SLO, within noise" (<see cref="WithinNoise"/>) and
/// counts as held: on a busy machine such a step flips either way run to run, so a search and a profile that judged it
/// broken would disagree on noise (issue 37). Timeouts stay lower bounds: a step with more than 1 % of them broke, certainly.
/// A break on p99 that rests on a starvation spell (<see cref="Judge(LatencyStats, double, double, StarvedSpell?)"/>: the
/// pool starved in the step) is confirmed before it is reported (<see cref="Confirmed"/>), by the next step run at or above
/// its load: the search repeats it (once a ramp, <see cref="CapacityOptions.RepeatSteps"/>), a profile's next step is the one
/// above. Confirmed, it broke as before; not, the spell was transient and the step counts as held, "starved for N s in one
/// round; held when repeated" (issue 37: a spell on the quick run's one process broke Audit at 20 users, where 24 to 36
/// then held; a spell's starved seconds smear over a whole 6-s step, the counters' samples judged by the p99 of the
/// interval after them, so how much of a step starved does not tell a transient spell from a sustained one: only a
/// second round does).
/// </summary>
/// <param name="P99Ms">The p99 the service must keep, in ms.</param>
/// <param name="Described">"SLO p99 40 ms (2 x the unloaded p99 of 20 ms: ...)": which SLO and where it came from.</param>
internal sealed record ServiceSlo(double P99Ms, string Described)
{
    /// <summary>The SLO given (<paramref name="givenP99Ms"/>), else the default one of <paramref name="baseline"/>, with how it was set.</summary>
    public static ServiceSlo Of(double? givenP99Ms, UnloadedBaseline baseline)
    {
        var p99Ms = givenP99Ms ?? baseline.DefaultSloMs;
        return new ServiceSlo(p99Ms, baseline.DescribeSlo(p99Ms, given: givenP99Ms is not null));
    }

    /// <summary>
    /// Why a load broke the SLO: no request of it got an answer (<see cref="NoAnswer"/>: a p99 out of reach is no p99
    /// within the SLO, whatever the SLO, an infinite one included), more than 1 % of its requests failed (timeouts
    /// included), or its p99 passed it beyond its noise (<see cref="WithinNoise"/>; a lower bound when timed-out requests
    /// reach its rank, which broke it whatever the noise); null when it held, or was at the SLO within noise.
    /// </summary>
    public string? BrokeBy(LatencyStats stats)
    {
        if (stats.Completed == 0)
        {
            return NoAnswer(stats);
        }
        var failedPercent = 100.0 * stats.Failed / stats.Requests;
        if (failedPercent > Experiments.Experiment.MaxFailedPercent)
        {
            var timedOut = stats.TimedOut > 0 ? Invariant($" ({stats.TimedOut} timed out)") : "";
            return Invariant($"{failedPercent:0.#} % of {stats.Requests} requests failed{timedOut}");
        }
        if (stats.P99Ms <= P99Ms || WithinNoise(stats) is not null)
        {
            return null;
        }
        var bound = stats.P99.IsLowerBound ? Invariant($" (a lower bound: {stats.TimedOut} of {stats.Requests} requests timed out)") : "";
        return Invariant($"p99 {stats.P99.Format()} ms{bound}");
    }

    /// <summary>How <paramref name="stats"/> stands against the SLO: broke (<see cref="BrokeBy"/>), held within noise (<see cref="WithinNoise"/>), or held.</summary>
    public StepJudgement Judge(LatencyStats stats) =>
        BrokeBy(stats) is { } why ? new StepJudgement(StepJudgement.Broke, why)
            : WithinNoise(stats) is { } noise ? new StepJudgement(StepJudgement.HeldWithinNoise, noise)
            : new StepJudgement(StepJudgement.Held, null);

    /// <summary>
    /// <see cref="Judge(LatencyStats)"/> of a step sent from <paramref name="fromSeconds"/> to <paramref name="toSeconds"/> of its
    /// run, with the run's starved spell (<paramref name="spell"/>, null when the runtime was not observed): a break on p99
    /// (none failed beyond the share that breaks it) in which the pool starved is to be confirmed
    /// (<see cref="StepJudgement.SpellSeconds"/>: the starved seconds in it). A break by failures is certain and one with
    /// no spell rests on none: neither is repeated. A closed step's <paramref name="users"/> (null for an open one) also
    /// break it when too many of them waited through it (<see cref="WaitedThrough"/>), a break as certain as failures.
    /// </summary>
    public StepJudgement Judge(LatencyStats stats, double fromSeconds, double toSeconds, StarvedSpell? spell, double? users = null)
    {
        var judged = Judge(stats);
        if (judged.Verdict != StepJudgement.Broke && users is { } closed && WaitedThrough(stats, closed, toSeconds - fromSeconds) is { } waited)
        {
            return new StepJudgement(StepJudgement.Broke, waited);
        }
        var starved = spell?.SecondsBetween(fromSeconds, toSeconds) ?? 0;
        return BrokeOnP99(judged, stats) && starved > 0 ? judged with { SpellSeconds = starved } : judged;
    }

    /// <summary>
    /// "at least 5 of its 8 users waited through its whole 6-s step, longer than the SLO, on requests sent before it": a
    /// closed step of <paramref name="users"/> users lasting <paramref name="seconds"/> that sent fewer requests than it had
    /// users, so at least the difference sent none in it, each waiting on a request sent before it (which an earlier step
    /// counts, a settling interval's unjudged) for longer than the step, itself longer than the SLO; more than
    /// <see cref="Experiments.Experiment.MaxFailedPercent"/> % of its users. Null otherwise: else a hold whose users sat on
    /// a spell's requests sends one request, answered fast, and reads held.
    /// </summary>
    public string? WaitedThrough(LatencyStats stats, double users, double seconds)
    {
        var waited = Math.Floor(users) - stats.Requests;
        return waited <= 0 || seconds * 1000 <= P99Ms || 100 * waited / users <= Experiments.Experiment.MaxFailedPercent ? null
            : Invariant($"at least {waited:0} of its {users:0} users waited through its whole {seconds:0.#}-s step, longer than the SLO, on requests sent before it");
    }

    /// <summary>
    /// The unloaded step's record (--find-capacity's one user). It is no ramp step: it sets the baseline, the median of its
    /// rounds' p99s, which the SLO is at least (a given SLO below it is refused), so one user held by definition and the
    /// headline says "held 1 user". Where all its requests together read a p99 past the SLO (a slow round of a few requests
    /// on a busy machine: 7 requests, one of 1.6 s, against a median of 230 ms, 2026-11-30), its record says held and why,
    /// not "broke" beside that headline; failures beyond the share that breaks a step still break it.
    /// </summary>
    public StepJudgement JudgeBaseline(UnloadedBaseline baseline, LatencyStats stats)
    {
        var judged = Judge(stats);
        return BrokeOnP99(judged, stats)
            ? new StepJudgement(StepJudgement.Held, $"the baseline, held by definition: {baseline.Describe()}; all its requests together read {judged.Why}")
            : judged;
    }

    /// <summary>Whether <paramref name="judged"/> broke on its p99 alone: some request answered and no more failed than the share that breaks a step.</summary>
    private static bool BrokeOnP99(StepJudgement judged, LatencyStats stats) =>
        judged.Verdict == StepJudgement.Broke && stats.Completed > 0 && 100.0 * stats.Failed / stats.Requests <= Experiments.Experiment.MaxFailedPercent;

    /// <summary>
    /// A transient break (<paramref name="first"/>, with <see cref="StepJudgement.SpellSeconds"/>) confirmed or not by the next
    /// step run at or above its load (<paramref name="next"/>, null when none could run: <paramref name="how"/> then says
    /// why): broke again, it broke ("...; confirmed when repeated"); held, it counts as held, "starved for 2 s in one round
    /// (p99 296.7 ms); held when repeated". A first judgement that is no transient break is returned as it is.
    /// </summary>
    public static StepJudgement Confirmed(StepJudgement first, StepJudgement? next, string how) =>
        first.SpellSeconds is not { } starved ? first
            : next is null ? first with { Why = $"{first.Why}; not confirmed: {how}", SpellSeconds = null }
            : next.BrokeBecause is not null ? first with { Why = Invariant($"{first.Why}; confirmed {how} (its first round starved for {starved:0.#} s)"), SpellSeconds = null }
            : new StepJudgement(StepJudgement.StarvedThenHeld, Invariant($"starved for {starved:0.#} s in one round ({first.Why}); held {how}"));

    /// <summary>
    /// "p99 301.2 ms at the SLO of 296.4 ms, within noise (95 % sure only that it is at least 280.1 ms, from 240 requests)": a
    /// step whose p99 passed the SLO by less than the p99's uncertainty from its request count, so it counts as held; null
    /// otherwise (within the SLO, or beyond it). A p99 that is a lower bound never reads so: its rank falls on timeouts only
    /// when more than 1 % of the requests timed out, which broke the SLO by failures first (<see cref="BrokeBy"/>).
    /// </summary>
    public string? WithinNoise(LatencyStats stats) =>
        stats.Completed == 0 || stats.P99Ms <= P99Ms || stats.P99LowMs > P99Ms ? null
            : Invariant($"p99 {stats.P99Ms:0.#} ms at the SLO of {P99Ms:0.#} ms, within noise ({100 * LatencyStats.P99LowConfidence:0} % sure only that it is at least {stats.P99LowMs:0.#} ms, from {CountText.Of(stats.Completed + stats.TimedOut, "request")})");

    /// <summary>
    /// "no request answered in the step: 12 timed out (lower bound >= 30000 ms), 0 failed": a step none of whose requests got
    /// an answer, its timeouts a lower bound on their latency (never a latency), its other failures counted; or none sent
    /// in it at all (every user still waiting on a request sent before it, which the step before counts).
    /// </summary>
    private static string NoAnswer(LatencyStats stats)
    {
        if (stats.Requests == 0)
        {
            return "no request answered in the step: none was sent in it (every user or in-flight slot still waited on an earlier request)";
        }
        var bound = stats.TimedOut == 0 ? ""
            : stats.TimedOutAtMs is { } atMs ? Invariant($" (lower bound >= {atMs:0.#} ms)")
            : " (lower bound: the client's timeout)";
        return Invariant($"no request answered in the step: {stats.TimedOut} timed out{bound}, {stats.Failed - stats.TimedOut} failed");
    }
}
