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

        // 16x the cycles; a loop the JIT removed or shortcut would give a ratio near 1. Wide margin for noisy cores.
        var ratio = large / small;
        Assert.InRange(ratio, 4, 64);
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
