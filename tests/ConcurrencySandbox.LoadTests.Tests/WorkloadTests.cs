using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class WorkloadTests
{
    [Fact]
    public async Task ClosedModelRunsAsManyConcurrentUsersAsTheShapeSays()
    {
        // Step 2 is long so a busy machine still gives the controller (50 ms period) several chances to add users.
        var shape = new LoadShape([new KeepConstant(2, TimeSpan.FromSeconds(0.3)), new KeepConstant(5, TimeSpan.FromSeconds(2))], TimeSpan.FromSeconds(1));
        var concurrent = 0;
        var peak = 0;
        var recorder = new LatencyRecorder();

        // Off xunit's two-thread synchronization context, like the runner's console process.
        await Task.Run(() => new ClosedModel(shape).RunAsync(async _ =>
        {
            var now = Interlocked.Increment(ref concurrent);
            InterlockedMax(ref peak, now);
            await Task.Delay(20);
            Interlocked.Decrement(ref concurrent);
            return RequestOutcome.Success;
        }, recorder, CancellationToken.None));

        Assert.Equal(5, peak);
        Assert.Equal(0, concurrent);
        Assert.True(recorder.TakeInterval().Ok > 0);
    }

    [Fact]
    public async Task OpenModelMeasuresLatencyFromTheIntendedStartAndAccountsForEveryArrival()
    {
        // 5 arrivals 100 ms apart, one slot, 150 ms per request: requests queue behind each other in the runner.
        var shape = new LoadShape([new Inject(10, TimeSpan.FromSeconds(0.5))], TimeSpan.FromSeconds(1));
        var service = TimeSpan.FromMilliseconds(150);
        var model = new OpenModel(shape, maxInFlight: 1);
        var recorder = new LatencyRecorder();

        await Task.Run(() => model.RunAsync(async _ =>
        {
            await Task.Delay(service);
            return RequestOutcome.Success;
        }, recorder, CancellationToken.None));

        var total = recorder.TakeInterval();
        Assert.Equal(5, total.Requests);
        Assert.True(model.NotSent >= 2, $"at most 3 requests fit in 0.5 s with one slot; {model.NotSent} were recorded as not sent");
        Assert.Equal(model.NotSent, total.Failed);
        // The second request was due at 200 ms but could not start before the first finished (>= 250 ms):
        // measured from its intended start it took at least 250 + 150 - 200 = 200 ms, more than its service time.
        if (total.Ok >= 2)
        {
            Assert.True(total.MaxMs >= 2 * service.TotalMilliseconds - 100, $"max latency {total.MaxMs} ms includes the wait for a slot");
        }
    }

    [Fact]
    public async Task BurstStartsEveryRequestBeforeAnyFinishes()
    {
        const int copies = 8;
        var arrived = 0;
        var all = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var recorder = new LatencyRecorder();

        await Task.Run(() => new Burst(copies).RunAsync(async _ =>
        {
            if (Interlocked.Increment(ref arrived) == copies)
            {
                all.SetResult();
            }
            await all.Task.WaitAsync(TimeSpan.FromSeconds(30));
            return RequestOutcome.Success;
        }, recorder, CancellationToken.None));

        Assert.Equal(copies, recorder.TakeInterval().Ok);
    }

    private static void InterlockedMax(ref int target, int value)
    {
        for (var seen = Volatile.Read(ref target); value > seen; seen = Volatile.Read(ref target))
        {
            if (Interlocked.CompareExchange(ref target, value, seen) == seen)
            {
                return;
            }
        }
    }
}
