using ConcurrencySandbox.Experiments.FanOut;

namespace ConcurrencySandbox.Tests.FanOut;

public sealed class StubTests
{
    [Fact]
    public void TheSameSeedDrawsTheSameFates()
    {
        var behaviour = new StubBehaviour(100, jitterMs: 50, failRate: 0.3, hangRate: 0.2);
        var (first, second) = (new StubDice(7), new StubDice(7));

        var firstDraws = Enumerable.Range(0, 50).Select(_ => first.Roll(behaviour)).ToList();
        var secondDraws = Enumerable.Range(0, 50).Select(_ => second.Roll(behaviour)).ToList();

        Assert.Equal(firstDraws, secondDraws);
    }

    [Fact]
    public void RatesAndJitterShapeTheDraws()
    {
        var dice = new StubDice(3);
        var draws = Enumerable.Range(0, 2000).Select(_ => dice.Roll(new StubBehaviour(100, jitterMs: 40, failRate: 0.5))).ToList();

        Assert.All(draws, draw => Assert.InRange(draw.DelayMs, 100, 140));
        Assert.InRange(draws.Count(draw => draw.Fails), 800, 1200);
        Assert.DoesNotContain(draws, draw => draw.Hangs);
    }

    [Theory]
    [InlineData(-1, 0, 0, 0)]
    [InlineData(0, -1, 0, 0)]
    [InlineData(0, 0, 1.5, 0)]
    [InlineData(0, 0, 0, -0.1)]
    [InlineData(0, 0, double.NaN, 0)]
    public void OutOfRangeBehaviourIsRefused(int delayMs, int jitterMs, double failRate, double hangRate) =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new StubBehaviour(delayMs, jitterMs, failRate, hangRate));

    [Fact]
    public async Task BlockingInProcessCallHoldsTheCallingThreadUntilItsCallerGivesUp()
    {
        var stub = new InProcessThirdParty(new StubDice(1));
        using var caller = new CancellationTokenSource();
        Exception? thrown = null;
        var thread = new Thread(() => thrown = Record.Exception(() => stub.Call(new StubBehaviour(60_000), Timeout.InfiniteTimeSpan, caller.Token)));

        thread.Start();

        // The call parks its thread in a kernel wait, and only the caller's cancellation releases it.
        await Eventually.TrueAsync(() => thread.ThreadState.HasFlag(ThreadState.WaitSleepJoin), "the calling thread to block in a wait");
        caller.Cancel();
        thread.Join();
        Assert.IsAssignableFrom<OperationCanceledException>(thrown);
    }
}
