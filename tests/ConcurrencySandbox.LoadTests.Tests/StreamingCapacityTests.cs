using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Experiments.Streaming;

namespace ConcurrencySandbox.LoadTests.Tests;

public sealed class StreamingCapacityTests
{
    [Fact]
    public void TheRampGrowsByHalfPerStepAtLeastOneClientAndEndsExactlyAtTheTop()
    {
        Assert.Equal([200, 300, 450, 675, 1000], new CapacityRamp(200, 1000, TimeSpan.FromSeconds(1)).Counts());
        Assert.Equal([1, 2, 3], new CapacityRamp(1, 3, TimeSpan.FromSeconds(1)).Counts());
        Assert.Equal([7], new CapacityRamp(7, 7, TimeSpan.FromSeconds(1)).Counts());
    }

    [Theory]
    [InlineData(100, 100, 1000, 5, 0, 0, true, "held")]
    [InlineData(100, 90, 900, 5, 0, 0, false, "only 90 of 100 connected")]
    [InlineData(100, 100, 1000, 25, 0, 0, false, "lateness p99 25 ms")]
    [InlineData(100, 100, 1000, 5, 3, 0, false, "3 messages lost, corrupt or out of order")]
    [InlineData(100, 100, 1000, 5, 0, 2, false, "2 clients dropped or failed")]
    [InlineData(100, 100, 800, 5, 0, 0, false, "800 of 1000 messages/s sent")]
    public void AStepHoldsOnlyWhenAllConnectOnTimeNothingIsLostOrDroppedAndTheRateIsKept(
        int clients, int connected, double messagesPerSecond, double p99Ms, long lost, long dropped, bool held, string why)
    {
        var step = new CapacityStep(clients, connected, messagesPerSecond, p99Ms, lost, dropped, 10, 0.1, ScheduledMessagesPerSecond: 1000);

        Assert.Equal(held, step.Held);
        Assert.Equal(why, step.Why);
    }

    [Fact]
    public void TheCapacityIsTheLastStepHeldAndOnlyABoundWhenNoStepFailed()
    {
        var ramp = new CapacityRamp(100, 225, TimeSpan.FromSeconds(1));
        CapacityStep Step(int clients, double p99Ms) => new(clients, clients, clients * 10, p99Ms, 0, 0, 10, 0.1, clients * 10);

        var failedAtTheThird = new CapacitySearch(ramp, [Step(100, 2), Step(150, 3), Step(225, 40)]);
        var neverFailed = new CapacitySearch(ramp, [Step(100, 2), Step(150, 3), Step(225, 4)]);
        var failedAtOnce = new CapacitySearch(ramp, [Step(100, 40)]);

        Assert.Equal((150, false), (failedAtTheThird.Capacity, failedAtTheThird.ReachedTop));
        Assert.Equal((225, true), (neverFailed.Capacity, neverFailed.ReachedTop));
        Assert.Equal((0, false), (failedAtOnce.Capacity, failedAtOnce.ReachedTop));
        Assert.Contains("225 not: lateness p99 40 ms", failedAtTheThird.Describe());
    }

    [Theory]
    [InlineData(150, 338, Outcome.Reproduced, "confirmed: ")]
    [InlineData(225, 225, Outcome.NotReproduced, "refuted: ")]
    [InlineData(150, 225, Outcome.NotAssessed, "inconclusive: pooling holds more clients but less than double")]
    [InlineData(0, 225, Outcome.NotAssessed, "inconclusive: a capacity is only a bound")]
    [InlineData(150, 1000, Outcome.NotAssessed, "inconclusive: a capacity is only a bound")]
    public void TheVerdictPutsThePooledOverAllocatingCapacityBesideDouble(int allocatingCapacity, int pooledCapacity, Outcome outcome, string detail)
    {
        var ramp = new CapacityRamp(100, 1000, TimeSpan.FromSeconds(1));
        var searches = new Dictionary<string, CapacitySearch>
        {
            ["allocating"] = SearchHolding(ramp, allocatingCapacity),
            ["saea-pooled"] = SearchHolding(ramp, pooledCapacity),
        };

        var finding = StreamingCapacity.Judge(searches);

        Assert.Equal(outcome, finding.Outcome);
        Assert.StartsWith(detail, finding.Detail);
    }

    /// <summary>A ramp that holds every step up to <paramref name="capacity"/> and fails the next (none fails at the top).</summary>
    private static CapacitySearch SearchHolding(CapacityRamp ramp, int capacity)
    {
        var steps = new List<CapacityStep>();
        foreach (var clients in ramp.Counts())
        {
            var p99Ms = clients <= capacity ? 2 : 40;
            steps.Add(new CapacityStep(clients, clients, clients * 10, p99Ms, 0, 0, 10, 0.1, clients * 10));
            if (p99Ms > 2)
            {
                break;
            }
        }

        return new CapacitySearch(ramp, steps);
    }
}
