using System.Net;
using System.Net.Http.Json;
using ConcurrencySandbox.Api.Control;
using ConcurrencySandbox.Api.ThreadPools;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.Telemetry;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Tests.Hosting;
using ConcurrencySandbox.Tests.Metrics;
using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Tests.Control;

/// <summary>
/// A real API child whose ThreadPool is deadlocked: its maximum is the floor and each fan-out request blocks its
/// pool thread on calls queued to the same pool, so once the floor's worth of requests run, nothing can finish.
/// Timeouts here are hang guards only.
/// </summary>
[Trait("Category", "Slow")]
public sealed class ControlPlaneStarvationTests
{
    private const string BlockingFanOut = "/api/fanout?calls=2&delayMs=10&strategy=threadpool";
    private static readonly int Floor = ThreadPoolLimits.SafeMaxThreadsFloor;
    private static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(90);

    [Fact]
    public async Task WhileThePoolIsDeadlockedTheControlPlaneAnswersAndItsPutLetsTheExperimentsFinish()
    {
        await using var child = await ApiChildProcess.StartAsync($"ThreadPool:MaxWorkerThreads={Floor}");
        var experiments = Enumerable.Range(0, Floor * 4).Select(_ => child.Api.GetAsync(BlockingFanOut)).ToList();

        await WaitUntilDeadlockedAsync(child);

        Assert.Contains(experiments, e => !e.IsCompleted);
        Assert.Equal(HealthStatus.Ok, await child.Control.GetFromJsonAsync<HealthStatus>(ControlRoutes.Health));
        var telemetry = await child.Control.GetFromJsonAsync<RuntimeSnapshot>(ControlRoutes.Telemetry);
        Assert.True(telemetry!.ThreadPool.PendingWorkItemCount > 0, "the deadlocked pool should have queued work");
        using var history = await child.Control.GetAsync(ControlRoutes.TelemetryHistory);
        Assert.Equal(HttpStatusCode.OK, history.StatusCode);
        var metrics = PrometheusExpositionTests.Samples(await child.Control.GetStringAsync(ControlRoutes.Metrics));
        Assert.True(metrics.Single(m => m.Key.StartsWith("dotnet_thread_pool_queue_length", StringComparison.Ordinal)).Value > 0, "the scrape sees the queued work");

        using var put = await child.Control.PutAsJsonAsync(ControlRoutes.ThreadPool, new { minWorkerThreads = 400, maxWorkerThreads = 400 });

        Assert.Equal(HttpStatusCode.OK, put.StatusCode);
        Assert.Equal(400, (await put.Content.ReadFromJsonAsync<ThreadPoolStateResponse>())!.ThreadPool.MinWorkerThreads);
        var answers = await Task.WhenAll(experiments).WaitAsync(HangGuard);
        Assert.All(answers, answer => Assert.Equal(HttpStatusCode.OK, answer.StatusCode));
    }

    [Fact]
    public async Task SigtermEndsADeadlockedProcessThroughTheWatchdogWhichNamesTheAbandonedRequests()
    {
        await using var child = await ApiChildProcess.StartAsync($"ThreadPool:MaxWorkerThreads={Floor}", "Control:ShutdownSeconds=2");
        var experiments = Enumerable.Range(0, Floor * 2).Select(_ => child.Api.GetAsync(BlockingFanOut)).ToList();
        await WaitUntilDeadlockedAsync(child);

        child.Terminate();

        Assert.Equal(ShutdownWatchdog.AbandonedExitCode, await child.WaitForExitAsync(HangGuard));
        Assert.Contains(child.Output, line => line.StartsWith("Shutdown watchdog: abandoned GET " + BlockingFanOut, StringComparison.Ordinal));
        await Task.WhenAll(experiments.Select(e => e.ContinueWith(_ => { }, TaskScheduler.Default)));
    }

    [Fact]
    public async Task SigtermOnAnIdleProcessStopsCleanlyWithoutTheWatchdog()
    {
        await using var child = await ApiChildProcess.StartAsync();
        Assert.Equal(HttpStatusCode.OK, (await child.Api.GetAsync(ControlRoutes.Health)).StatusCode);

        child.Terminate();

        Assert.Equal(0, await child.WaitForExitAsync(HangGuard));
        Assert.DoesNotContain(child.Output, line => line.Contains("Shutdown watchdog", StringComparison.Ordinal));
    }

    /// <summary>Polls the control plane until the pool has queued work and completes none between two reads a second apart.</summary>
    private static async Task WaitUntilDeadlockedAsync(ApiChildProcess child)
    {
        using var guard = new CancellationTokenSource(HangGuard);
        var previous = -1L;
        await Eventually.TrueAsync(
            async () =>
            {
                var pool = (await child.Control.GetFromJsonAsync<ThreadPoolStateResponse>(ControlRoutes.ThreadPool, guard.Token))!.ThreadPool;
                var stalled = pool.PendingWorkItemCount > 0 && pool.CompletedWorkItemCount == previous;
                previous = pool.CompletedWorkItemCount;
                return stalled;
            },
            "the pool to hold queued work and complete none for a second",
            HangGuard,
            TimeSpan.FromSeconds(1));
    }
}
