using System.Net;
using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.Experiments.Streaming;
using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments.Streaming;
using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>The streaming experiment's client process (<c>streaming-clients</c>) and where it and the server are pinned.</summary>
public sealed class StreamingClientsTests
{
    private static readonly CpuSet TwoCpus = CpuSet.FirstCores(2);

    [Fact]
    public async Task TheClientProcessesOfTwoAgentsValidateEveryMessageFromARealServerAndTheirReportsAddUp()
    {
        await using var server = StreamingServer.Create(new StreamingServerSettings(StreamingImplementation.SaeaPooled, MessageBytes: 64, IntervalMs: 10, QueueMessages: 1000, MaxClients: 4));
        server.Start(new IPEndPoint(IPAddress.Loopback, 0));

        // Each agent's process pinned to one cpu where taskset can, so the pinning is seen to reach the processes.
        var cpus = CpuSet.CanPin ? CpuSet.Of([CpuSet.OfThisProcess().Cpus.Last()]) : null;
        var pinning = new StreamingPinning(null, null, "test").OnAgents(new AgentPlan(2, null, cpus, TimeSpan.FromSeconds(60)));
        var plan = new StreamingClientsPlan(server.EndPoint!.Port, Clients: 3, ConnectIntervalMs: 5, TimeSpan.FromMinutes(2), TimeSpan.FromMilliseconds(100), Environment.ProcessId);
        var reports = 0;
        await using var clients = await StreamingClientGroup.StartAsync(plan, pinning, _ => Interlocked.Increment(ref reports), CancellationToken.None);
        await Eventually.TrueAsync(() => clients.Latest?.Delivered >= 60, "60 messages checked by the client processes");
        var final = await clients.StopAsync(CancellationToken.None);

        Assert.True(final.Final);
        Assert.True(reports >= 4, $"{reports} reports");
        // Agent 0's share is 1 client and agent 1's 2: together the plan's 3.
        Assert.Equal(3, final.Connected);
        Assert.Equal((0L, 0L, 0L), (final.NotIntact, final.ClosedByServer, final.Failed));
        Assert.Equal(final.Delivered, final.LatenessBuckets.Sum(bucket => bucket.Count));
        Assert.True(final.CpuTimeMs > 0);
        Assert.True(server.Counters().MessagesSent >= final.Delivered);
        if (cpus is not null)
        {
            Assert.Equal(2, final.ProcessorCount);
        }
    }

    [Fact]
    public void ReportsOfProcessesSideBySideAddUpBucketByBucket()
    {
        var sum = StreamingClientGroup.Sum([
            new StreamingClientsReading(2.0, 2, 40, 1, 0, 0, 0, 0, [new LatenessBucket(0, 30), new LatenessBucket(3, 10)], 12.5, 1, Final: true),
            new StreamingClientsReading(2.5, 3, 60, 0, 2, 1, 1, 0, [new LatenessBucket(3, 50), new LatenessBucket(5, 10)], 20, 1, Final: false),
        ]);

        Assert.Equivalent(new StreamingClientsReading(2.5, 5, 100, 1, 2, 1, 1, 0, [new LatenessBucket(0, 30), new LatenessBucket(3, 60), new LatenessBucket(5, 10)], 32.5, 2, Final: false), sum, strict: true);
    }

    [Fact]
    public void AgentCpusSharedWithTheStreamingServerAreRefused()
    {
        var pinning = StreamingPinning.Resolve("0", "1", TwoCpus, canPin: true);

        var error = Assert.Throws<UsageException>(() => pinning.OnAgents(new AgentPlan(2, null, CpuSet.Of([0, 1]), TimeSpan.FromSeconds(60))));

        Assert.Contains("--agent-cpus (0-1) and the streaming server's cpus (0, --server-cpus) must not share a cpu", error.Message);
        Assert.Equal(3, pinning.OnAgents(new AgentPlan(3, null, CpuSet.Of([1]), TimeSpan.FromSeconds(60))).ClientProcesses);
    }

    [Fact]
    public void AReportRoundTripsThroughItsLineAndOtherLinesAreNotReports()
    {
        var reading = new StreamingClientsReading(1.5, 2, 40, 1, 0, 0, 0, 0, [new LatenessBucket(3, 40)], 12.5, 1, Final: false);

        var line = reading.ToLine();

        Assert.StartsWith(StreamingClientsReading.LinePrefix, line);
        Assert.Equivalent(reading, StreamingClientsReading.FromLine(line));
        Assert.Null(StreamingClientsReading.FromLine("warn: something else"));
    }

