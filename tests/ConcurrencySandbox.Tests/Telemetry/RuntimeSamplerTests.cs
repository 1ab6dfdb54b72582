using ConcurrencySandbox.Experiments.Telemetry;
using Microsoft.Extensions.Time.Testing;

namespace ConcurrencySandbox.Tests.Telemetry;

public sealed class RuntimeSamplerTests
{
    [Fact]
    public void CpuPercentIsCpuTimeOverWallTimeTimesProcessorsWithinZeroToHundred()
    {
        Assert.Equal(50, RuntimeSampler.CpuPercent(TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1), processorCount: 2), 6);
        Assert.Equal(0, RuntimeSampler.CpuPercent(TimeSpan.FromSeconds(1), TimeSpan.Zero, processorCount: 2));
        Assert.Equal(100, RuntimeSampler.CpuPercent(TimeSpan.FromSeconds(3), TimeSpan.FromSeconds(1), processorCount: 2));
    }

    [Fact]
    public async Task CountersMoveWhenWorkRunsAndTheCpuShareIsOverTheInjectedClocksElapsedTime()
    {
        var clock = new FakeTimeProvider();
        using var sampler = new RuntimeSampler(clock, () => 3);
        var before = sampler.Sample();

        await Task.WhenAll(Enumerable.Range(0, 20).Select(_ => Task.Run(() => GC.KeepAlive(new byte[100_000]))));
        GC.Collect(0);
        clock.Advance(TimeSpan.FromSeconds(10));
        var after = sampler.Sample();

        Assert.True(after.ThreadPool.CompletedWorkItemCount > before.ThreadPool.CompletedWorkItemCount);
        Assert.True(after.GC.TotalAllocatedBytes > before.GC.TotalAllocatedBytes);
        Assert.True(after.GC.Gen0Collections > before.GC.Gen0Collections);
        Assert.Equal(before.Timestamp + TimeSpan.FromSeconds(10), after.Timestamp);
        var cpuTime = TimeSpan.FromMilliseconds(after.Process.CpuTimeMs - before.Process.CpuTimeMs);
        Assert.Equal(RuntimeSampler.CpuPercent(cpuTime, TimeSpan.FromSeconds(10), Environment.ProcessorCount), after.Process.CpuPercent, tolerance: 1e-6);
        Assert.True(after.Process.OsThreadCount >= after.ThreadPool.ThreadCount);
        Assert.Equal(3, after.InFlightRequests);
    }
}
