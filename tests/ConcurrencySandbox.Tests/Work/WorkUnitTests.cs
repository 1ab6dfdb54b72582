using System.Diagnostics;
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

    [Fact]
    public void ComputeTimeGrowsWithCycles()
    {
        WorkUnit.Compute.RunBlocking(1_000_000, CancellationToken.None);
        var small = FastestSeconds(() => WorkUnit.Compute.RunBlocking(4_000_000, CancellationToken.None));
        var large = FastestSeconds(() => WorkUnit.Compute.RunBlocking(64_000_000, CancellationToken.None));

        // 16x the cycles; a loop the JIT removed or shortcut would give a ratio near 1. Only a lower bound: other
        // processes on a shared machine can only stretch the longer run (seen: 446x at a load average of 47).
        var ratio = large / small;
        Assert.True(ratio >= 4, $"64M cycles took {ratio:0.0}x as long as 4M");
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

    private static double FastestSeconds(Action action)
    {
        var samples = new double[5];
        for (var i = 0; i < samples.Length; i++)
        {
            var started = Stopwatch.GetTimestamp();
            action();
            samples[i] = Stopwatch.GetElapsedTime(started).TotalSeconds;
        }

        // The fastest run is the one least disturbed by other processes on a shared machine.
        return samples.Min();
    }
}
