using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Running;
using Microsoft.Extensions.Time.Testing;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Every capacity step from the same state (issue 37 item 6), on an attached service: before each step after the first,
/// a bounded wait for the pool to shrink back to its size before the first step, and what the step started from.
/// </summary>
public sealed class StepStartsTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task EachStepAfterTheFirstWaitsForThePoolToShrinkBackToItsFirstSize()
    {
        var time = new FakeTimeProvider();
        var settle = Settle(time);

        var first = await settle.WaitAsync(() => 4, CancellationToken.None);
        // InlinedHelper's 64-users step left 78 threads; the runtime retires idle ones, here 4 a second.
        var grown = time.GetTimestamp();
        var second = await settle.WaitAsync(() => Math.Max(4, 78 - (4 * (int)time.GetElapsedTime(grown).TotalSeconds)), CancellationToken.None);

        Assert.Equal(new SummaryStepStart(4, "the pool at 4 threads, its size before the first step"), first);
        Assert.Equal(new SummaryStepStart(4, "the pool at 4 threads, back to its start size of 4 after 19 s"), second);
    }

    [Fact]
    public async Task APoolThatDoesNotShrinkBackWithinTheBoundIsSaidToBeInherited()
    {
        var time = new FakeTimeProvider();
        var settle = Settle(time);
        await settle.WaitAsync(() => 4, CancellationToken.None);
        var started = time.GetTimestamp();

        var inherited = await settle.WaitAsync(() => 78, CancellationToken.None);

        Assert.Equal(new SummaryStepStart(78, "inherited a pool of 78 threads grown by an earlier step (waited 30 s, --settle-s, for it to shrink back to 4)"), inherited);
        Assert.InRange(time.GetElapsedTime(started), Bound, Bound + PoolSettle.Period);
    }

    [Fact]
    public async Task APoolAlreadyBackNeedsNoWaitAndAPoolNeverReadIsNotKnown()
    {
        var time = new FakeTimeProvider();
        var settle = Settle(time);
        await settle.WaitAsync(() => 6, CancellationToken.None);
        var started = time.GetTimestamp();

        var back = await settle.WaitAsync(() => 5, CancellationToken.None);
        Assert.Equal(TimeSpan.Zero, time.GetElapsedTime(started));
        Assert.Equal(new SummaryStepStart(5, "the pool at 5 threads, back to its start size of 6"), back);

        var unread = await Settle(time).WaitAsync(() => null, CancellationToken.None);
        Assert.Equal(new SummaryStepStart(null, "not known: no reading of the pool's threads within 5 s"), unread);
    }

    // Each wait advances the fake clock by the time waited.
    /// <summary>
    /// The report's sentence on the steps' starts says each state once, with the steps it held for: a service whose runtime
    /// is not observed read "except: unloaded-1-user not known: the runtime is not observed (...); 2-users not known: the
    /// runtime is not observed (...); ..." for every step. Seeded searches of 2-9 steps, each settled, inherited (one of two
    /// pools) or not known.
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void EachStepStartIsSaidOnceWithTheStepsItHeldFor(int seed)
    {
        var random = new Random(seed);
        var notObserved = new SummaryStepStart(null, $"{StepStartsText.NotKnown}the runtime is not observed (its diagnostics channel is closed)");
        var states = new[]
        {
            new SummaryStepStart(4, "the pool at 4 threads, back to its start size of 4 after 3 s"),
            new SummaryStepStart(9, "inherited a pool of 9 threads grown by an earlier step (waited 1 s, --settle-s, for it to shrink back to 4)"),
            new SummaryStepStart(12, "inherited a pool of 12 threads grown by an earlier step (waited 1 s, --settle-s, for it to shrink back to 4)"),
            notObserved,
        };
        var steps = Enumerable.Range(0, random.Next(2, 10)).Select(i => $"{1 << i}-users").ToList();
        var starts = steps.ToDictionary(s => s, _ => states[random.Next(states.Length)]);
        var unobserved = steps.ToDictionary(s => s, _ => notObserved);

        var said = StepStartsText.Describe(starts);

        const string noneKnown = "No step's start is known: the runtime is not observed (its diagnostics channel is closed).";
        Assert.Equal(noneKnown, StepStartsText.Describe(unobserved));
        if (starts.Values.All(s => s == notObserved))
        {
            Assert.Equal(noneKnown, said);
            return;
        }
        foreach (var state in states.Skip(1).Where(starts.ContainsValue))
        {
            var held = steps.Where(s => starts[s] == state).ToList();
            Assert.Equal(1, said.Split(state.State).Length - 1);
            Assert.Contains($"{CountText.Listed(held)} {state.State}", said, StringComparison.Ordinal);
        }
        Assert.Equal(starts.Values.All(s => s == states[0]), said == "Each step started from the pool back at its size before the first step.");
    }

    private static PoolSettle Settle(FakeTimeProvider time) => new(Bound, time, (delay, _) =>
    {
        time.Advance(delay);
        return Task.CompletedTask;
    });
}
