using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Running;
using Microsoft.Extensions.Time.Testing;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// A --find-capacity step ramps from 1 user at the quick profile's pace, then holds its load, and is judged over the hold
/// only (issue 37 item 6): the quick run's steps are reached the same way, so the two answer one question.
/// </summary>
public sealed class StepShapeTests
{
    private static readonly CapacityOptions Closed = new(null, Open: false, StartLoad: 2, MaxLoad: 64, TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(300));

    [Fact]
    public void AClosedStepClimbsFromOneUserAtTheQuickProfilesPaceThenHoldsItsLoadForTheStep()
    {
        var quick = Profiles.Create("quick", 1).Steps;
        Assert.Equal((quick[1].Target - quick[0].Target) / quick[0].During.TotalSeconds, CapacityOptions.QuickUsersPerSecond, precision: 9);

        var shape = Closed.ShapeAt(8);
        var ramp = Closed.RampAt(8);

        // 7 users to add at 4 per 6 s: 10.5 s, rounded up to whole 1-s intervals.
        Assert.Equal(TimeSpan.FromSeconds(11), ramp);
        Assert.Equal(ramp + Closed.Step, shape.Duration);
        Assert.Equal(Closed.LengthAt(8), shape.Duration);
        Assert.Equal(1, shape.UsersAt(TimeSpan.Zero));
        var climbing = Enumerable.Range(0, 110).Select(tenth => shape.UsersAt(TimeSpan.FromSeconds(tenth / 10.0))).ToList();
        Assert.Equal(climbing.Order(), climbing);
        Assert.Equal(7, climbing.Max());
        Assert.All(Enumerable.Range(0, 50), tenth => Assert.Equal(8, shape.UsersAt(ramp + TimeSpan.FromSeconds(tenth / 10.0))));
        // One user (the unloaded measure) and an open rate do not ramp.
        Assert.Equal(Closed.Step, Closed.ShapeAt(1).Duration);
        Assert.Equal(Closed.Step, (Closed with { Open = true }).ShapeAt(50).Duration);
    }

    [Theory]
    [InlineData(900, 100, null)]
    [InlineData(100, 900, "p99 900 ms")]
    public void AStepIsJudgedOverTheHoldAtItsLoadNotOverItsRamp(double rampP99Ms, double holdP99Ms, string? brokeBecause)
    {
        var step = FakeEngine(Closed, 8, load => load < 8 ? rampP99Ms : holdP99Ms);

        Assert.Equal(brokeBecause, new ServiceSlo(200, "SLO p99 200 ms").BrokeBy(Closed.HeldPart(step, 8)));
    }

    [Fact]
    public async Task TheSearchLeavesOutAStepWhoseRampAndHoldWouldPassItsMaxDuration()
    {
        var time = new FakeTimeProvider();
        var loads = new List<double>();
        var options = Closed with { MaxDuration = TimeSpan.FromSeconds(60) };
        var ramp = await CapacityRamp.RunAsync(options, 1, time, time.GetTimestamp(), (load, _) =>
        {
            loads.Add(load);
            time.Advance(options.LengthAt(load));
            return Task.FromResult<string?>(null);
        }, CancellationToken.None);

        // 2 (7 s), 4 (10 s), 8 (16 s) fit in 60 s; 16 users (23 s of ramp, 28 s in all) would not after 33 s.
        Assert.Equal([2, 4, 8], loads);
        Assert.StartsWith("the ramp reached its max duration (60 s, --max-duration-s) before 16 users", ramp.Bound);
    }

    /// <summary>
    /// One step as the engine cuts it: an interval row per reporting interval at the load applied at its middle,
    /// consecutive rows at one load merged into a step row; the service answers at <paramref name="p99MsAt"/> its load.
    /// </summary>
    private static VariantResult FakeEngine(CapacityOptions options, double load, Func<double, double> p99MsAt)
    {
        var shape = options.ShapeAt(load);
        var key = new VariantKey("8-users");
        var seconds = options.Interval.TotalSeconds;
        var intervals = Enumerable.Range(1, (int)(shape.Duration.TotalSeconds / seconds))
            .Select(i => shape.UsersAt(TimeSpan.FromSeconds((i - 0.5) * seconds)))
            .Select((users, i) => new IntervalRow(key, (i + 1) * seconds, "users", users, 10, TestStats.Uniform(10, 50, p99Ms: p99MsAt(users))))
            .ToList();
        var steps = intervals.GroupBy(i => i.Load)
            .Select(g => new StepRow(g.Key, g.First().ElapsedSeconds - seconds, g.Last().ElapsedSeconds, TestStats.Uniform(10 * g.Count(), 50, p99Ms: p99MsAt(g.Key))))
            .ToList();
        return new VariantResult(key, "/orders/1", "users", shape.Duration.TotalSeconds, intervals, [], TestStats.Uniform(10 * intervals.Count, 50, p99Ms: intervals.Max(i => i.Stats.P99Ms)))
        {
            Steps = steps,
        };
    }
}
