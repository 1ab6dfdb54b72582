using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Experiments.Contention;

namespace ConcurrencySandbox.LoadTests.Tests;

public sealed class ContentionExperimentTests
{
    private static readonly ContentionExperiment Contention = new(holdMs: 20);

    [Fact]
    public void EachVariantLoadsItsOwnEndpointWithTheHold()
    {
        Assert.Equal(
            ["/api/contention/lock?holdMs=20", "/api/contention/semaphore-async?holdMs=20"],
            Contention.Variants.Select(v => v.Driver.Request));
        Assert.True(Contention.NeedsFreshApi);
    }

    [Theory]
    [InlineData(12, 500, Outcome.Reproduced)]
    [InlineData(12, 0, Outcome.NotReproduced)]
    [InlineData(11, 500, Outcome.NotReproduced)]
    public void VerdictNeedsTheLocksPoolQueueAtFourTimesTheSemaphoresWithContention(long lockQueue, long lockContentions, Outcome expected)
    {
        var finding = Contention.Assess([Result("lock", lockContentions, lockQueue), Result("semaphore-async", 0, peakQueue: 3)]);

        Assert.Equal(expected, finding.Outcome);
        Assert.Contains(finding.Comparisons, c => c.Seed.Contains("12 s", StringComparison.Ordinal) && c.Today.StartsWith($"{lockQueue} vs 3 items", StringComparison.Ordinal));
        Assert.Contains(finding.Comparisons, c => c.Today == lockContentions.ToString(System.Globalization.CultureInfo.InvariantCulture));
    }

    [Fact]
    public void TheLockContentionFigureIsHowFarTheRuntimesCountMovedDuringTheVariant()
    {
        var figure = Assert.Single(Contention.FiguresOf(Result("lock", 321, peakQueue: 5)));

        Assert.Equal(("runtime lock contentions", 321.0), (figure.Name, figure.Value));
    }

    [Fact]
    public void WithoutTelemetryTheContentionVerdictIsNotAssessed()
    {
        var finding = Contention.Assess([Result("lock", 500, peakQueue: 20, samples: 0), Result("semaphore-async", 0, peakQueue: 1, samples: 0)]);

        Assert.Equal(Outcome.NotAssessed, finding.Outcome);
    }

    /// <summary>Ten seconds at 40 requests a second; the pool's queue and the runtime's contention count climb to the given peaks.</summary>
    private static VariantResult Result(string name, long contentions, long peakQueue, int samples = 11)
    {
        var key = new VariantKey(name);
        var stats = new LatencyStats(new OutcomeCounts(400, 0, 0, 0), 50, 50, 50, 50, 50, 50, 50, 50);
        var telemetry = Enumerable.Range(0, samples)
            .Select(second => new TelemetryRow(key, second, Snapshot(second, peakQueue * second / Math.Max(1, samples - 1), contentions * second / Math.Max(1, samples - 1))))
            .ToList();
        return new VariantResult(key, "/x", "users", 10, [new IntervalRow(key, 10, "users", 4, 40, stats)], telemetry, stats);
    }

    private static RuntimeSnapshot Snapshot(double uptimeSeconds, long queue, long contentions) =>
        new(
            DateTimeOffset.UnixEpoch.AddSeconds(uptimeSeconds),
            uptimeSeconds,
            2,
            new ThreadPoolTelemetry(4, queue, 0, 2, 100),
            new GCTelemetry(0, 0, 0, 0, 0, 0),
            new ProcessTelemetry(0, 0, 0, 20),
            contentions,
            0,
            0,
            default(SandboxTelemetry));
}
