using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments.Receive;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Tests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests;

public sealed class ReceiveExperimentTests
{
    private static readonly ReceiveExperiment Receive = new(ReceiveSettings.Defaults);

    [Fact]
    public void EveryReceiveVariantLoadsItsOwnEndpointWithTheSettings()
    {
        var experiment = new ReceiveExperiment(new ReceiveSettings(Messages: 500, MessageBytes: 64, IntervalMs: 1));

        Assert.Equal(
            ["/api/receive/per-call?messages=500&messageBytes=64&intervalMs=1", "/api/receive/preallocated?messages=500&messageBytes=64&intervalMs=1",
             "/api/receive/allocating?messages=500&messageBytes=64&intervalMs=1", "/api/receive/spinning?messages=500&messageBytes=64&intervalMs=1"],
            experiment.Variants.Select(v => v.Driver.Request));
    }

    [Fact]
    public void CpuAndAllocationPerRequestComeFromTheTelemetrySpan()
    {
        // 10 s of samples, 20 requests a second: 200 requests, 4000 ms of CPU and 200 MB allocated in the span.
        var usage = ReceiveUsage.Of(Result("per-call", requestsPerSecond: 20, cpuMs: 4000, allocatedBytes: 200_000_000));

        Assert.NotNull(usage);
        Assert.Equal(20, usage.CpuMsPerRequest, 6);
        Assert.Equal(1_000_000, usage.AllocatedBytesPerRequest, 6);
        Assert.Equal(20_000_000, usage.AllocatedBytesPerSecond, 6);
    }

    /// <summary>
    /// The receive smoke run that failed CI on 2026-11-27: the observer's samples went on for 2 s after the 3 s load, and
    /// the run's mean rate spread over that longer span counted requests that never were, so allocating came out at
    /// 13 B per receive against preallocated's 29.
    /// </summary>
    [Fact]
    public void SamplesTakenAfterTheLoadEndedAddNeitherSecondsNorRequests()
    {
        var run = Result("per-call", requestsPerSecond: 20, cpuMs: 4000, allocatedBytes: 200_000_000);
        var idleAfter = Enumerable.Range(11, 4).Select(second => new TelemetryRow(run.Key, second, Snapshot(second, 4000, 200_000_000)));

        var usage = ReceiveUsage.Of(run with { Telemetry = [.. run.Telemetry, .. idleAfter] });

        Assert.Equal(ReceiveUsage.Of(run), usage);
        Assert.Equal(20, usage!.CpuMsPerRequest, 6);
    }

    [Fact]
    public void RequestsAreCountedOnlyFromTheIntervalsBetweenTheFirstAndLastSample()
    {
        var key = new VariantKey("per-call");
        var run = Result("per-call", 20, 4000, 200_000_000) with
        {
            // 100 requests end in 0-4 s and 100 in 4-10 s; the samples cover 2-10 s: 50 + 100 requests.
            Intervals = [new IntervalRow(key, 4, "users", 2, 25, TestStats.Uniform(100, 50)), new IntervalRow(key, 10, "users", 4, 16.7, TestStats.Uniform(100, 50))],
        };

        Assert.Equal(150, run.EndedBetween(2, 10), 9);
        Assert.Equal(0, run.EndedBetween(10, 14), 9);
        Assert.Equal(3200.0 / 150, ReceiveUsage.Of(run with { Telemetry = [.. run.Telemetry.Skip(2)] })!.CpuMsPerRequest, 9);
    }

    /// <summary>
    /// The observer's seconds (<see cref="SeededCounters"/>): read late by a busy runner (samples 1.2-3 s apart) or written
    /// late by the runtime's timer, they give the figures of the seconds read on time, each cpu-usage reading counted over
    /// its own interval (before, samples more than 1.5 s apart left the figures out, as CI's allocating variant on
    /// 2026-11-29); a second lost leaves them out and the verdict says why.
    /// </summary>
    [Fact]
    public void ASecondReadLateCountsALostOneLeavesTheFiguresOutAndSaysWhy()
    {
        var onTime = ReceiveUsage.Of(SeededCounters.Run("per-call", SeededCounters.OnTime()));
        Assert.NotNull(onTime);
        Assert.Equal(SeededCounters.CpuMs / 200, onTime.CpuMsPerRequest, 9);

        Assert.Equal(onTime, ReceiveUsage.Of(SeededCounters.Run("per-call", SeededCounters.ReadLate())));
        var writtenLate = ReceiveUsage.Of(SeededCounters.Run("per-call", SeededCounters.WrittenLate()));
        Assert.Equal(onTime.CpuMsPerRequest, writtenLate!.CpuMsPerRequest, 9);
        Assert.Equal(onTime.AllocatedBytesPerRequest, writtenLate.AllocatedBytesPerRequest, 6);

        var lost = SeededCounters.Run("preallocated", SeededCounters.SecondLost());
        Assert.Null(ReceiveUsage.Of(lost));
        Assert.Contains(
            "(preallocated: the runtime's CPU readings cover 9 s of the 10 s between its counter samples: a payload was lost)",
            Receive.Assess([SeededCounters.Run("per-call", SeededCounters.ReadLate()), lost]).Verdict, StringComparison.Ordinal);
    }

