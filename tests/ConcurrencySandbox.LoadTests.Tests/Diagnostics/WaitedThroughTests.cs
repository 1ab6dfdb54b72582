using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// A hold whose users sat through it on requests sent before it (a settling interval's starvation spell, unjudged) sends
/// a handful of requests, answered fast, and read "held": its users waited longer than the SLO all the same (issue 37).
/// </summary>
public sealed class WaitedThroughTests
{
    [Fact]
    public void AClosedStepThatSentFewerRequestsThanItHadUsersBrokeWhenMoreThanOnePercentWaitedLongerThanTheSlo()
    {
        var random = new Random(37);
        for (var i = 0; i < 200; i++)
        {
            var users = 2 + random.Next(0, 60);
            var seconds = 1 + random.Next(0, 10);
            var slo = new ServiceSlo(100 + random.Next(0, 2000), "SLO (given)");
            var requests = 1 + random.Next(0, 2 * users);
            // Every answer well within the SLO: only the users that sent nothing can break it.
            var stats = TestStats.Of(Enumerable.Range(0, requests).Select(_ => slo.P99Ms * (0.1 + (0.5 * random.NextDouble()))));
            var why = $"step {i}: {users} users, {seconds} s, {requests} requests, SLO {slo.P99Ms} ms";

            var judged = slo.Judge(stats, 10, 10 + seconds, spell: null, users);

            var waited = users - requests;
            var broke = waited > 0 && seconds * 1000 > slo.P99Ms && 100.0 * waited / users > 1;
            Assert.True(broke == (judged.Verdict == StepJudgement.Broke), $"{why}: {judged.Verdict} {judged.Why}");
            if (broke)
            {
                Assert.Equal($"at least {waited} of its {users} users waited through its whole {seconds}-s step, longer than the SLO, on requests sent before it", judged.Why);
                Assert.Null(judged.SpellSeconds);
            }
            // An open step has no users to wait: judged on its requests alone.
            Assert.Equal(StepJudgement.Held, slo.Judge(stats, 10, 10 + seconds, spell: null, users: null).Verdict);
        }
    }
}
