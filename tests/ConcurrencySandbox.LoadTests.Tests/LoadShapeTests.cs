using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class LoadShapeTests
{
    [Fact]
    public void Seed003ProfileStartsAtFourUsersAndAddsFourEvery45Seconds()
    {
        var shape = Profiles.Create("seed003", openRatePerSecond: 1);

        Assert.False(shape.IsOpen);
        Assert.Equal(TimeSpan.FromMinutes(8), shape.Duration);
        Assert.Equal(4, shape.UsersAt(TimeSpan.Zero));
        Assert.Equal(4, shape.UsersAt(TimeSpan.FromSeconds(44.9)));
        Assert.Equal(8, shape.UsersAt(TimeSpan.FromSeconds(45)));
        Assert.Equal(44, shape.UsersAt(TimeSpan.FromSeconds(479)));
        Assert.Equal(0, shape.UsersAt(TimeSpan.FromSeconds(481)));
    }

    [Fact]
    public void QuickProfileIsTheSeedShapeCompressedToOneMinute()
    {
        var shape = Profiles.Create("quick", openRatePerSecond: 1);

        Assert.Equal(TimeSpan.FromMinutes(1), shape.Duration);
        Assert.Equal(10, shape.Steps.Count);
        Assert.Equal(40, shape.UsersAt(TimeSpan.FromSeconds(59)));
    }

    [Fact]
    public void SteppedRampShortensTheLastStepToTheTotal()
    {
        var steps = Profiles.SteppedRamp(4, 4, TimeSpan.FromSeconds(45), TimeSpan.FromMinutes(8));

        Assert.Equal(11, steps.Count);
        Assert.Equal(TimeSpan.FromSeconds(30), steps[^1].During);
        Assert.Equal([4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44], steps.Select(s => (int)s.Target));
    }

    [Fact]
    public void RampingConstantMovesLinearlyFromThePreviousStep()
    {
        var shape = new LoadShape([new KeepConstant(2, TimeSpan.FromSeconds(10)), new RampingConstant(12, TimeSpan.FromSeconds(10))], TimeSpan.FromSeconds(1));

        Assert.Equal(2, shape.UsersAt(TimeSpan.FromSeconds(9)));
        Assert.Equal(7, shape.UsersAt(TimeSpan.FromSeconds(15)));
        Assert.Equal(11, shape.UsersAt(TimeSpan.FromSeconds(19.5)));
    }

    [Fact]
    public void MixingClosedAndOpenSimulationsIsRefused()
    {
        Assert.Throws<ArgumentException>(() =>
            new LoadShape([new KeepConstant(2, TimeSpan.FromSeconds(1)), new Inject(5, TimeSpan.FromSeconds(1))], TimeSpan.FromSeconds(1)));
    }

    [Fact]
    public void ConstantRateSpacesIntendedStartsEvenly()
    {
        var shape = new LoadShape([new Inject(10, TimeSpan.FromSeconds(2))], TimeSpan.FromSeconds(1));

        var startSeconds = Enumerable.Range(0, 21).Select(i => shape.IntendedStart(i)?.TotalSeconds).ToList();

        Assert.Equal(0.1, startSeconds[0]!.Value, 6);
        Assert.Equal(1.0, startSeconds[9]!.Value, 6);
        Assert.Equal(2.0, startSeconds[19]!.Value, 6);
        Assert.Null(startSeconds[20]);
    }

    [Fact]
    public void RampingRateSchedulesTheIntegralOfTheRate()
    {
        // 0 -> 10 requests/s over 10 s is 50 requests, closer together as the rate climbs.
        var shape = new LoadShape([new RampingInject(10, TimeSpan.FromSeconds(10))], TimeSpan.FromSeconds(1));
        var starts = Enumerable.Range(0, 100).Select(i => shape.IntendedStart(i)).TakeWhile(s => s is not null).Select(s => s!.Value.TotalSeconds).ToList();

        Assert.Equal(50, starts.Count);
        Assert.Equal(Math.Sqrt(2), starts[0], 6); // 10/10 * t^2 / 2 = 1
        Assert.Equal(10, starts[^1], 6);
        var gaps = starts.Zip(starts.Skip(1), (a, b) => b - a).ToList();
        Assert.True(gaps.Zip(gaps.Skip(1)).All(pair => pair.Second <= pair.First + 1e-9), "gaps shrink as the rate rises");
    }
}
