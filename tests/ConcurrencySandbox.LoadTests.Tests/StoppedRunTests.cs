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
        // Three steps of 2, 4 and 6 users; the second variant is stopped once its 30 s step of 6 users has begun. The steps
        // it closed before are read from the run, not assumed: a stall of the machine longer than a step can merge or skip
        // the first two (CI 2026-11-29 ran the whole 30 s when a stop counted on two closed steps saw one).
        var shape = new LoadShape([new KeepConstant(2, TimeSpan.FromSeconds(1)), new KeepConstant(4, TimeSpan.FromSeconds(1)), new KeepConstant(6, TimeSpan.FromSeconds(30))], TimeSpan.FromMilliseconds(100));
        var load = new LoadOptions(shape, "test", TimeSpan.FromSeconds(5), 100);
        var stopping = new QuickRequests(stopAtLoad: 6, stop);
        var experiment = new TwoVariants(new QuickRequests(), stopping);
        var servers = new TargetApiServers(new Uri("http://127.0.0.1:9/"), isSandboxApi: false);

        var report = await ExperimentRunner.RunAsync(experiment, load, servers, [], TextWriter.Null, stop.Token, observe: new ObserverOptions(Attach: false, VerifyFix: false));
        ReportWriter.Write(_out, report, RunnerCommandLine.Format(["two-variants"]));

        // The load engine returned the stopped variant (no exception), marked stopped, with the steps closed before the stop.
        Assert.True(stopping.Returned?.Stopped, $"stopped variant returned: {stopping.Returned is not null}, elapsed {stopping.Returned?.ElapsedSeconds:0.0} s");
        var closed = stopping.Closed;
        var said = $"closed steps [{string.Join(", ", closed)}]; {report.Partial}";
        Assert.True(closed.Count > 0 && closed.All(c => c is 2 or 4) && closed.SequenceEqual(closed.Distinct().Order()), said);
        Assert.True(report.Partial?.StartsWith($"partial: stopped after variant stopped step {closed.Count} of 3", StringComparison.Ordinal), said);
        var summary = RunSummary.Parse(await File.ReadAllTextAsync(Path.Combine(_out, "summary.json")));
        Assert.Equal(report.Partial, summary.Partial);
        Assert.Equal(["finished", "stopped"], summary.Variants.Select(v => v.Name));
        Assert.Equal(closed, summary.Variants[1].Steps.Take(closed.Count).Select(s => s.Load));
        // The page draws the stopped variant's closed steps, read from the summary it carries.
        var page = RenderedPage.LinesOf(Path.Combine(_out, "report.html"));
        Assert.All(closed, users => Assert.Contains(page, line => line.StartsWith($"td stopped | {users} users |", StringComparison.Ordinal)));
    }

    private sealed class TwoVariants(ILoadDriver finished, ILoadDriver stopped) : Experiment
    {
        public override string Name => "two-variants";

        public override string Seed => "000";

        public override IReadOnlyList<Variant> Variants => [new("finished", finished), new("stopped", stopped)];

        public override Finding Assess(IReadOnlyList<VariantResult> results) => Finding.NotAssessed("a test experiment has no seed to judge.");
    }

    /// <summary>Requests answered in 5 ms; with <paramref name="stopAtLoad"/>, the run is stopped at the first interval at that load (the steps closed before it are kept in <see cref="Closed"/>).</summary>
    private sealed class QuickRequests(double? stopAtLoad = null, CancellationTokenSource? stop = null) : ILoadDriver
    {
        private readonly StopsAt _progress = new(stopAtLoad, stop);

        public string Request => "/quick";

        public (string Profile, string Shape) Describe(LoadOptions load) => (load.ProfileName, load.Describe());

        public TimeSpan PlannedLength(LoadOptions load) => stopAtLoad is null ? TimeSpan.FromSeconds(0.8) : load.Shape.Duration;

        public VariantResult? Returned { get; private set; }

        /// <summary>The loads of the steps the variant closed, in order.</summary>
        public IReadOnlyList<double> Closed => _progress.Closed;

        public async Task<VariantResult> RunAsync(LoadContext context, CancellationToken cancellationToken)
        {
            var shape = stopAtLoad is null ? new LoadShape([.. context.Load.Shape.Steps.Take(2)], context.Load.Shape.ReportingInterval) : context.Load.Shape;
            _progress.Inner = context.Progress;
            return Returned = await VariantRunner.RunAsync(context.Key, Request, IWorkload.Of(shape, context.Load.MaxInFlight), async token =>
            {
                await Task.Delay(5, token);
                return RequestOutcome.Success;
            }, shape.ReportingInterval, null, _progress, cancellationToken);
        }
    }

    private sealed class StopsAt(double? load, CancellationTokenSource? stop) : IVariantProgress
    {
        private readonly List<double> _closed = [];

        public IVariantProgress? Inner { get; set; }

        public IReadOnlyList<double> Closed => _closed;

        public void OnInterval(IntervalRow row, RuntimeSnapshot? latest)
        {
            Inner?.OnInterval(row, latest);
            if (row.Load >= load && !stop!.IsCancellationRequested)
            {
                stop.Cancel();
            }
        }

        public void OnStep(VariantKey variant, StepRow step)
        {
            Inner?.OnStep(variant, step);
            _closed.Add(step.Load);
        }
    }
}
