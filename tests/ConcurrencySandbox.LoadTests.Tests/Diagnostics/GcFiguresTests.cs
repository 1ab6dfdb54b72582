using ConcurrencySandbox.LoadTests.Diagnostics;

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
}
