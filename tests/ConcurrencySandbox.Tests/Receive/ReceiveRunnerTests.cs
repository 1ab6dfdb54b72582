using ConcurrencySandbox.Contracts.Receive;
using ConcurrencySandbox.Experiments.Receive;
using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Tests.Receive;

[Collection(ReceiveRunsCollection.Name)]
public sealed class ReceiveRunnerTests
{
    public static TheoryData<string> Variants() => [.. ReceiveVariant.Names];

    [Theory]
    [MemberData(nameof(Variants))]
    public async Task EveryVariantReceivesExactlyWhatWasSentInOrder(string name)
    {
        var result = await RunAsync(name, new ReceivePlan(Messages: 3000, MessageBytes: 64, TimeoutMs: 1000, IntervalMs: 0));

        Assert.Equal(name, result.Variant);
        AssertEveryMessageInOrder(3000, result);
    }

    [Theory]
    [InlineData("per-call")]
    [InlineData("allocating")]
    public async Task PerCallVariantsAllocateAtLeastOneMessageBufferPerReceive(string name)
    {
        var result = await RunAsync(name, new ReceivePlan(Messages: 2000, MessageBytes: 512, TimeoutMs: 1000, IntervalMs: 0));

        Assert.True(result.AllocatedBytes >= 2000L * 512, $"{name} allocated {result.AllocatedBytes} bytes for 2000 receives of 512 bytes");
        Assert.True(result.AllocatedBytesPerReceive >= 512);
    }

    [Theory]
    [InlineData("preallocated")]
    [InlineData("spinning")]
    public async Task ReusedBufferVariantsAllocateNoMessageBuffers(string name)
    {
        var few = await RunAsync(name, new ReceivePlan(1000, 512, 1000, 0));
        var many = await RunAsync(name, new ReceivePlan(11_000, 512, 1000, 0));

        // 10,000 more receives may add the spinning path's Stopwatch (40 bytes each), never a 512-byte buffer.
        var perExtraReceive = (many.AllocatedBytes - few.AllocatedBytes) / 10_000.0;
        Assert.True(perExtraReceive < 100, $"{name} allocated {perExtraReceive} bytes per extra receive");
    }

    [Fact]
    public async Task PreallocatedAllocatesCloseToNothingPerReceiveOnceWarm()
    {
        await RunAsync("preallocated", new ReceivePlan(1000, 128, 1000, 0));

        var result = await RunAsync("preallocated", new ReceivePlan(20_000, 128, 1000, 0));

        Assert.True(result.AllocatedBytesPerReceive <= 1, $"preallocated allocated {result.AllocatedBytesPerReceive} bytes per receive");
    }

    [Theory]
    [InlineData("preallocated")]
    [InlineData("spinning")]
    public async Task AReceiveThatTimesOutIsCountedAndTriedAgain(string name)
    {
        // Messages 300 ms apart against a 5 ms timeout: waiting for the second and third must time out.
        var result = await RunAsync(name, new ReceivePlan(Messages: 3, MessageBytes: 16, TimeoutMs: 5, IntervalMs: 300));

        Assert.True(result.Timeouts >= 1, $"{name} counted {result.Timeouts} timeouts");
        AssertEveryMessageInOrder(3, result);
    }

    [Theory]
    [InlineData("preallocated")]
    [InlineData("spinning")]
    public async Task CancellingStopsAReceiveThatIsWaiting(string name)
    {
        using var meter = new SandboxMeterReader();
        var before = meter.Read();
        using var cancellation = new CancellationTokenSource();
        var plan = new ReceivePlan(Messages: 100, MessageBytes: 16, TimeoutMs: 60_000, IntervalMs: 1000);

        var run = ReceiveRunner.RunAsync(ReceiveVariant.Find(name)!, plan, cancellation.Token);
        await Eventually.TrueAsync(() => meter.Read()["sandbox.receive.runs.active"] > before["sandbox.receive.runs.active"], "the run to start");
        await cancellation.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run);
        // Receive runs go one at a time (ReceiveRunsCollection), so the meter moved for this run alone.
        var after = meter.Read();
        Assert.Equal((before["sandbox.receive.runs.active"], before["sandbox.receive.runs.cancelled"] + 1), (after["sandbox.receive.runs.active"], after["sandbox.receive.runs.cancelled"]));
    }

    [Fact]
    public void APlanWithMessagesTooSmallForTheSequenceNumberIsRefused()
    {
        var failure = Assert.Throws<ArgumentOutOfRangeException>(() => new ReceivePlan(10, 7, 1000, 0).Validate());

        Assert.Equal(nameof(ReceivePlan.MessageBytes), failure.ParamName);
    }

    private static Task<ReceiveResult> RunAsync(string variant, ReceivePlan plan) =>
        ReceiveRunner.RunAsync(ReceiveVariant.Find(variant)!, plan, CancellationToken.None);

    private static void AssertEveryMessageInOrder(long sent, ReceiveResult result)
    {
        Assert.Equal(sent, result.ReceivedMessages);
        Assert.Equal(0, result.OutOfOrderMessages);
    }
}
