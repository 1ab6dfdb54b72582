using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// --find-capacity's unloaded step sets the baseline (the median of its rounds' p99s) and one user holds by definition, so
/// its record in the steps table never reads "broke" beside a headline of "held 1 user" (a busy machine, 2026-11-30: 7
/// requests, one of 1.6 s, a median of 230 ms, an SLO of 300 ms: the table said broke, the headline held 1 user). On
/// seeded rounds of one user with and without slow requests in one round: held, saying the baseline and what all its requests together
/// read when that passed the SLO; broken only by failures beyond the share that breaks any step.
/// </summary>
public sealed class UnloadedStepTests
{
    [Fact]
    public void TheUnloadedStepHoldsByItsBaselineAndSaysWhatAllItsRequestsReadButFailuresStillBreakIt()
    {
        var outliers = 0;
        var pastTheSlo = 0;
        for (var seed = 0; seed < 300; seed++)
        {
            var random = new Random(seed);
            var baseMs = 5 + (random.NextDouble() * 300);
            // Three rounds of one user, 2-8 requests each, within 10 % of the service's latency; some with one slow request.
            var rounds = Enumerable.Range(0, 3).Select(_ => Enumerable.Range(0, random.Next(2, 9)).Select(_ => baseMs * (1 + (random.NextDouble() * 0.1))).ToList()).ToList();
            // A busy second slows a round's few requests: 1 to 3 of them, 3-11 x as long.
            if (random.Next(3) == 0)
            {
                var round = rounds[random.Next(3)];
                round.AddRange(Enumerable.Range(0, random.Next(1, 4)).Select(_ => baseMs * random.Next(3, 12)));
                outliers++;
            }
            var p99s = rounds.Select(r => r.Max()).Order().ToList();
            var all = rounds.SelectMany(r => r).ToList();
            var baseline = new UnloadedBaseline(p99s[1], 3, p99s[0], p99s[2], all.Count);
            // A given SLO at least the baseline (one below it is refused before the ramp).
            var slo = new ServiceSlo(baseline.P99Ms * (1 + (random.NextDouble() * 1.5)), "SLO given");
            var timedOut = random.Next(4) == 0 ? random.Next(1, 3) : 0;
            var stats = TestStats.Of(all, failed: timedOut, timedOutAtMs: timedOut > 0 ? 30_000 : null);

            var judged = slo.JudgeBaseline(baseline, stats);

            var context = $"seed {seed}: {all.Count} requests, {timedOut} timed out, baseline {baseline.P99Ms:0.#} ms, SLO {slo.P99Ms:0.#} ms, all together {stats.P99Ms:0.#} ms: {judged}";
            if (timedOut > 0)
            {
                // Any timeout among at most 25 requests is more than the share that breaks a step.
                Assert.True(judged.Verdict == StepJudgement.Broke && judged.Why!.Contains("timed out", StringComparison.Ordinal), context);
                continue;
            }
            Assert.True(judged.Verdict != StepJudgement.Broke, context);
            if (slo.Judge(stats).Verdict == StepJudgement.Broke)
            {
                Assert.StartsWith($"the baseline, held by definition: {baseline.Describe()}; all its requests together read p99 ", judged.Why, StringComparison.Ordinal);
                pastTheSlo++;
            }
            else
            {
                Assert.Equal(slo.Judge(stats), judged);
            }
        }
        Assert.InRange(outliers, 50, 150);
        // The case the rule is for: all the requests together past the SLO, the baseline within it.
        Assert.True(pastTheSlo >= 30, $"{pastTheSlo} steps whose requests together passed the SLO");
    }
}
