using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;
using Microsoft.Extensions.Time.Testing;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// A step none of whose requests got an answer never held (issue 37, seen by its last helper: a --find-capacity step
/// whose requests all timed out was reported held): it breaks, whatever the SLO (given, derived from the baseline, or
/// none), saying why, its timeouts a lower bound and never a latency. Every place a step is judged: the rule
/// (<see cref="ServiceSlo.BrokeBy"/>), the search's probes (the part held, the ramp), a plain profile
/// (<see cref="CapacityFinding.OfProfile"/>) and the headline.
/// </summary>
public sealed class ServiceSloNoAnswerTests
{
    private const double TimedOutAtMs = 30_000;

    private static readonly UnloadedBaseline Baseline = new(100, 5, 90, 110, 240);

    [Theory]
    // No request answered: every one timed out, some failed without an answer, or none was even sent in the step.
    [InlineData("given", 0, 12, 0, 100, "no request answered in the step: 12 timed out (lower bound >= 30000 ms), 0 failed")]
    [InlineData("derived", 0, 12, 0, 100, "no request answered in the step: 12 timed out (lower bound >= 30000 ms), 0 failed")]
    [InlineData("none", 0, 12, 0, 100, "no request answered in the step: 12 timed out (lower bound >= 30000 ms), 0 failed")]
    [InlineData("none", 0, 3, 5, 100, "no request answered in the step: 3 timed out (lower bound >= 30000 ms), 5 failed")]
    [InlineData("derived", 0, 0, 4, 100, "no request answered in the step: 0 timed out, 4 failed")]
    [InlineData("none", 0, 0, 0, 100, "no request answered in the step: none was sent in it (every user or in-flight slot still waited on an earlier request)")]
    [InlineData("given", 0, 0, 0, 100, "no request answered in the step: none was sent in it (every user or in-flight slot still waited on an earlier request)")]
    // Some answered: more than 1 % failed breaks it under any SLO; within the failures, its p99 decides.
    [InlineData("none", 95, 5, 0, 100, "5 % of 100 requests failed (5 timed out)")]
    [InlineData("given", 99, 1, 0, 100, null)]
    [InlineData("given", 99, 1, 0, 900, "p99 900.1 ms")]
    // All answered.
    [InlineData("given", 100, 0, 0, 100, null)]
    [InlineData("derived", 100, 0, 0, 100, null)]
    [InlineData("derived", 100, 0, 0, 900, "p99 900.1 ms")]
    [InlineData("none", 100, 0, 0, 900, null)]
    public void AStepWithNoAnsweredRequestBreaksAndSaysWhyWithItsTimeoutsAsLowerBounds(string slo, int answered, long timedOut, long connectionErrors, double answeredMs, string? brokeBy)
    {
        var stats = Step(answered, timedOut, connectionErrors, answeredMs);

        Assert.Equal(brokeBy, SloOf(slo).BrokeBy(stats));
    }

    [Fact]
    public async Task AClimbingStepWhoseHoldSentNoRequestBrokeAndTheSearchNarrowsBelowIt()
    {
        // Every user stuck on a request sent in the climb (they timed out after the step): the hold at 8 users sent nothing.
        var options = new CapacityOptions(null, Open: false, StartLoad: 2, MaxLoad: 16, TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(600));
        var key = new VariantKey("8-users");
        var climb = Step(0, 7, 0);
        var step = new VariantResult(key, "/orders/1", "users", 20, [], [], climb)
        {
            Steps = [new StepRow(4, 0, 10, climb), new StepRow(8, 15, 20, LatencyStats.Empty)],
        };
        var slo = ServiceSlo.Of(null, Baseline);

        var held = options.HeldPart(step, 8);
        var brokeBy = slo.BrokeBy(held);

        Assert.Equal(0, held.Requests);
        Assert.StartsWith("no request answered in the step: none was sent in it", brokeBy);
        var time = new FakeTimeProvider();
        var ramp = await CapacityRamp.RunAsync(options, 1, time, time.GetTimestamp(), (load, _) => Task.FromResult(load >= 8 ? slo.Judge(held) : new StepJudgement(StepJudgement.Held, null)), CancellationToken.None);
        Assert.Equal(8, ramp.Broke!.Load);
        Assert.Equal(brokeBy, ramp.Broke.BrokeBecause);
        Assert.Equal(7, ramp.Held);
    }

