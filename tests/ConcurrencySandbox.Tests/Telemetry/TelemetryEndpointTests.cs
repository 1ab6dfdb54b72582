using System.Globalization;
using ConcurrencySandbox.Api.Telemetry;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.Telemetry;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Telemetry;

/// <summary>One server for the class: the tests read it and run in sequence, so each sees only its own requests in flight.</summary>
public sealed class TelemetryEndpointTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>
{
    [Fact]
    public async Task CountersMoveWhenWorkRuns()
    {
        var before = await SnapshotAsync();

        using var work = await shared.Client.GetAsync("/api/fanout?calls=8&delayMs=20&strategy=threadpool");
        var after = await SnapshotAsync();

        Assert.True(work.IsSuccessStatusCode);
        Assert.True(after.ThreadPool.CompletedWorkItemCount > before.ThreadPool.CompletedWorkItemCount);
        Assert.True(after.GC.TotalAllocatedBytes > before.GC.TotalAllocatedBytes);
        Assert.True(after.Process.CpuTimeMs > before.Process.CpuTimeMs);
    }

    [Fact]
    public async Task HistoryHoldsRecordedSamplesAfterTheGivenUptime()
    {
        // The recorder samples once a second on its own thread: wait for two samples, however slow this machine is.
        List<double> samples = [];
        await Eventually.TrueAsync(async () => (samples = await HistoryUptimesAsync("")).Count >= 2, "two telemetry samples in the history", TimeSpan.FromSeconds(60), TimeSpan.FromMilliseconds(200));

        var cut = samples[0];
        var later = await HistoryUptimesAsync($"?since={cut.ToString(CultureInfo.InvariantCulture)}");

        // A sample recorded between the two reads may follow, so the second answer starts with the first's tail.
        Assert.All(later, uptime => Assert.True(uptime > cut, $"sample at {uptime} s is not after {cut} s"));
        Assert.Equal(samples.Skip(1), later.Take(samples.Count - 1));
    }

    [Theory]
    [InlineData("-1")]
    [InlineData("soon")]
    public async Task HistoryRefusesABadSince(string since)
    {
        using var response = await shared.Client.GetAsync($"/api/telemetry/history?since={since}");

        await ProblemAssert.IsBadRequestNamingAsync(response, "since");
    }

    [Fact]
    public async Task EachSnapshotFieldLiesBetweenTheRuntimesOwnReadingsBeforeAndAfterTheRequest()
    {
        // The server runs in this process, so the runtime's counters read here bracket what the snapshot reports.
        // A full collection first makes every generation's count non-zero, so a field left at 0 fails; so do the other lower bounds.
        GC.Collect();
        var gcBefore = (GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2));
        var allocatedBefore = GC.GetTotalAllocatedBytes();
        var pauseBefore = GC.GetTotalPauseDuration().TotalMilliseconds;
        var cpuBefore = Environment.CpuUsage.TotalTime.TotalMilliseconds;
        var completedBefore = ThreadPool.CompletedWorkItemCount;
        var contentionBefore = Monitor.LockContentionCount;

        var snapshot = await SnapshotAsync();
        var pauseAfter = GC.GetTotalPauseDuration().TotalMilliseconds;
        var cpuAfter = Environment.CpuUsage.TotalTime.TotalMilliseconds;

        Assert.Equal(Environment.ProcessorCount, snapshot.ProcessorCount);
        Assert.InRange(snapshot.GC.Gen0Collections, gcBefore.Item1, GC.CollectionCount(0));
        Assert.InRange(snapshot.GC.Gen1Collections, gcBefore.Item2, GC.CollectionCount(1));
        Assert.InRange(snapshot.GC.Gen2Collections, gcBefore.Item3, GC.CollectionCount(2));
        Assert.InRange(snapshot.GC.TotalAllocatedBytes, allocatedBefore, GC.GetTotalAllocatedBytes());
        Assert.InRange(snapshot.GC.TotalPauseDurationMs, pauseBefore, pauseAfter);
        Assert.True(snapshot.GC.HeapSizeBytes > 0);
        Assert.InRange(snapshot.Process.CpuTimeMs, cpuBefore, cpuAfter);
        Assert.True(snapshot.Process.WorkingSetBytes > 0);
        Assert.True(snapshot.Process.OsThreadCount >= snapshot.ThreadPool.ThreadCount);
        Assert.True(snapshot.ThreadPool.ThreadCount > 0, "a pool thread served this very request");
        Assert.True(snapshot.ThreadPool.CompletedWorkItemCount >= completedBefore, "the snapshot counts the work items completed before it was asked for");
        Assert.Equal((ThreadPoolLimits.Read().MinWorkerThreads, ThreadPoolLimits.Read().MaxWorkerThreads), (snapshot.ThreadPool.MinWorkerThreads, snapshot.ThreadPool.MaxWorkerThreads));
        Assert.InRange(snapshot.LockContentionCount, contentionBefore, Monitor.LockContentionCount);
    }

    [Fact]
    public async Task InFlightRequestsCountsTheRequestsBeingServed()
    {
        var slow = shared.Client.GetAsync("/api/fanout?calls=1&delayMs=3000&strategy=async");

        // The snapshot request counts itself, so the slow request is being served once it reads 2.
        await Eventually.TrueAsync(async () => (await SnapshotAsync()).InFlightRequests == 2, "the slow request and the snapshot to be in flight together");
        using var done = await slow;
        Assert.Equal(1, (await SnapshotAsync()).InFlightRequests);
    }

    [Fact]
    public async Task RequestsStartedCountsEveryRequestOnTheApiPortThisOneIncluded()
    {
        var before = (await SnapshotAsync()).RequestsStarted;
        for (var i = 0; i < 5; i++)
        {
            using var health = await shared.Client.GetAsync("/healthz");
            Assert.True(health.IsSuccessStatusCode);
        }

        Assert.Equal(before + 6, (await SnapshotAsync()).RequestsStarted);
    }

    private async Task<List<double>> HistoryUptimesAsync(string query)
    {
        var history = await shared.Client.GetOkAsync<TelemetryHistory>($"/api/telemetry/history{query}");
        Assert.Equal(1, history.IntervalSeconds);
        return [.. history.Samples.Select(s => s.UptimeSeconds)];
    }

    private Task<RuntimeSnapshot> SnapshotAsync() => shared.Client.GetOkAsync<RuntimeSnapshot>("/api/telemetry");
}