    /// <summary>The figure the report prints is the one the verdict reads: the rows' CPU time over the requests, per receive.</summary>
    [Fact]
    public void CpuPerReceiveIsTheObserversCpuTimeOverTheRequests()
    {
        var run = SeededCounters.Run("per-call", SeededCounters.ReadLate());

        var figures = Receive.FiguresOf(run);

        Assert.Equal(SeededCounters.CpuMs / 200, figures.Single(f => f.Name == "CPU per request").Value, 9);
        Assert.Equal(SeededCounters.CpuMs / 200 * 1e6 / ReceiveSettings.Defaults.Messages, figures.Single(f => f.Name == "CPU per receive").Value, 6);
    }

    /// <summary>A variant beside the verdict's two without figures is named with why, not dropped from the verdict's line.</summary>
    [Fact]
    public void AVariantWithoutFiguresIsNamedWithWhyInTheVerdict()
    {
        var finding = Receive.Assess(
        [
            Result("per-call", 20, 4000, 200_000_000),
            Result("preallocated", 20, 1000, 1_000),
            SeededCounters.Run("allocating", SeededCounters.SecondLost()),
        ]);

        Assert.Contains("allocating not read (the runtime's CPU readings cover 9 s of the 10 s between its counter samples: a payload was lost)", finding.Verdict, StringComparison.Ordinal);
    }

    [Fact]
    public void EvidenceChartsShowCpuPerReceiveAgainstPreallocatedWithTheSeedRatioBesideAndBytesPerReceive()
    {
        VariantResult[] results = [Result("per-call", 20, 4000, 200_000_000), Result("preallocated", 20, 1000, 1_000)];

        var charts = Receive.EvidenceOf([.. results.Select(r => r with { Figures = Receive.FiguresOf(r) })]);

        Assert.Equal(2, charts.Count);
        Assert.Equal([new EvidenceValue("per-call", 4), new EvidenceValue("preallocated", 1)], charts[0].Values);
        Assert.Contains(charts[0].SeedLines, line => line.Name.StartsWith("seed 002 per-call: 4.9 x", StringComparison.Ordinal));
        Assert.Equal("B", charts[1].Unit);
        var (kind, model) = ConcurrencySandbox.LoadTests.Reports.BarsModel.Of(ConcurrencySandbox.LoadTests.Reports.RunAnalysis.Evidence(charts[0]));
        Assert.Equal(ConcurrencySandbox.LoadTests.Reports.BarsModel.Kind, kind);
        Assert.Contains(((ConcurrencySandbox.LoadTests.Reports.BarsModel)model).Bars, bar => bar is { Name: "per-call", Value: 4, Label: "4 x preallocated" });
    }

    [Theory]
    [InlineData(4000, Outcome.Reproduced)]
    [InlineData(1100, Outcome.NotReproduced)]
    public void VerdictComparesPerCallWithPreallocatedCpuPerRequestBesideTheSeed(double perCallCpuMs, Outcome expected)
    {
        var finding = Receive.Assess(
        [
            Result("per-call", 20, perCallCpuMs, 200_000_000),
            Result("preallocated", 20, 1000, 1_000),
            Result("allocating", 20, 1050, 150_000_000),
            Result("spinning", 20, 3000, 50_000_000),
        ]);

        Assert.Equal(expected, finding.Outcome);
        Assert.Contains(finding.Comparisons, c => c.Seed.Contains("4.9 x", StringComparison.Ordinal));
        Assert.Contains("spinning alone 3.00 x", finding.Verdict, StringComparison.Ordinal);
    }

    [Fact]
    public void WithoutTelemetryTheReceiveVerdictIsNotAssessed()
    {
        var finding = Receive.Assess([Result("per-call", 20, 4000, 1, samples: 1), Result("preallocated", 20, 1000, 1, samples: 1)]);

        Assert.Equal(Outcome.NotAssessed, finding.Outcome);
    }

    private static VariantResult Result(string name, double requestsPerSecond, double cpuMs, long allocatedBytes, int samples = 11)
    {
        var key = new VariantKey(name);
        var requests = (long)(requestsPerSecond * 10);
        var stats = TestStats.Uniform(requests, 50);
        var telemetry = Enumerable.Range(0, samples)
            .Select(second => new TelemetryRow(key, second, Snapshot(second, cpuMs * second / 10, allocatedBytes * second / 10)))
            .ToList();
        return new VariantResult(key, "/x", "users", 10, [new IntervalRow(key, 10, "users", 4, requestsPerSecond, stats)], telemetry, stats);
    }

    private static RuntimeSnapshot Snapshot(double uptimeSeconds, double cpuMs, long allocatedBytes) =>
        new(
            DateTimeOffset.UnixEpoch.AddSeconds(uptimeSeconds),
            uptimeSeconds,
            2,
            new ThreadPoolTelemetry(4, 0, 0, 2, 100),
            new GCTelemetry(0, 0, 0, allocatedBytes, 0, 0),
            new ProcessTelemetry(cpuMs, 0, 0, 20),
            0,
            0,
            0,
            default(SandboxTelemetry));
}