    [Theory]
    [InlineData(0, 12)]
    [InlineData(0, 0)]
    public void AOneStepProfileWithNoSloAndNoAnswerBrokeAtItsLoad(int answered, long timedOut)
    {
        var stats = Step(answered, timedOut, 0);
        var result = new VariantResult(new VariantKey("target"), "/x", "users", 6, [], [], stats) { Steps = [new StepRow(40, 0, 6, stats)] };

        var finding = CapacityFinding.OfProfile(result, null, (_, _) => null);

        Assert.True(double.IsPositiveInfinity(finding.Slo.P99Ms));
        Assert.Equal((null, 40.0), (finding.HeldLoad, finding.BrokeAt!.Value));
        Assert.StartsWith("no request answered in the step: ", finding.BrokeBecause);
    }

    [Fact]
    public void AProfileWhoseLowestStepAnsweredNothingSetsNoSloFromItsTimeouts()
    {
        var none = Step(0, 12, 0);
        var fine = Step(100, 0, 0);
        var result = new VariantResult(new VariantKey("target"), "/x", "users", 12, [], [], none)
        {
            Steps = [new StepRow(4, 0, 6, none), new StepRow(8, 6, 12, fine)],
        };

        var finding = CapacityFinding.OfProfile(result, null, (_, _) => null);

        Assert.Equal("no SLO: the lowest step answered no request, so it has no p99 to set one from (give --slo-p99-ms)", finding.Slo.Described);
        Assert.Equal((null, 4.0), (finding.HeldLoad, finding.BrokeAt!.Value));
        // Not 2 x the timeout read as a p99.
        Assert.DoesNotContain("60000", finding.Describe(), StringComparison.Ordinal);
    }

    [Fact]
    public void TheHeadlineSaysNoRequestWasAnsweredNeverAPercentOrALatency()
    {
        var broke = Step(0, 12, 3);
        var finding = new CapacityFinding("users", ServiceSlo.Of(null, Baseline), 4, 8, ServiceSlo.Of(null, Baseline).BrokeBy(broke), null, null, Broke: broke);

        var headline = Headline.Of(finding, null);

        Assert.Contains("Held 4 users; broke at 8 users: no request was answered (12 timed out, 3 failed).", headline.Text);
        Assert.DoesNotContain("%", headline.Text, StringComparison.Ordinal);
        Assert.DoesNotContain("p99", headline.Text, StringComparison.Ordinal);
    }

    [Fact]
    public void TheDiagnosisReadsATimeoutAsALowerBoundNotAsTheWaitARequestHoldsItsThreadFor()
    {
        // The sample service's /quotes under a burst of 125 (2026-11-29): every request timed out, and the paragraph said
        // "it holds a pool thread for its whole 60005 ms wait", a timeout read as a wait.
        var broke = RecordedBreak.InlinedHelperAt32Users;
        var inputs = (broke with { Result = broke.Result with { Total = Step(0, 125, 0) } }).Diagnose().Inputs;
        var diagnosis = StarvationDiagnosis.From(new DiagnosisInputs(125, "the peak's users", 1, 66, 1, 138, 63, "a call site")
        {
            Spell = new StarvedSpell(60.1, 0, 61.2, 63, 125, 125, null),
            ProcessorCount = 2,
            CpuMsPerRequest = 2,
            HoldMs = inputs.HoldMs,
            HoldIsLowerBound = inputs.HoldIsLowerBound,
        });

        Assert.Equal((30000.0, true), (inputs.HoldMs, inputs.HoldIsLowerBound));
        Assert.False(diagnosis.WaitKnown);
        Assert.Null(diagnosis.AsyncCapacity);
        Assert.Contains("how long it holds a pool thread is not known (no request was answered before the client gave up after at least 30000 ms, a lower bound, not a wait)", diagnosis.Describe(), StringComparison.Ordinal);
        Assert.DoesNotContain("whole 30000 ms wait", diagnosis.Describe(), StringComparison.Ordinal);
    }

    /// <summary>A step's requests: <paramref name="answered"/> answered in <paramref name="answeredMs"/>, the others timed out after <see cref="TimedOutAtMs"/> or failed without an answer.</summary>
    private static LatencyStats Step(int answered, long timedOut, long connectionErrors, double answeredMs = 100) =>
        LatencyStats.From(TestStats.Histogram(Enumerable.Repeat(answeredMs, answered)), new OutcomeCounts(answered, 0, timedOut, connectionErrors), TimedOutAtMs);

    private static ServiceSlo SloOf(string kind) => kind switch
    {
        "given" => ServiceSlo.Of(500, Baseline),
        "derived" => ServiceSlo.Of(null, Baseline),
        _ => new ServiceSlo(double.PositiveInfinity, "no SLO"),
    };
}
