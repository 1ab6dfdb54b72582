using System.Diagnostics.Metrics;
using ConcurrencySandbox.Experiments.FanOut;
using ConcurrencySandbox.Experiments.Telemetry;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Telemetry;

/// <summary>The sandbox's own meter: named as the runtime names its instruments, moved by the experiments, read by the telemetry.</summary>
[Collection(ProcessWideCollection.Name)]
public sealed class SandboxMeterTests
{
    [Fact]
    public void InstrumentsAreLowerCaseDotSeparatedWithSemanticConventionUnits()
    {
        // The telemetry's first read publishes every experiment's instruments, whether or not the experiment ran.
        using (var reader = new SandboxMeterReader())
        {
            reader.Read();
        }

        var published = new Dictionary<string, string?>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, _) =>
            {
                if (instrument.Meter.Name == "ConcurrencySandbox")
                {
                    published[instrument.Name] = instrument.Unit;
                }
            },
        };

        listener.Start();

        Assert.Equal(
            new Dictionary<string, string?>
            {
                ["sandbox.work.units.active"] = "{unit}",
                ["sandbox.work.units.cancelled"] = "{unit}",
                ["sandbox.fanout.calls.active"] = "{call}",
                ["sandbox.receive.runs.active"] = "{run}",
                ["sandbox.receive.runs.cancelled"] = "{run}",
            },
            published);
    }

    [Fact]
    public async Task TheTelemetryCountsFanOutCallsWhileTheyAreInProgress()
    {
        const int calls = 5;
        var thirdParty = new HeldThirdParty();
        using var dedicatedPool = new DedicatedThreadPool(1);
        var sampler = new RuntimeSampler(TimeProvider.System, () => 0);
        var runner = new FanOutRunner(thirdParty, dedicatedPool, TimeProvider.System);
        var before = sampler.Sample().Sandbox.ActiveFanOutCalls;

        var running = runner.RunAsync(new FanOutPlan(FanOutStrategy.Async, calls, new StubBehaviour(0), Timeout.InfiniteTimeSpan), CancellationToken.None);
        var during = sampler.Sample().Sandbox.ActiveFanOutCalls;
        thirdParty.Release();
        await running;
        var after = sampler.Sample().Sandbox.ActiveFanOutCalls;

        Assert.Equal(before + calls, during);
        Assert.Equal(before, after);
    }

    [Fact]
    public async Task TheTelemetryCountsWorkUnitsWhileTheyRunAndWhenTheyAreCancelled()
    {
        var sampler = new RuntimeSampler(TimeProvider.System, () => 0);
        using var cancellation = new CancellationTokenSource();
        var before = sampler.Sample().Sandbox;

        var running = WorkRunner.RunTwiceAsync(WorkUnit.Sleep, RunMode.Async, 60_000, cancellation.Token);
        var during = sampler.Sample().Sandbox;
        await cancellation.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => running);
        var after = sampler.Sample().Sandbox;

        Assert.Equal(before.ActiveWorkUnits + 2, during.ActiveWorkUnits);
        Assert.Equal(before.ActiveWorkUnits, after.ActiveWorkUnits);
        Assert.Equal(before.CancelledWorkUnits + 2, after.CancelledWorkUnits);
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
