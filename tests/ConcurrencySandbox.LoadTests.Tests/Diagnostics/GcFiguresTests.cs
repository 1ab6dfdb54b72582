using System.Diagnostics;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>When the GC is a cause at a break: enough of the step paused, or grown toward the break from a floor.</summary>
public sealed class GcFiguresTests
{
    [Theory]
    // Paused 6 % of the break: a cause, with or without a lower step.
    [InlineData(0.06, 4_000_000, null, null, true)]
    // 2 % grown from 1 % (or the bytes per request grown 1.5 x): a cause.
    [InlineData(0.02, 4_000_000, 0.01, 4_000_000.0, true)]
    [InlineData(0.02, 6_000_000, 0.02, 4_000_000.0, true)]
    // 2 %, not grown: none. 0.2 % grown from 0.1 % (a hashing handler's quote call): noise, none.
    [InlineData(0.02, 4_000_000, 0.02, 4_000_000.0, false)]
    [InlineData(0.002, 142_000, 0.001, 160_000.0, false)]
    public void TheGcIsACauseWhenItPausedEnoughOrGrewTowardTheBreakFromAFloor(double pauseShare, double bytesPerRequest, double? lowestPause, double? lowestBytes, bool cause)
    {
        var lowest = lowestPause is { } p ? new GcFigures(p, lowestBytes!.Value, 0) : null;

        Assert.Equal(cause, new GcFigures(pauseShare, bytesPerRequest, 0).IsCauseBeside(lowest));
    }

    /// <summary>
    /// A step of 6 s read through the observer's rows (<see cref="ObservedTelemetry"/>): the runtime published its counters
    /// each second, each payload the growth of a running total since the one before (20 ms of pauses and 1 MB allocated a
    /// second), 10 requests ending a second; the payloads of seconds 2 and 3 came late, with the one of second 4 (a busy
    /// machine's timer), which then carries their growth: 60 ms and 3 MB.
    /// </summary>
    private static VariantResult LateSampleStep()
    {
        var key = new VariantKey("8-users");
        var second = Stopwatch.Frequency;
        RuntimeSample At(int t, int seconds) => new(t * second, t, new Dictionary<string, double>
        {
            [RuntimeObserver.GcPauseMs] = 20.0 * seconds,
            [RuntimeObserver.AllocationBytes] = 1_000_000.0 * seconds,
            [RuntimeObserver.HeapSizeMb] = 8,
            [RuntimeObserver.CpuPercent] = 50,
        })
        { CpuIntervalSeconds = seconds };
        var rows = ObservedTelemetry.Rows(key, 0, [At(0, 1), At(1, 1), At(4, 3), At(5, 1), At(6, 1)], processorCount: 2);
        var intervals = Enumerable.Range(1, 6).Select(t => new IntervalRow(key, t, "users", 8, 10, TestStats.Uniform(10, 40, p99Ms: 90))).ToList();
        return new VariantResult(key, "/x", "users", 6, intervals, rows, TestStats.Uniform(60, 40, p99Ms: 90));
    }

    [Fact]
    public void TheGcFiguresAreReadOverASampleThatCameLateForItCarriesTheWholeGap()
    {
        var step = LateSampleStep();
        Assert.Equal(3, step.Telemetry.Zip(step.Telemetry.Skip(1), (a, b) => b.ElapsedSeconds - a.ElapsedSeconds).Max(), 9);

        var (figures, notRead) = GcFigures.Between(step, double.NegativeInfinity, step.ElapsedSeconds, eventsLost: 0);

        Assert.Null(notRead);
        // 2 % of the time paused and 100 KB a request, exactly as with a sample every second.
        Assert.Equal(0.02, figures!.PauseShare, 9);
        Assert.Equal(100_000, figures.BytesPerRequest, 6);
        Assert.Equal(figures, GcFigures.Of(step, eventsLost: 0));
    }

    [Fact]
    public void TheGcFiguresAreNotReadWhenTheSessionLostEventsForAPayloadMayBeAmongThem()
    {
        var (figures, notRead) = GcFigures.Between(LateSampleStep(), double.NegativeInfinity, 6, eventsLost: 3);

        Assert.Null(figures);
        Assert.Equal($"the observer's session lost {CountText.Of(3, "runtime event")}, so the GC's counter sums may miss a payload", notRead);
    }
}
