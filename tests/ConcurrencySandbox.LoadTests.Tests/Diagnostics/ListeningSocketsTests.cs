using System.Net;
using System.Net.Sockets;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>run --url without --pid: the process behind the URL's port, found through /proc/net/tcp{,6} and /proc/PID/fd.</summary>
public sealed class ListeningSocketsTests
{
    // Rows as Linux writes them: 127.0.0.1:8080 listening (uid 1000, inode 4242), *:22 listening, an established
    // connection on 8080 and 10.0.0.5:8081 listening.
    private const string Tcp = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0
           1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0000000000000000 100 0 0 10 0
           2: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 5555 1 0000000000000000 20 4 30 10 -1
           3: 0500000A:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 7777 1 0000000000000000 100 0 0 10 0
        """;

    // [::1]:8080, [::]:8081 and [::ffff:127.0.0.1]:8082 listening.
    private const string Tcp6 = """
          sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 9999 1 0000000000000000 100 0 0 10 0
           1: 00000000000000000000000000000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 8888 1 0000000000000000 100 0 0 10 0
           2: 0000000000000000FFFF00000100007F:1F92 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 6666 1 0000000000000000 100 0 0 10 0
        """;

    [Fact]
    public void OnlyListeningRowsAreReadWithTheirAddressPortOwnerAndInode()
    {
        var sockets = ListeningSockets.Parse(Tcp);

        Assert.Equal(
            [new ListeningSocket(IPAddress.Loopback, 8080, 1000, 4242), new ListeningSocket(IPAddress.Any, 22, 0, 1111), new ListeningSocket(IPAddress.Parse("10.0.0.5"), 8081, 1000, 7777)],
            sockets);
    }

    [Fact]
    public void Ipv6RowsAreReadWordByWord()
    {
        var sockets = ListeningSockets.Parse(Tcp6);

        Assert.Equal([IPAddress.IPv6Loopback, IPAddress.IPv6Any, IPAddress.Parse("::ffff:127.0.0.1")], sockets.Select(s => s.Address));
        Assert.Equal([8080, 8081, 8082], sockets.Select(s => s.Port));
        Assert.Equal([9999L, 8888L, 6666L], sockets.Select(s => s.Inode));
    }

    [Fact]
    public void ALoopbackConnectionReachesLoopbackAndAnyAddressListenersButNotAnotherInterfaces()
    {
        var reached = ListeningSockets.Parse(Tcp).Concat(ListeningSockets.Parse(Tcp6)).Where(s => s.AcceptsLoopback).Select(s => s.Inode);

        Assert.Equal([4242L, 1111L, 9999L, 8888L, 6666L], reached);
    }

    [Theory]
    [InlineData("socket:[4242]", 4242L)]
    [InlineData("socket:[]", null)]
    [InlineData("pipe:[4242]", null)]
    [InlineData("/dev/null", null)]
    public void OnlySocketLinksNameAnInode(string link, long? inode) =>
        Assert.Equal(inode, ListeningSockets.SocketInode(link));

    // One process's sockets (inodes 4242, 5555, 6000): listening on 127.0.0.1:8080, a request accepted on it (local port
    // 8080) and a call it opened from 127.0.0.1:50001 to 127.0.0.1:8081; inode 7000 is another process's call.
    private const string Connections = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0
           1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 5555 1 0000000000000000 20 4 30 10 -1
           2: 0100007F:C351 0100007F:1F91 01 00000000:00000000 00:00000000 00000000  1000        0 6000 1 0000000000000000 20 4 30 10 -1
           3: 0100007F:C352 0100007F:1F91 01 00000000:00000000 00:00000000 00000000  1000        0 7000 1 0000000000000000 20 4 30 10 -1
        """;

    /// <summary>The calls' trace is skipped for a service that holds no connection it opened: an accepted request's connection is not one.</summary>
    [Fact]
    public void AConnectionOnAnEphemeralPortIsOutgoingAndAnAcceptedOneIsNot()
    {
        Assert.False(ListeningSockets.HoldsOutgoingConnection([Connections], new HashSet<long> { 4242, 5555, 7001 }));
        Assert.True(ListeningSockets.HoldsOutgoingConnection([Connections], new HashSet<long> { 4242, 5555, 6000 }));
        Assert.False(ListeningSockets.HoldsOutgoingConnection([Connections], new HashSet<long>()));
    }

    [FactOnLinux]
    public void AProcessIsReadForTheConnectionsItOpened()
    {
        using var sleeper = System.Diagnostics.Process.Start("sleep", "30");
        try
        {
            Assert.False(ListeningSockets.HoldsOutgoingConnection(sleeper.Id), "a process without sockets opened none");
        }
        finally
        {
            sleeper.Kill();
        }
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        using var client = new TcpClient();
        client.Connect((IPEndPoint)listener.LocalEndpoint);
        Assert.True(ListeningSockets.HoldsOutgoingConnection(Environment.ProcessId), "this process connected to its own listener");
        Assert.Null(ListeningSockets.HoldsOutgoingConnection(int.MaxValue));
    }

    [FactOnLinux]
    public void APortNobodyListensOnHasNoProcessAndSaysWhy()
    {
        using var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        var port = ((IPEndPoint)probe.LocalEndpoint).Port;
        probe.Stop();

        var (processId, problem) = ObserverTarget.FindByPort(port);

        Assert.Null(processId);
        Assert.Contains($"no socket listens on loopback port {port}", problem);
    }

    [FactOnLinux]
    [Trait("Category", "Slow")]
    public async Task RunUrlAloneFindsAndObservesTheProcessListeningOnTheUrlsPort()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        var (code, output, error, summary) = await RunUrlSmokeAsync(service);

        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}");
        Assert.Contains($"observing pid {service.ProcessId} (listening on port {service.BaseAddress.Port})", output);
        Assert.Equal($"the runtime observer over the diagnostics IPC channel of pid {service.ProcessId}", summary!.Variants[0].TelemetrySource);
        Assert.True(summary.Observations["target"].Samples > 0, "the observer's counters are in the report");
    }

    [FactOnLinux]
    [Trait("Category", "Slow")]
    public async Task RunUrlJudgesAThresholdAndFeedsTheSameProgressAsTheExperiments()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        var (code, output, error, summary) = await RunUrlSmokeAsync(service, "--threshold", "target:p99<0.001");

        Assert.True(code == CommandLine.ExitThresholdFailed, $"exit {code}: {error}");
        Assert.Contains("THRESHOLD FAILED: target:p99<0.001", output);
        // The step lines come from the run's progress, as an experiment's do.
        Assert.Contains("url/target step users=", output);
        Assert.False(summary!.Passed);
    }

    /// <summary><c>run --url</c> on the sample service's blocking endpoint with the smoke profile, in this process: its exit code, outputs and summary.json (null when none was written).</summary>
    private static async Task<(int Code, string Output, string Error, RunSummary? Summary)> RunUrlSmokeAsync(SampleServiceProcess service, params string[] options)
    {
        var folder = Directory.CreateTempSubdirectory("run-url-").FullName;
        try
        {
            var (output, error) = (new StringWriter(), new StringWriter());
            var code = await CommandLine.InvokeAsync(
                ["run", "--url", $"{service.BaseAddress}orders/1?delayMs=10", "--profile", "smoke", .. options, "--out", folder],
                output, error, (_, _) => throw new InvalidOperationException("run --url has its own action"));
            var summary = Path.Combine(folder, "summary.json");
            return (code, output.ToString(), error.ToString(), File.Exists(summary) ? RunSummary.Parse(File.ReadAllText(summary)) : null);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }
}
