using System.Diagnostics;
using ConcurrencySandbox.Contracts.Telemetry;
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
        var sampler = new RuntimeSampler(clock, () => new RequestCounts(InFlight: 3, Started: 41));
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
        Assert.Equal((3, 41), (after.InFlightRequests, after.RequestsStarted));
    }

    [Fact]
    public void ASampleInSteadyStateAllocatesNothingOnTheSamplingThread()
    {
        var sampler = new RuntimeSampler(TimeProvider.System, () => default);
        for (var i = 0; i < 10; i++)
        {
            sampler.Sample();
        }

        // One-off allocations are not steady state: after a collection the next sample re-reads GC.GetGCMemoryInfo
        // (its answer is allocated, once per collection), and lazy one-time set-ups can land in a window (a CI run saw
        // 280 B in one window with no collection, while other tests read the same process counters). A sample that
        // allocated every time would leave no window of 200 at 0 B.
        var windows = new List<long>();
        for (var window = 0; window < 20; window++)
        {
            sampler.Sample();
            var before = GC.GetAllocatedBytesForCurrentThread();
            for (var i = 0; i < 200; i++)
            {
                sampler.Sample();
            }

            windows.Add(GC.GetAllocatedBytesForCurrentThread() - before);
            if (windows[^1] == 0)
            {
                return;
            }
        }

        Assert.Fail($"Every window of 200 samples allocated: {string.Join(", ", windows)} B.");
    }

    [Fact]
    public void ProcessStatReadsThreadsAndResidentPagesAfterACommandNameWithSpacesAndParentheses()
    {
        var line = "4242 (my (odd) app) S 1 4242 4242 0 -1 4194304 100 0 0 0 3 1 0 0 20 0 17 0 39015 53751197696 250 18446744073709551615 0"u8;

        var reading = ProcessStat.Parse(line, pageSizeBytes: 4096);

        Assert.Equal(17, reading.OsThreadCount);
        Assert.Equal(250L * 4096, reading.WorkingSetBytes);
    }

    [Fact]
    public void ProcessStatAgreesWithTheProcessClassOnThreadsAndWorkingSet()
    {
        using var release = new ManualResetEventSlim();
        var threads = Enumerable.Range(0, 20).Select(_ => new Thread(() => release.Wait())).ToList();
        threads.ForEach(thread => thread.Start());

        var reading = ProcessStat.Read();
        using var process = Process.GetCurrentProcess();
        var (processThreads, processWorkingSetBytes) = (process.Threads.Count, process.WorkingSet64);
        release.Set();
        threads.ForEach(thread => thread.Join());

        // Off Linux both sides are the Process class. The two reads are moments apart, so a pool thread may come or go between them, not the 20 held here.
        Assert.InRange(reading.OsThreadCount, processThreads - 5, processThreads + 5);
        Assert.InRange(reading.WorkingSetBytes, processWorkingSetBytes * 0.8, processWorkingSetBytes * 1.2);
    }
}
