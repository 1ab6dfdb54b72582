using System.Net;
using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.Testing;

namespace ConcurrencySandbox.LoadTests.Tests;

public class AgentCoordinatorTests
{
    private static readonly LoadShape ThreeUsers = new([new KeepConstant(3, TimeSpan.FromSeconds(0.6))], TimeSpan.FromSeconds(0.2));

    [Fact]
    public void AnAgentOfAnotherVersionIsRefusedWithBothVersionsNamed()
    {
        var reason = AgentCoordinator.Refusal(new AgentHello(0, "1.0.0+aaaa", "host", 1), "1.0.0+bbbb", [false, false]);

        Assert.Contains("1.0.0+aaaa", reason);
        Assert.Contains("1.0.0+bbbb", reason);
    }

    [Theory]
    [InlineData(2, false, "outside 0..1")]
    [InlineData(0, true, "already registered")]
    [InlineData(-1, true, "all 2 agent places are taken")]
    public void AHelloForNoFreePlaceIsRefused(int index, bool taken, string expected) =>
        Assert.Contains(expected, AgentCoordinator.Refusal(new AgentHello(index, "v", "host", 1), "v", [taken, taken]));

    [Fact]
    public void AHelloWithoutAnIndexGetsAPlaceWhileOneIsFree() =>
        Assert.Null(AgentCoordinator.Refusal(new AgentHello(-1, "v", "host", 1), "v", [true, false]));

    [Theory]
    [InlineData("tcp://10.1.2.3:7070", false, "not a loopback address")]
    [InlineData("tcp://coordinator:7070", false, "not a loopback address")]
    [InlineData("http://127.0.0.1:7070", false, "must be tcp://host:port")]
    public void ACoordinatorUrlOffThisMachineIsRefusedOutsideAContainerNetwork(string url, bool inContainer, string expected) =>
        Assert.Contains(expected, Assert.Throws<UsageException>(() => AgentAddress.CoordinatorUrl(url, inContainer)).Message);

    [Fact]
    public void ACoordinatorByServiceNameIsTakenInAContainerNetwork()
    {
        Assert.Equal("coordinator", AgentAddress.CoordinatorUrl("tcp://coordinator:7070", inContainerNetwork: true).Host);
        Assert.Equal(IPAddress.Any, AgentAddress.ListenEndpoint("0.0.0.0:7070", inContainerNetwork: true).Address);
        Assert.Contains("not a loopback address", Assert.Throws<UsageException>(() => AgentAddress.ListenEndpoint("0.0.0.0:7070", inContainerNetwork: false)).Message);
    }

    [Fact]
    public async Task AnAgentOfAnotherVersionExitsWith2NamingBothVersions()
    {
        using var coordinator = AgentCoordinator.Listen(new IPEndPoint(IPAddress.Loopback, 0), 1, TextWriter.Null, version: "0.0.1+other");
        coordinator.BarrierDeadline = TimeSpan.FromSeconds(30);
        using var console = new StringWriter();
        var agent = new AgentSession(coordinator.Address, 0, LogFolder(), console);

        var registering = coordinator.WaitForAgentsAsync(CancellationToken.None);
        var code = await agent.RunAsync(CancellationToken.None);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains("0.0.1+other", console.ToString());
        Assert.Contains(AgentWire.Version, console.ToString());
        _ = registering;
    }

