using System.Diagnostics.Metrics;
using ConcurrencySandbox.Contracts.Contention;
using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.Experiments.Contention;
using ConcurrencySandbox.Experiments.FanOut;
using ConcurrencySandbox.Experiments.Telemetry;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Telemetry;

/// <summary>The sandbox's own meter: named as the runtime names its instruments, moved by the experiments, read by the telemetry.</summary>
[Collection(ProcessWideCollection.Name)]
public sealed class SandboxMeterTests
{
    private const string ContentionEntries = "sandbox.contention.entries";

    [Fact]
    public void InstrumentsAreLowerCaseDotSeparatedWithSemanticConventionUnits()
    {
        var published = PublishedInstruments();

        Assert.Contains("sandbox.work.units.active", published.Keys);
        Assert.All(published, instrument =>
        {
            Assert.Matches("^sandbox(\\.[a-z_]+)+$", instrument.Key);
            Assert.Matches("^\\{[a-z]+\\}$", instrument.Value);
        });
    }

    [Fact]
    public void TheSnapshotCarriesEveryPublishedInstrumentWithoutNamingAny()
    {
        var published = PublishedInstruments();

        var snapshot = new RuntimeSampler(TimeProvider.System, () => default).Sample().Sandbox;

        Assert.Equal(published.Keys.Order(StringComparer.Ordinal), snapshot.Names);
    }

    [Fact]
    public async Task TheContentionSlicesOwnInstrumentCountsEachEntryIntoTheCriticalSection()
    {
        var sampler = new RuntimeSampler(TimeProvider.System, () => default);
        var variant = new SemaphoreAsyncVariant();
        var before = sampler.Sample().Sandbox;

        await variant.EnterAndHoldAsync(ContentionVariants.MinHoldMs, CancellationToken.None);
        await variant.EnterAndHoldAsync(ContentionVariants.MinHoldMs, CancellationToken.None);
        var after = sampler.Sample().Sandbox;

        Assert.True(before.TryGetValue(ContentionEntries, out var entriesBefore), "declared in the contention slice's folder only, yet in the snapshot");
        Assert.Equal(entriesBefore + 2, after[ContentionEntries]);
    }

    [Fact]
    public async Task TheTelemetryCountsFanOutCallsWhileTheyAreInProgress()
    {
        const int calls = 5;
        var thirdParty = new HeldThirdParty();
        using var dedicatedPool = new DedicatedThreadPool(1);
        var sampler = new RuntimeSampler(TimeProvider.System, () => default);
        var runner = new FanOutRunner(thirdParty, dedicatedPool, TimeProvider.System);
        var before = sampler.Sample().Sandbox["sandbox.fanout.calls.active"];

        var running = runner.RunAsync(new FanOutPlan(FanOutStrategy.Async, calls, new StubBehaviour(0), Timeout.InfiniteTimeSpan), CancellationToken.None);
        var during = sampler.Sample().Sandbox["sandbox.fanout.calls.active"];
        thirdParty.Release();
        await running;
        var after = sampler.Sample().Sandbox["sandbox.fanout.calls.active"];

        Assert.Equal(before + calls, during);
        Assert.Equal(before, after);
    }

    [Fact]
    public async Task TheTelemetryCountsWorkUnitsWhileTheyRunAndWhenTheyAreCancelled()
    {
        var sampler = new RuntimeSampler(TimeProvider.System, () => default);
        using var cancellation = new CancellationTokenSource();
        var before = sampler.Sample().Sandbox;

        var running = WorkRunner.RunTwiceAsync(WorkUnit.Sleep, RunMode.Async, 60_000, cancellation.Token);
        var during = sampler.Sample().Sandbox;
        await cancellation.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => running);
        var after = sampler.Sample().Sandbox;

        Assert.Equal(before["sandbox.work.units.active"] + 2, during["sandbox.work.units.active"]);
        Assert.Equal(before["sandbox.work.units.active"], after["sandbox.work.units.active"]);
        Assert.Equal(before["sandbox.work.units.cancelled"] + 2, after["sandbox.work.units.cancelled"]);
    }

    /// <summary>The sandbox meter's instruments with their units, as a listener sees them once the meter published them.</summary>
    private static Dictionary<string, string?> PublishedInstruments()
    {
        SandboxMeter.PublishInstruments();
        var published = new Dictionary<string, string?>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, _) =>
            {
                if (instrument.Meter.Name == SandboxMeter.Name)
                {
                    published[instrument.Name] = instrument.Unit;
                }
            },
        };

        listener.Start();
        return published;
    }

    /// <summary>A third party whose calls stay in progress until the test releases them.</summary>
    private sealed class HeldThirdParty : IThirdParty
    {
        private readonly TaskCompletionSource<CallAnswer> _answer = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public void Release() => _answer.SetResult(CallAnswer.Ok);

        public CallAnswer Call(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken) => _answer.Task.GetAwaiter().GetResult();

        public Task<CallAnswer> CallAsync(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken) => _answer.Task;
    }
}
