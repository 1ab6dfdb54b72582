using ConcurrencySandbox.Experiments.Telemetry;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Work;

[Collection(ProcessWideCollection.Name)]
public sealed class WorkCancellationTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>
{
    [Theory]
    [InlineData("/api/compute/sync?cycles=10000000000")]
    [InlineData("/api/compute/taskrun?cycles=10000000000")]
    [InlineData("/api/spinwait/sync?iterations=1000000000")]
    [InlineData("/api/sleep/sync?milliseconds=60000")]
    [InlineData("/api/compute/sweep?from=1000000000&to=1000000000&repeat=20")]
    public async Task AbandonedRequestStopsItsWork(string url)
    {
        using var meter = new SandboxMeterReader();
        var cancelledBefore = meter.Read()["sandbox.work.units.cancelled"];
        using var client = new CancellationTokenSource();

        var request = shared.Client.GetAsync(url, client.Token);
        await Eventually.TrueAsync(() => meter.Read()["sandbox.work.units.active"] > 0, "the work to start");
        await client.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => request);

        // The units end because the request was abandoned, not because they finished.
        await Eventually.TrueAsync(() => meter.Read()["sandbox.work.units.active"] == 0, "the work to stop");
        Assert.True(meter.Read()["sandbox.work.units.cancelled"] > cancelledBefore, "the units should report cancellation");
    }
}
