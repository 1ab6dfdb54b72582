using ConcurrencySandbox.Experiments.Telemetry;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Work;

[Collection(ProcessWideCollection.Name)]
public sealed class WorkRunnerTests
{
    [Fact]
    public async Task SyncRunsBothUnitsOnTheCallingThread()
    {
        var (callerId, run) = await OnDedicatedThread(() => WorkRunner.RunTwiceAsync(WorkUnit.Compute, RunMode.Sync, 1_000, CancellationToken.None));

        Assert.Equal([callerId, callerId], run.ThreadIds);
    }

    [Fact]
    public async Task TaskRunMovesBothUnitsOffTheCallingThread()
    {
        var (callerId, run) = await OnDedicatedThread(() => WorkRunner.RunTwiceAsync(WorkUnit.Compute, RunMode.TaskRun, 1_000, CancellationToken.None));

        Assert.Equal(2, run.ThreadIds.Count);
        Assert.DoesNotContain(callerId, run.ThreadIds);
    }

    [Fact]
    public async Task AsyncSleepHoldsNoThreadWhileWaiting()
    {
        const int requests = 100;
        using var meter = new SandboxMeterReader();
        using var release = new CancellationTokenSource();
        var runs = Enumerable.Range(0, requests)
            .Select(_ => WorkRunner.RunTwiceAsync(WorkUnit.Sleep, RunMode.Async, 60_000, release.Token))
            .ToArray();

        // 200 units are waiting at once, yet the pool has far fewer threads than that: none is held per unit.
        var waiting = meter.Read();
        Assert.True(waiting["sandbox.work.units.active"] >= 2 * requests, $"active units: {waiting["sandbox.work.units.active"]}");
        Assert.True(ThreadPool.ThreadCount < requests, $"pool threads: {ThreadPool.ThreadCount}");

        await release.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => Task.WhenAll(runs));
        var ended = meter.Read();
        Assert.Equal(waiting["sandbox.work.units.cancelled"] + (2 * requests), ended["sandbox.work.units.cancelled"]);
        Assert.Equal(waiting["sandbox.work.units.active"] - (2 * requests), ended["sandbox.work.units.active"]);
    }

    [Fact]
    public async Task BothUnitsRunToCompletion()
    {
        var run = await WorkRunner.RunTwiceAsync(WorkUnit.Sleep, RunMode.Sync, 20, CancellationToken.None);

        // Each sleep unit returns the milliseconds it slept: both ran to the end.
        Assert.Equal(40, run.Checksum);
        Assert.Equal(20, run.Amount);
    }

    [Fact]
    public void AnInlineRunCountsItsUnitsAndACancelledOneIsCountedAsCancelled()
    {
        using var meter = new SandboxMeterReader();
        var before = meter.Read();

        var run = WorkRunner.RunTwiceInline(WorkUnit.SpinWait, 1_000, CancellationToken.None);
        Assert.Throws<OperationCanceledException>(() => WorkRunner.RunTwiceInline(WorkUnit.SpinWait, 1_000, new CancellationToken(canceled: true)));

        var after = meter.Read();
        Assert.Equal(RunMode.Sync, run.Mode);
        Assert.Equal(2_000, run.Checksum);
        Assert.Equal(before["sandbox.work.units.active"], after["sandbox.work.units.active"]);
        // The first unit of the cancelled run ends early; the second never starts.
        Assert.Equal(before["sandbox.work.units.cancelled"] + 1, after["sandbox.work.units.cancelled"]);
    }

    private static Task<(int CallerId, WorkRun Run)> OnDedicatedThread(Func<Task<WorkRun>> start)
    {
        var result = new TaskCompletionSource<(int, WorkRun)>();
        var thread = new Thread(() =>
        {
            var task = start();
            task.ContinueWith(t => result.SetResult((Environment.CurrentManagedThreadId, t.Result)), TaskScheduler.Default);
        });
        thread.Start();
        thread.Join();
        return result.Task.ContinueWith(t => (thread.ManagedThreadId, t.Result.Item2), TaskScheduler.Default);
    }
}
