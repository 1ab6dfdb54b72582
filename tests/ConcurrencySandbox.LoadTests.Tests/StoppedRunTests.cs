using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// Stopping is a signal (the run's token), not an exception that carries data: a variant stopped mid-way comes back as a
/// result like any other, and the partial report is what the one analysis stage makes of it.
/// </summary>
public sealed class StoppedRunTests : IDisposable
{
    private readonly string _out = Path.Combine(Path.GetTempPath(), $"stopped-run-{Guid.NewGuid():N}");

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }

    [Fact]
    public async Task ARunStoppedMidVariantRendersTheStepsItClosedFromItsSummary()
    {
        using var stop = new CancellationTokenSource();
        // Three steps of 2, 4 and 6 users; the second variant is stopped once it has closed two of them.
        var shape = new LoadShape([new KeepConstant(2, TimeSpan.FromSeconds(0.4)), new KeepConstant(4, TimeSpan.FromSeconds(0.4)), new KeepConstant(6, TimeSpan.FromSeconds(30))], TimeSpan.FromMilliseconds(100));
        var load = new LoadOptions(shape, "test", TimeSpan.FromSeconds(5), 100);
        var stopping = new QuickRequests(stopAfterSteps: 2, stop);
        var experiment = new TwoVariants(new QuickRequests(), stopping);
        var servers = new TargetApiServers(new Uri("http://127.0.0.1:9/"), isSandboxApi: false);

        var report = await ExperimentRunner.RunAsync(experiment, load, servers, [], TextWriter.Null, stop.Token, observe: new ObserverOptions(Attach: false, VerifyFix: false));
        ReportWriter.Write(_out, report, RunnerCommandLine.Format(["two-variants"]));

        // The load engine returned the stopped variant (no exception), marked stopped.
        Assert.True(stopping.Returned?.Stopped);
        Assert.StartsWith("partial: stopped after variant stopped step 2 of 3", report.Partial);
        var summary = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "summary.json")));
        Assert.Equal(report.Partial, summary.Partial);
        Assert.Equal(["finished", "stopped"], summary.Variants.Select(v => v.Name));
        Assert.Equal([2.0, 4.0], summary.Variants[1].Steps.Take(2).Select(s => s.Load));
        // The page draws the stopped variant's closed steps, read from the summary it carries.
        var page = RenderedPage.LinesOf(Path.Combine(_out, "report.html"));
        Assert.Contains(page, line => line.StartsWith("td stopped | 2 users |", StringComparison.Ordinal));
        Assert.Contains(page, line => line.StartsWith("td stopped | 4 users |", StringComparison.Ordinal));
    }

    private sealed class TwoVariants(ILoadDriver finished, ILoadDriver stopped) : Experiment
    {
        public override string Name => "two-variants";

        public override string Seed => "000";

        public override IReadOnlyList<Variant> Variants => [new("finished", finished), new("stopped", stopped)];

        public override Finding Assess(IReadOnlyList<VariantResult> results) => Finding.NotAssessed("a test experiment has no seed to judge.");
    }

    /// <summary>Requests answered in 5 ms; with <paramref name="stopAfterSteps"/>, the run is stopped once that many steps have closed.</summary>
    private sealed class QuickRequests(int? stopAfterSteps = null, CancellationTokenSource? stop = null) : ILoadDriver
    {
        public string Request => "/quick";

        public (string Profile, string Shape) Describe(LoadOptions load) => (load.ProfileName, load.Describe());

        public TimeSpan PlannedLength(LoadOptions load) => stopAfterSteps is null ? TimeSpan.FromSeconds(0.8) : load.Shape.Duration;

        public VariantResult? Returned { get; private set; }

        public async Task<VariantResult> RunAsync(LoadContext context, CancellationToken cancellationToken)
        {
            var shape = stopAfterSteps is null ? new LoadShape([.. context.Load.Shape.Steps.Take(2)], context.Load.Shape.ReportingInterval) : context.Load.Shape;
            return Returned = await VariantRunner.RunAsync(context.Key, Request, IWorkload.Of(shape, context.Load.MaxInFlight), async token =>
            {
                await Task.Delay(5, token);
                return RequestOutcome.Success;
            }, shape.ReportingInterval, null, new StopsAfter(context.Progress, stopAfterSteps, stop), cancellationToken);
        }
    }

    private sealed class StopsAfter(IVariantProgress inner, int? steps, CancellationTokenSource? stop) : IVariantProgress
    {
        private int _closed;

        public void OnInterval(IntervalRow row, RuntimeSnapshot? latest) => inner.OnInterval(row, latest);

        public void OnStep(VariantKey variant, StepRow step)
        {
            inner.OnStep(variant, step);
            if (++_closed == steps)
            {
                stop!.Cancel();
            }
        }
    }
}
