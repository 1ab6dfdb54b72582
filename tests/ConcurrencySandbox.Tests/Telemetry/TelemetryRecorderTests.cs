using System.Collections.Concurrent;
using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Tests.Telemetry;

public sealed class TelemetryRecorderTests
{
    [Fact]
    public async Task KeepsTheLatestSamplesOldestFirst()
    {
        using var recorder = new TelemetryRecorder(new RuntimeSampler(TimeProvider.System, () => default), TimeSpan.FromMilliseconds(5), capacity: 3);

        await Eventually.TrueAsync(() => recorder.Since(0).Count == 3, "three samples");
        var first = recorder.Since(0);
        await Eventually.TrueAsync(() => recorder.Since(first[^1].UptimeSeconds).Count > 0, "a sample after the first three");
        var later = recorder.Since(0);

        Assert.Equal(3, later.Count);
        Assert.True(later[0].UptimeSeconds > first[0].UptimeSeconds, "the oldest sample should have been overwritten");
        Assert.Equal(later.OrderBy(s => s.UptimeSeconds), later);
    }

    [Fact]
    public async Task SinceReturnsOnlyLaterSamples()
    {
        using var recorder = new TelemetryRecorder(new RuntimeSampler(TimeProvider.System, () => default), TimeSpan.FromMilliseconds(5), capacity: 100);
        await Eventually.TrueAsync(() => recorder.Since(0).Count >= 4, "four samples");

        var all = recorder.Since(0);
        var cut = all[1].UptimeSeconds;

        Assert.All(recorder.Since(cut), s => Assert.True(s.UptimeSeconds > cut));
        Assert.DoesNotContain(all[0], recorder.Since(cut));
    }

    [Fact]
    public async Task TakesEverySampleOnItsOwnThreadNeverOnAPoolThread()
    {
        var samplingThreads = new ConcurrentQueue<(int Id, bool IsPoolThread)>();
        var sampler = new RuntimeSampler(TimeProvider.System, () =>
        {
            samplingThreads.Enqueue((Environment.CurrentManagedThreadId, Thread.CurrentThread.IsThreadPoolThread));
            return default;
        });
        using var recorder = new TelemetryRecorder(sampler, TimeSpan.FromMilliseconds(5), capacity: 3);

        await Eventually.TrueAsync(() => samplingThreads.Count >= 3, "three samples");

        Assert.All(samplingThreads, thread => Assert.Equal((recorder.ThreadId, false), thread));
        Assert.NotEqual(Environment.CurrentManagedThreadId, recorder.ThreadId);
    }
}