    [Fact]
    public async Task NoAgentSendsBeforeTheBarrierIsReleasedAndTheReleaseWaitsForTheSlowestAgent()
    {
        // One clock of stamps: every send, the moment the slowest agent was let through, and the release.
        long clock = 0;
        var sends = new List<long>();
        long slowestReadyAt = 0;
        long releasedAt = 0;
        using var slowest = new SemaphoreSlim(0);
        var clientsBuilt = 0;
        using var coordinator = AgentCoordinator.Listen(new IPEndPoint(IPAddress.Loopback, 0), 3, TextWriter.Null);
        coordinator.BarrierDeadline = TimeSpan.FromSeconds(60);
        var registering = coordinator.WaitForAgentsAsync(CancellationToken.None);
        var agents = Enumerable.Range(0, 3).Select(index => Task.Run(() => new AgentSession(coordinator.Address, index, LogFolder(), TextWriter.Null)
        {
            ClientFor = (_, _) =>
            {
                Interlocked.Increment(ref clientsBuilt);
                if (index == 2)
                {
                    // The last agent reaches the barrier only when the test lets it.
                    slowest.Wait();
                    Interlocked.Exchange(ref slowestReadyAt, Interlocked.Increment(ref clock));
                }
                return new StampingClient(() =>
                {
                    lock (sends)
                    {
                        sends.Add(Interlocked.Increment(ref clock));
                    }
                });
            },
        }.RunAsync(CancellationToken.None))).ToList();
        await registering;

        var merge = new AgentMerge(new VariantKey("barrier"), ThreeUsers, 3, IVariantProgress.OfIntervals(_ => { }));
        var running = coordinator.RunVariantAsync(
            segment => AgentWire.AssignmentFor(new VariantKey("barrier"), new Uri("http://127.0.0.1:9/"), "/x", new LoadOptions(ThreeUsers, "test", TimeSpan.FromSeconds(5), 10), segment),
            () => Interlocked.Exchange(ref releasedAt, Interlocked.Increment(ref clock)),
            merge,
            CancellationToken.None);
        await Eventually.TrueAsync(() => Volatile.Read(ref clientsBuilt) == 3, "every agent building its client");
        lock (sends)
        {
            Assert.Empty(sends);
        }
        slowest.Release();
        var outcomes = await running;
        coordinator.Finish();

        Assert.All(await Task.WhenAll(agents), code => Assert.Equal(0, code));
        Assert.All(outcomes, o => Assert.Null(o.Fault));
        Assert.True(releasedAt > slowestReadyAt, "the barrier was released before the slowest agent was ready");
        Assert.NotEmpty(sends);
        Assert.All(sends, stamp => Assert.True(stamp > releasedAt, "an agent sent before the barrier was released"));
        // Each agent's first request after the release is unmeasured, as the single runner's warm-up is.
        var merged = merge.Finish("/x", outcomes);
        Assert.Equal(sends.Count - 3, merged.Total.Requests);
        Assert.Equal(outcomes.Sum(o => AgentMerge.RowOf(o).Requests), merged.Total.Requests);
    }

    [Fact]
    public async Task EachMergedIntervalReachesTheProgressOnceEveryRunningAgentSentItBeforeTheVariantEnds()
    {
        using var coordinator = AgentCoordinator.Listen(new IPEndPoint(IPAddress.Loopback, 0), 2, TextWriter.Null);
        coordinator.BarrierDeadline = TimeSpan.FromSeconds(60);
        var arrived = 0;
        coordinator.IntervalReceived = _ => Interlocked.Increment(ref arrived);
        var registering = coordinator.WaitForAgentsAsync(CancellationToken.None);
        var agents = await Task.WhenAll(Enumerable.Range(0, 2).Select(index => ConnectAsync(coordinator.Address, index)));
        await registering;
        var rows = new List<IntervalRow>();
        var merge = new AgentMerge(new VariantKey("live"), ThreeUsers, 2, IVariantProgress.OfIntervals(row =>
        {
            lock (rows)
            {
                rows.Add(row);
            }
        }));
        var running = coordinator.RunVariantAsync(
            segment => AgentWire.AssignmentFor(new VariantKey("live"), new Uri("http://127.0.0.1:9/"), "/x", new LoadOptions(ThreeUsers, "test", TimeSpan.FromSeconds(5), 10), segment),
            () => { },
            merge,
            CancellationToken.None);
        foreach (var (agent, index) in agents.Select((a, i) => (a, i)))
        {
            Assert.IsType<AgentAssignment>(await agent.ReceiveAsync(CancellationToken.None));
            agent.Send(new AgentReady(index));
        }
        foreach (var agent in agents)
        {
            Assert.IsType<AgentStart>(await agent.ReceiveAsync(CancellationToken.None));
        }

        // Agent 0's first interval alone is not merged: agent 1's part of it is still to come.
        agents[0].Send(Interval(0, sequence: 0, requests: 3));
        agents[0].Send(Interval(0, sequence: 1, requests: 4));
        await Eventually.TrueAsync(() => Volatile.Read(ref arrived) == 2, "agent 0's two intervals reaching the merge");
        lock (rows)
        {
            Assert.Empty(rows);
        }
        agents[1].Send(Interval(1, sequence: 0, requests: 5));
        await Eventually.TrueAsync(() => { lock (rows) { return rows.Count == 1; } }, "the first merged interval in the progress");

        lock (rows)
        {
            Assert.Equal(8, rows[0].Stats.Requests);
        }
        Assert.False(running.IsCompleted, "the variant ended before its first merged interval was shown");
        // Agent 1 dies: the interval only agent 0 sent is merged at once, marked as lacking agent 1.
        agents[1].Dispose();
        await Eventually.TrueAsync(() => { lock (rows) { return rows.Count == 2; } }, "the interval agent 1 never sent, merged without it");
        lock (rows)
        {
            Assert.Equal(4, rows[1].Stats.Requests);
            Assert.Equal([1], rows[1].MissingAgents);
        }
        agents[0].Send(new AgentDone(0, 0.6, 0.1, 1, 0, [], []));
        var outcomes = await running;
        var merged = merge.Finish("/x", outcomes);

        Assert.Equal(12, merged.Total.Requests);
        Assert.Equal(rows.Select(r => r.Stats.Requests), merged.Intervals.Select(r => r.Stats.Requests));
        Assert.Contains("died mid-run", outcomes[1].Fault);
        agents[0].Dispose();
    }

