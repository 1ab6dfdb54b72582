using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>Where a service breaks: the ramp's loads, the break rule, the cause at the break, and what a plain profile says.</summary>
public sealed class CapacityFindingTests
{
    private static readonly CapacityOptions Closed = new(null, Open: false, StartLoad: 2, MaxLoad: 20, TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(60));

    [Fact]
    public void TheRampDoublesFromItsStartAndEndsAtItsMaxLoad()
    {
        Assert.Equal([2, 4, 8, 16, 20], Closed.Loads());
        Assert.Equal([2, 4, 8, 16], (Closed with { MaxLoad = 16 }).Loads());
        Assert.Equal("requests/s", (Closed with { Open = true }).Unit);
    }

    [Fact]
    public void AStepsShapeHoldsItsLoadForTheStep()
    {
        var closed = Closed.ShapeAt(8);
        var open = (Closed with { Open = true }).ShapeAt(50);

        Assert.Equal(8, closed.UsersAt(TimeSpan.FromSeconds(4.9)));
        Assert.False(closed.IsOpen);
        Assert.True(open.IsOpen);
        Assert.Equal(50, open.RateAt(TimeSpan.FromSeconds(1)));
        Assert.Equal(TimeSpan.FromSeconds(5), open.Duration);
    }

    [Theory]
    [InlineData(100, 0, null)]
    [InlineData(250, 0, "p99 250 ms")]
    [InlineData(100, 1, null)]
    [InlineData(100, 2, "2 % of 100 requests failed")]
    public void AStepBreaksWhenItsP99PassesTheSloOrMoreThanOnePercentFail(double p99Ms, long failed, string? why)
    {
        Assert.Equal(why, CapacityFinding.BrokeBy(TestStats.Uniform(100, 100, failed, p99Ms: p99Ms), sloP99Ms: 200));
    }

    [Fact]
    public void TheCauseAtTheBreakIsPoolStarvationWhenTheDiagnosisSaysStarved()
    {
        var cause = CapacityFinding.CauseOf(Step(cpuPercent: 20), Observed(starved: true), 100, null);

        Assert.StartsWith("pool starvation (queue peaked at 60, 12 thread injections while starved for 6 s", cause);
    }

    [Fact]
    public void TheCauseIsTheCpuWhenThePoolWasNotShortAndTheProcessUsedItsCores()
    {
        Assert.Equal("CPU (the process used 97 % of its 2 cores)", CapacityFinding.CauseOf(Step(cpuPercent: 97), Observed(starved: false), 100, null));
    }

    [Fact]
    public void TheCauseIsTheUpstreamWhenLatencyGrewWithoutPoolShortageOrCpu()
    {
        var cause = CapacityFinding.CauseOf(Step(cpuPercent: 30), Observed(starved: false), 100, null);

        Assert.StartsWith("the upstream (p99 grew from 100 ms to 900 ms while the pool, at 50 threads, was not short", cause);
    }

    [Fact]
    public void WithoutTheObserverTheCauseIsNotClaimed()
    {
        Assert.Equal("cause not known: the runtime was not observed (pid 7 is not a .NET process)", CapacityFinding.CauseOf(Step(cpuPercent: 30), null, 100, "pid 7 is not a .NET process"));
    }

    [Fact]
    public void TheFindingSaysTheLoadHeldTheBreakAndItsCauseOrTheBoundThatEndedTheRamp()
    {
        var broke = new CapacityFinding("users", 105, 210, 8, 16, "p99 900 ms", "pool starvation (...)", null);
        var held = broke with { BrokeAt = null, BrokeBecause = null, Cause = null, HeldLoad = 20, Bound = "the ramp reached its max load (20 users, --max-load)" };

        Assert.Equal("Held 8 users; broke at 16 users (p99 900 ms; SLO p99 210 ms, unloaded p99 105 ms): pool starvation (...).", broke.Describe());
        Assert.Equal("Held 20 users without breaking (SLO p99 210 ms, unloaded p99 105 ms); the break is above: the ramp reached its max load (20 users, --max-load).", held.Describe());
    }

    [Fact]
    public void APlainProfileThatHeldSaysSoAndPointsToFindCapacity()
    {
        var text = CapacityFinding.OfProfile(Ramp(peakP99Ms: 150), starved: false);

        Assert.StartsWith("Held 40 users (p99 150 ms against 100 ms at 4 users", text);
        Assert.EndsWith("the break is above: run --find-capacity.", text);
    }

    [Fact]
    public void APlainProfileBrokenByLatencyOrStarvationSaysItBroke()
    {
        Assert.StartsWith("Broke by 40 users (p99 250 ms;", CapacityFinding.OfProfile(Ramp(peakP99Ms: 250), starved: false));
        Assert.StartsWith("Broke by 40 users (the pool starved;", CapacityFinding.OfProfile(Ramp(peakP99Ms: 150), starved: true));
    }

    private static VariantResult Ramp(double peakP99Ms)
    {
        var key = new VariantKey("target");
        var steps = Enumerable.Range(1, 10).Select(i => new StepRow(4 * i, 6 * (i - 1), 6 * i, TestStats.Uniform(100, 100, p99Ms: i == 10 ? peakP99Ms : 100))).ToList();
        var intervals = steps.Select(s => new IntervalRow(key, s.ToSeconds, "users", s.Load, 10, s.Stats)).ToList();
        return new VariantResult(key, "/x", "users", 60, intervals, [], TestStats.Uniform(1000, 100)) { Steps = steps };
    }

    private static VariantResult Step(double cpuPercent)
    {
        var key = new VariantKey("16-users");
        var telemetry = new[] { 20.0, cpuPercent }.Select((cpu, i) => new TelemetryRow(key, i + 1, default(RuntimeSnapshot) with { Process = new ProcessTelemetry(0, cpu, 0, 0) })).ToList();
        return new VariantResult(key, "/x", "users", 5, [], telemetry, TestStats.Uniform(100, 500, p99Ms: 900));
    }

    private static VariantObservation Observed(bool starved)
    {
        var inputs = new DiagnosisInputs(16, "the peak's users", 1, starved ? 10 : 50, 2, 60, 0, null)
        {
            Spell = starved ? new StarvedSpell(6, 0, 6, 12, 16, 0, 900) : StarvedSpell.None,
            ProcessorCount = 2,
        };
        var diagnosis = StarvationDiagnosis.From(inputs with { PeakQueueLength = starved ? 60 : 0 });
        return new VariantObservation("pid 1", 5, 1, [], null, null, diagnosis, null);
    }
}