    [Fact]
    public void EachReportAddsOnlyTheFramesSinceThePreviousOneToTheCurves()
    {
        var recorder = new LatencyRecorder();
        var record = StreamingExperiment.RecordInto(recorder);

        record(new StreamingClientsReading(0.5, 1, 10, 0, 0, 0, 0, 0, [new LatenessBucket(0, 10)], 1, 1, Final: false));
        record(new StreamingClientsReading(1.0, 1, 25, 2, 1, 0, 0, 0, [new LatenessBucket(0, 20), new LatenessBucket(40, 5)], 2, 1, Final: false));
        var stats = recorder.TakeInterval();

        Assert.Equal(25, stats.Ok);
        Assert.Equal(3, stats.Failed);
    }

    [Fact]
    public void OnTwoOrMoreCpusTheServerAndTheClientsArePinnedApartByDefault()
    {
        var pinning = StreamingPinning.Resolve(null, null, CpuSet.FirstCores(4), canPin: true);

        Assert.Equal([0, 1], pinning.Server!.Cpus);
        Assert.Equal([2, 3], pinning.Clients!.Cpus);
        Assert.Equal("server pinned to cpu 0-1, clients to cpu 2-3 (taskset)", pinning.Describe());
    }

    [Fact]
    public void OnOneCpuOrWithoutTasksetNothingIsPinnedAndTheReportSaysWhy()
    {
        var oneCpu = StreamingPinning.Resolve(null, null, CpuSet.FirstCores(1), canPin: true);
        var noTaskset = StreamingPinning.Resolve(null, null, TwoCpus, canPin: false);

        Assert.Null(oneCpu.Server);
        Assert.Null(oneCpu.Clients);
        Assert.Equal("server and clients not pinned (the runner has 1 cpu (0), so server and clients share it)", oneCpu.Describe());
        Assert.Contains("taskset (util-linux) is not installed", noTaskset.Describe());
    }

    [Fact]
    public void OneSideGivenLeavesTheOtherCpusToTheOtherSide()
    {
        var pinning = StreamingPinning.Resolve(null, "0", TwoCpus, canPin: true);

        Assert.Equal([1], pinning.Server!.Cpus);
        Assert.Equal([0], pinning.Clients!.Cpus);
    }

    [Theory]
    [InlineData("--server-cpus must name cpus from 0-1 (the runner's), like 0 or 0-1; got '2'", "2", null)]
    [InlineData("--client-cpus must name cpus from 0-1 (the runner's), like 0 or 0-1; got '1-0'", null, "1-0")]
    [InlineData("--server-cpus (0-1) and --client-cpus (1) must not share a cpu", "0-1", "1")]
    [InlineData("--server-cpus (0-1) leaves none of the runner's cpus (0-1) for the clients", "0-1", null)]
    public void BadPinningIsRefusedNamingTheOptionAndTheCpus(string expected, string? server, string? clients)
    {
        var error = Assert.Throws<UsageException>(() => StreamingPinning.Resolve(server, clients, TwoCpus, canPin: true));

        Assert.Equal(expected, error.Message);
    }

    [Theory]
    [InlineData("0", "0")]
    [InlineData("0-2,5", "0-2,5")]
    [InlineData(" 3 , 1 ", "1,3")]
    [InlineData("1-1,0", "0-1")]
    public void ACpuListParsesAndPrintsAsTasksetWritesIt(string text, string printed) => Assert.Equal(printed, CpuSet.TryParse(text)?.ToString());

    [Theory]
    [InlineData("")]
    [InlineData("-1")]
    [InlineData("2-1")]
    [InlineData("a")]
    [InlineData("1-2-3")]
    public void WhatIsNotACpuListIsRefused(string text) => Assert.Null(CpuSet.TryParse(text));

    [Fact]
    public void TheGroupsReadingCallbackRunsWithNoLockOfTheGroupHeld()
    {
        // The callback (the streaming run's recorder) may need another thread that reads the group's latest sum: with the
        // group's lock held during the call, that thread would wait for it.
        StreamingClientGroup? group = null;
        var otherThreadRead = new List<bool>();
        var sums = new List<long>();
        group = new StreamingClientGroup(2, sum =>
        {
            sums.Add(sum.Delivered);
            if (sums.Count == 1)
            {
                var other = new Thread(() => _ = group!.Latest);
                other.Start();
                otherThreadRead.Add(other.Join(TimeSpan.FromSeconds(60)));
            }
        });

        group.Take(0, Reading(delivered: 40));
        group.Take(1, Reading(delivered: 2));

        Assert.Equal([true], otherThreadRead);
        Assert.Equal([40L, 42L], sums);
    }

    private static StreamingClientsReading Reading(long delivered) => new(2.0, 2, delivered, 0, 0, 0, 0, 0, [], 0, 1, Final: false);
}
