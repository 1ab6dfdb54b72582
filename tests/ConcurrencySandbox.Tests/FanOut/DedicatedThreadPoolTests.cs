using ConcurrencySandbox.Experiments.FanOut;

namespace ConcurrencySandbox.Tests.FanOut;

public sealed class DedicatedThreadPoolTests
{
    [Fact]
    public void WorkRunsOnTheOwnNamedThreadsOnly()
    {
        var seen = new System.Collections.Concurrent.ConcurrentBag<(string? Name, bool IsPoolThread, bool IsDedicated)>();
        using var done = new CountdownEvent(12);
        using var pool = new DedicatedThreadPool(3, "named"); // disposed first: its threads stop before the events go

        for (var i = 0; i < 12; i++)
        {
            pool.Enqueue(() =>
            {
                var thread = Thread.CurrentThread;
                seen.Add((thread.Name, thread.IsThreadPoolThread, DedicatedThreadPool.IsDedicatedThread));
                done.Signal();
            });
        }

        Assert.True(done.Wait(TimeSpan.FromSeconds(30)));
        Assert.All(seen, item => Assert.Matches(@"^named [1-3]/3$", item.Name));
        Assert.All(seen, item => Assert.False(item.IsPoolThread));
        Assert.All(seen, item => Assert.True(item.IsDedicated));
        Assert.False(DedicatedThreadPool.IsDedicatedThread);
    }

    [Fact]
    public void DisposeLetsQueuedWorkFinishThenRefusesMore()
    {
        var pool = new DedicatedThreadPool(1);
        var ran = 0;
        for (var i = 0; i < 5; i++)
        {
            pool.Enqueue(() =>
            {
                Thread.Sleep(5);
                Interlocked.Increment(ref ran);
            });
        }

        pool.Dispose();

        Assert.Equal(5, ran);
        Assert.Equal(0, pool.QueueLength);
        Assert.Throws<ObjectDisposedException>(() => pool.Enqueue(() => { }));
    }

    [Fact]
    public void ItemsWaitInTheQueueWhileEveryThreadIsBusy()
    {
        using var release = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        using var pool = new DedicatedThreadPool(1); // disposed first: its thread leaves release.Wait before the events go
        pool.Enqueue(() =>
        {
            started.Set();
            release.Wait();
        });
        started.Wait();

        pool.Enqueue(() => { });
        pool.Enqueue(() => { });

        Assert.Equal(2, pool.QueueLength);
        release.Set();
    }
}
