using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class AgentShareTests
{
    public static TheoryData<int> AgentCounts => [1, 2, 3, 4, 5, 6, 7];

    [Theory]
    [MemberData(nameof(AgentCounts))]
    public void UserSharesAddUpToEveryUserCountAndDifferByAtMostOne(int agents)
    {
        for (var users = 0; users <= 100; users++)
        {
            var shares = Segments(agents).Select(s => s.UsersOf(users)).ToList();
            Assert.Equal(users, shares.Sum());
            Assert.True(shares.Max() - shares.Min() <= 1, $"{users} users over {agents} agents: {string.Join(",", shares)}");
        }
    }

    [Theory]
    [MemberData(nameof(AgentCounts))]
    public void ClosedAgentsTogetherRunTheShapesUsersAtEveryMoment(int agents)
    {
        var shape = new LoadShape(Profiles.SteppedRamp(7, 3, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(5)), TimeSpan.FromSeconds(1));
        var whole = new ClosedModel(shape);
        var parts = Segments(agents).Select(s => new ClosedModel(shape, s)).ToList();
        for (var ms = 0; ms < 5000; ms += 250)
        {
            var from = TimeSpan.FromMilliseconds(ms);
            var to = from + TimeSpan.FromMilliseconds(250);
            Assert.Equal(whole.LoadBetween(from, to), parts.Sum(p => p.LoadBetween(from, to)));
        }
    }

    [Theory]
    [MemberData(nameof(AgentCounts))]
    public void OpenAgentsTogetherSendTheSingleRunnersScheduleRequestForRequest(int agents)
    {
        // A ramp then a plateau: 20/s over 2 s, then 20/s for 1 s = 40 arrivals, each at the same intended start as one runner's.
        var shape = new LoadShape([new RampingInject(20, TimeSpan.FromSeconds(2)), new Inject(20, TimeSpan.FromSeconds(1))], TimeSpan.FromSeconds(1));
        var single = Schedule(shape, LoadSegment.Whole);
        var merged = Segments(agents).SelectMany(s => Schedule(shape, s)).Order().ToList();
        Assert.Equal(40, single.Count);
        Assert.Equal(single, merged);
        Assert.Equal(20, Segments(agents).Sum(s => s.RateOf(20)), 9);
    }

    [Fact]
    public void AClosedShapeWithFewerPeakUsersThanAgentsIsAZeroShare()
    {
        var shape = new LoadShape([new KeepConstant(3, TimeSpan.FromSeconds(1))], TimeSpan.FromSeconds(1));
        Assert.Null(LoadSegment.ZeroShare(shape, 3));
        Assert.Contains("use at most 3 agents", LoadSegment.ZeroShare(shape, 4));
    }

    [Fact]
    public void AnOpenShapeWithFewerArrivalsThanAgentsIsAZeroShare()
    {
        var shape = new LoadShape([new Inject(2, TimeSpan.FromSeconds(1))], TimeSpan.FromSeconds(1));
        Assert.Null(LoadSegment.ZeroShare(shape, 2));
        Assert.Contains("fewer than 3 arrivals", LoadSegment.ZeroShare(shape, 3));
    }

    private static IEnumerable<LoadSegment> Segments(int count) => Enumerable.Range(0, count).Select(i => new LoadSegment(i, count));

    private static List<TimeSpan> Schedule(LoadShape shape, LoadSegment segment)
    {
        var starts = new List<TimeSpan>();
        for (long n = 0; shape.IntendedStart(segment.ArrivalIndex(n)) is { } due; n++)
        {
            starts.Add(due);
        }
        return starts;
    }
}
