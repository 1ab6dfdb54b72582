using ConcurrencySandbox.Contracts.Contention;
using ConcurrencySandbox.Experiments.Contention;

namespace ConcurrencySandbox.Tests.Contention;

/// <summary>Each test owns fresh critical sections; a holder keeps one entered (up to the longest hold) until the test cancels it.</summary>
public sealed class ContentionVariantTests
{
    [Fact]
    public async Task ALockWaiterBlocksItsOwnThreadInTheMonitorAndCountsAsContention()
    {
        var variant = new MonitorLockVariant();
        using var holderCancel = new CancellationTokenSource();
        var holder = StartHolder(variant, holderCancel.Token);
        await Eventually.TrueAsync(() => variant.Holding == 1, "the holder to enter");
        var contentionBefore = Monitor.LockContentionCount;

        ContentionTiming? waited = null;
        var waiter = new Thread(() => waited = variant.EnterAndHoldAsync(1, CancellationToken.None).AsTask().GetAwaiter().GetResult());
        waiter.Start();
        await Eventually.TrueAsync(
            () => variant.Waiting == 1 && waiter.ThreadState.HasFlag(ThreadState.WaitSleepJoin), "the waiter's thread to block in the Monitor");
        Assert.True(Monitor.LockContentionCount > contentionBefore, "the runtime counted no lock contention");

        await holderCancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => holder);
        Assert.True(waiter.Join(TimeSpan.FromSeconds(30)), "the waiter never entered after the holder left");
        Assert.NotNull(waited);
    }

    [Fact]
    public async Task ASemaphoreWaiterReturnsToItsCallerWhileItWaits()
    {
        var variant = new SemaphoreAsyncVariant();
        using var holderCancel = new CancellationTokenSource();
        var holder = variant.EnterAndHoldAsync(ContentionVariants.MaxHoldMs, holderCancel.Token).AsTask();
        Assert.Equal(1, variant.Holding);

        var waiter = variant.EnterAndHoldAsync(1, CancellationToken.None).AsTask();

        // The call came back to this thread with the waiter queued: it is a continuation, not a blocked thread.
        Assert.False(waiter.IsCompleted);
        Assert.Equal(1, variant.Waiting);
        await holderCancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => holder);
        await waiter;
        Assert.Equal((0, 0), (variant.Waiting, variant.Holding));
    }

    [Theory]
    [InlineData(ContentionVariants.MonitorLock)]
    [InlineData(ContentionVariants.SemaphoreAsync)]
    public async Task ACancelledWaiterLeavesTheQueueWhileTheHolderStillHolds(string name)
    {
        ContentionVariant variant = name == ContentionVariants.MonitorLock ? new MonitorLockVariant() : new SemaphoreAsyncVariant();
        using var holderCancel = new CancellationTokenSource();
        var holder = StartHolder(variant, holderCancel.Token);
        await Eventually.TrueAsync(() => variant.Holding == 1, "the holder to enter");
        using var waiterCancel = new CancellationTokenSource();
        var waiter = Task.Run(() => variant.EnterAndHoldAsync(1, waiterCancel.Token).AsTask());
        await Eventually.TrueAsync(() => variant.Waiting == 1, "the waiter to queue");

        await waiterCancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiter);
        Assert.Equal((0, 1), (variant.Waiting, variant.Holding));
        await holderCancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => holder);
        Assert.Equal(0, variant.Holding);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(ContentionVariants.MaxHoldMs + 1)]
    public async Task AHoldOutsideTheDeclaredRangeIsRefusedBeforeQueueing(int holdMs)
    {
        var variant = new SemaphoreAsyncVariant();

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => variant.EnterAndHoldAsync(holdMs, CancellationToken.None).AsTask());
        Assert.Equal(0, variant.Waiting);
    }

    /// <summary>Enters on a pool thread (a blocking variant holds it there) and holds for the longest hold allowed.</summary>
    private static Task<ContentionTiming> StartHolder(ContentionVariant variant, CancellationToken cancellationToken) =>
        Task.Run(() => variant.EnterAndHoldAsync(ContentionVariants.MaxHoldMs, cancellationToken).AsTask());
}
