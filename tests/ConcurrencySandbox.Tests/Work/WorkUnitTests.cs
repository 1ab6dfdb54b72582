using ConcurrencySandbox.Experiments.Work;

namespace ConcurrencySandbox.Tests.Work;

public sealed class WorkUnitTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(1_000)]
    [InlineData(3_000_001)]
    public void ComputeRunsEveryCycle(long cycles)
    {
        // The loop sums 0..cycles-1: only a loop that really ran every cycle produces this value.
        var expected = cycles * (cycles - 1) / 2;

        Assert.Equal(expected, WorkUnit.Compute.RunBlocking(cycles, CancellationToken.None));
    }

    [Theory]
    [MemberData(nameof(BlockingUnits))]
    public void BlockingUnitsStopWhenCancelled(string unitName, long hugeAmount)
    {
        var unit = WorkUnit.All.Single(u => u.Name == unitName);
        using var cancellation = new CancellationTokenSource(TimeSpan.FromMilliseconds(50));

        Assert.ThrowsAny<OperationCanceledException>(() => unit.RunBlocking(hugeAmount, cancellation.Token));
    }

    public static TheoryData<string, long> BlockingUnits() => new()
    {
        { "compute", long.MaxValue },
        { "spinwait", long.MaxValue },
        { "sleep", 600_000 },
    };

    [Fact]
    public async Task OnlySleepHasAnAsyncForm()
    {
        Assert.Equal([RunMode.Sync, RunMode.TaskRun, RunMode.Async], WorkUnit.Sleep.Modes);
        Assert.Equal([RunMode.Sync, RunMode.TaskRun], WorkUnit.Compute.Modes);
        await Assert.ThrowsAsync<NotSupportedException>(() => WorkUnit.SpinWait.RunAsync(1, CancellationToken.None));
    }
}
