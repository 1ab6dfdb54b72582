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
    // Each capacity is known to the ramp's step (held 150, failed 225): the ratio is the interval between the far ends.
    // The capacity confirmed is no "Reproduced": the search does not measure the garbage and the heap (partly reproduced).
    [InlineData(150, 1000, ClaimVerdict.Confirmed, Outcome.Inconclusive, "saea-pooled at least 1,000 / allocating between 150 and 225")]
    [InlineData(0, 225, ClaimVerdict.Confirmed, Outcome.Inconclusive, "saea-pooled between 225 and 338 / allocating below 100")]
    [InlineData(225, 225, ClaimVerdict.Refuted, Outcome.NotReproduced, "saea-pooled between 225 and 338 / allocating between 225 and 338")]
    [InlineData(150, 225, ClaimVerdict.Inconclusive, Outcome.Inconclusive, "saea-pooled between 225 and 338 / allocating between 150 and 225")]
    [InlineData(150, 338, ClaimVerdict.Inconclusive, Outcome.Inconclusive, "saea-pooled between 338 and 507 / allocating between 150 and 225")]
    // Equal CPU per message at the seven counts both held: "less CPU" refuted decides the outcome, the capacity decides nothing.
    [InlineData(1000, 1000, ClaimVerdict.Inconclusive, Outcome.NotReproduced, "allocating and saea-pooled both at least 1,000: no ratio")]
    public void TheCapacityClaimTakesTheRatioOfTwoBracketsAndNeverOfTwoLowerBounds(int allocatingCapacity, int pooledCapacity, ClaimVerdict verdict, Outcome outcome, string figure)
    {
        var ramp = new CapacityRamp(100, 1000, TimeSpan.FromSeconds(1));
        var searches = new Dictionary<string, CapacitySearch>
        {
            ["allocating"] = SearchHolding(ramp, allocatingCapacity),
            ["saea-pooled"] = SearchHolding(ramp, pooledCapacity),
        };

        var finding = StreamingCapacity.Judge(searches);

        var capacity = finding.Claims.Single(c => c.What == "capacity doubled");
        Assert.Equal((verdict, figure), (capacity.Verdict, capacity.Figure));
        Assert.Equal(outcome, finding.Outcome);
        Assert.Equal(verdict == ClaimVerdict.Confirmed, finding.Verdict.StartsWith("Partly reproduced: 1 of 4 claims confirmed, ", StringComparison.Ordinal));
        Assert.DoesNotContain("1 x (", finding.Verdict);
    }

    [Fact]
    public void ThreeVariantsAtTheTopOfTheRampAreNamedAsAListThatReadsAsOne()
    {
        // The committed streaming-capacity read "allocating and saea-pooled, pipelines both at least 9000".
        var ramp = new CapacityRamp(100, 1000, TimeSpan.FromSeconds(1));
        var searches = new Dictionary<string, CapacitySearch>
        {
            ["allocating"] = SearchHolding(ramp, 1000),
            ["saea-pooled"] = SearchHolding(ramp, 1000),
            ["pipelines"] = SearchHolding(ramp, 1000),
        };

        var capacity = StreamingCapacity.Judge(searches).Claims.Single(c => c.What == "capacity doubled");

        Assert.Equal("allocating, saea-pooled and pipelines all at least 1,000: no ratio", capacity.Figure);
    }

    [Fact]
    public void EverySeedClaimGetsALineAndTheHeapAndGarbageSayTheyAreNotMeasuredByTheSearch()
    {
        var ramp = new CapacityRamp(100, 1000, TimeSpan.FromSeconds(1));
        var finding = StreamingCapacity.Judge(new Dictionary<string, CapacitySearch> { ["allocating"] = SearchHolding(ramp, 150), ["saea-pooled"] = SearchHolding(ramp, 1000) });

        Assert.Equal(["capacity doubled", "garbage gone", "heap halved", "less CPU"], finding.Claims.Select(c => c.What));
        Assert.All(finding.Claims.Where(c => c.What is "garbage gone" or "heap halved"), c => Assert.Equal((ClaimVerdict.Inconclusive, "not measured by --find-capacity"), (c.Verdict, c.Figure)));
    }

    [Theory]
    [InlineData(5, ClaimVerdict.Confirmed)]
    [InlineData(20, ClaimVerdict.Refuted)]
    public void LessCpuIsThePairedRatioAtEveryClientCountBothHeldWithItsInterval(double pooledCpuMicroseconds, ClaimVerdict verdict)
    {
        // Nine steps, all held by both: nine paired ratios, enough for a 95 % CI of their median.
        var ramp = new CapacityRamp(100, 2000, TimeSpan.FromSeconds(1));
        var finding = StreamingCapacity.Judge(new Dictionary<string, CapacitySearch>
        {
            ["allocating"] = SearchHolding(ramp, 2000),
            ["saea-pooled"] = SearchHolding(ramp, 2000, pooledCpuMicroseconds),
        });

        var cpu = finding.Claims.Single(c => c.What == "less CPU");
        Assert.Equal(verdict, cpu.Verdict);
        Assert.Contains("over 9+ steps both held", cpu.Interval);
        // Less CPU confirmed beside claims the search cannot decide is partly reproduced, never "Reproduced".
        Assert.Equal(verdict == ClaimVerdict.Confirmed ? Outcome.Inconclusive : Outcome.NotReproduced, finding.Outcome);
        Assert.Equal(verdict == ClaimVerdict.Confirmed, finding.Partly);
    }

    [Theory]
    [InlineData(0.5, 1, "The clients were not the limit: their processes used at most 50 % of their 1 core at the deciding step (allocating 50 % at 225 clients, saea-pooled 50 % at 338 clients).")]
    [InlineData(0.95, 1, "The clients may have been the limit of allocating, saea-pooled")]
    [InlineData(0.95, 2, "The clients were not the limit: their processes used at most 48 % of their 2 cores")]
    public void TheVerdictSaysWhetherTheClientsWereTheLimitFromTheirCpuShareAtTheDecidingStep(double clientCoresBusy, int clientCores, string expected)
    {
        var ramp = new CapacityRamp(100, 1000, TimeSpan.FromSeconds(1));
        CapacitySearch Search(int capacity)
        {
            var search = SearchHolding(ramp, capacity);
            return search with { Steps = [.. search.Steps.Select(step => step with { ClientCpuCoresBusy = clientCoresBusy })], ClientCores = clientCores };
        }

        var finding = StreamingCapacity.Judge(new Dictionary<string, CapacitySearch> { ["allocating"] = Search(150), ["saea-pooled"] = Search(225) });

        Assert.Contains(expected, finding.Verdict);
    }

    [Fact]
    public void TheSearchHoldsNoVariantToAFailedShareAndMarksNoneExpectedToFail()
    {
        var capacity = new StreamingCapacity(StreamingLoad.Seed001Shape, new CapacityRamp(100, 200, TimeSpan.FromSeconds(1)), new StreamingPinning(null, null, "test"));

        Assert.Empty(capacity.DefaultThresholds);
        Assert.Empty(capacity.ExpectedToFail);
        Assert.Contains("does not apply to a TCP push stream", capacity.DiagnosisDoesNotApplyBecause);
    }

    /// <summary>A ramp that holds every step up to <paramref name="capacity"/> and fails the next (none fails at the top).</summary>
    private static CapacitySearch SearchHolding(CapacityRamp ramp, int capacity, double cpuMicrosecondsPerMessage = 10)
    {
        var steps = new List<CapacityStep>();
        foreach (var clients in ramp.Counts())
        {
            var p99Ms = clients <= capacity ? 2 : 40;
            steps.Add(new CapacityStep(clients, clients, clients * 10, p99Ms, 0, 0, cpuMicrosecondsPerMessage, 0.1, clients * 10));
            if (p99Ms > 2)
            {
                break;
            }
        }

        return new CapacitySearch(ramp, steps);
    }
}