    private static async Task<AgentLink> ConnectAsync(Uri coordinator, int index)
    {
        var client = new System.Net.Sockets.TcpClient();
        await client.ConnectAsync(IPAddress.Loopback, coordinator.Port);
        var link = new AgentLink(client);
        link.Send(new AgentHello(index, AgentWire.Version, "test", 1));
        return link;
    }

    [Fact]
    public void TheMergeCallsTheProgressWithNoLockOfItsOwnHeldAndInIntervalOrder()
    {
        // The progress may wait for another agent's reading task (the console, the live page): with the merge's lock held
        // during the call, that task could not hand in its interval.
        AgentMerge? merge = null;
        var merged = new List<int>();
        var otherAgentGotIn = new List<bool>();
        merge = new AgentMerge(new VariantKey("unlocked"), ThreeUsers, 2, IVariantProgress.OfIntervals(row =>
        {
            merged.Add((int)row.Stats.Requests);
            if (merged.Count == 1)
            {
                var other = new Thread(() => merge!.Received(Interval(1, sequence: 1, requests: 7)));
                other.Start();
                otherAgentGotIn.Add(other.Join(TimeSpan.FromSeconds(60)));
            }
        }));

        merge.Received(Interval(0, sequence: 0, requests: 3));
        merge.Received(Interval(0, sequence: 1, requests: 4));
        merge.Received(Interval(1, sequence: 0, requests: 5));

        Assert.Equal([true], otherAgentGotIn);
        // Interval 1, completed on the other thread while interval 0 was being shown, is shown after it.
        Assert.Equal([8, 11], merged);
    }

    private static AgentInterval Interval(int index, int sequence, int requests)
    {
        var histogram = LatencyRecorder.NewHistogram();
        for (var i = 0; i < requests; i++)
        {
            histogram.RecordValue(1000 + i);
        }
        return new AgentInterval(index, sequence, 0.2 * (sequence + 1), Partial: false, HistogramWire.Encode(histogram), requests, 0, 0, 0, 0.01, []);
    }

    private static string LogFolder() => Path.Combine(Path.GetTempPath(), "agent-tests", Guid.NewGuid().ToString());

    private sealed class StampingClient(Action stamp) : IHttpLoadClient
    {
        public SendRequest Get(string pathAndQuery, IResponseProbe? probe = null) => async cancellationToken =>
        {
            stamp();
            await Task.Delay(5, cancellationToken);
            return RequestOutcome.Success;
        };

        public void Dispose()
        {
        }
    }
}
