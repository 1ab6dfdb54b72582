using System.Net;
using System.Net.Sockets;
using ConcurrencySandbox.Api.Streaming;
using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.Experiments.Streaming;
using ConcurrencySandbox.Tests.Hosting;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Tests.Streaming;

public sealed class StreamingEndpointTests
{
    [Fact]
    public async Task TheServerIsOffUnlessAPortIsSet()
    {
        await using var server = await SandboxServer.StartAsync();

        var status = await GetStatusAsync(server);

        Assert.False(status.Enabled);
        Assert.Null(status.Server);
    }

    [Fact]
    public async Task TheEndpointShowsTheRunningServerItsClientsAndItsMessages()
    {
        var port = FreePort();
        var status = await WhileOneClientStreamsAsync(port, GetStatusAsync);

        Assert.True(status.Enabled);
        Assert.Equal("saea-pooled", status.Implementation);
        Assert.Equal($"tcp://127.0.0.1:{port}", status.Endpoint);
        Assert.Equal(1, status.Server?.ConnectedClients);
        Assert.True(status.Server?.MessagesSent >= 10, $"the server counted {status.Server?.MessagesSent} sent, the client received 10 or more");
        Assert.True(status.Process?.AllocatedBytes > 0);
    }

    [Fact]
    public async Task TheStatusCarriesTheLatenessBucketsUnlessAskedWithoutThem()
    {
        var (plain, asked, without) = await WhileOneClientStreamsAsync(FreePort(), async server => (
            await GetStatusAsync(server),
            await server.Client.GetOkAsync<StreamingStatus>("/api/streaming?buckets=true"),
            await server.Client.GetOkAsync<StreamingStatus>("/api/streaming?buckets=false")));

        Assert.NotEmpty(plain.Server?.SendLatenessBuckets ?? []);
        Assert.NotEmpty(asked.Server?.SendLatenessBuckets ?? []);
        Assert.NotNull(without.Server);
        Assert.Null(without.Server.SendLatenessBuckets);
        Assert.True(without.Server.MessagesSent >= asked.Server!.MessagesSent, "the counters are still there without the buckets");
    }

    [Fact]
    public async Task ABadBucketsValueGetsProblemDetailsNamingItAndItsChoices()
    {
        await using var server = await SandboxServer.StartAsync();

        using var response = await server.Client.GetAsync("/api/streaming?buckets=maybe");

        var detail = await ProblemAssert.IsBadRequestNamingAsync(response, "buckets");
        Assert.Contains("one of true, false", detail, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Streaming:Port=70000", "Streaming__Port")]
    [InlineData("Streaming:Implementation=blocking", "Streaming__Implementation")]
    [InlineData("Streaming:MessageBytes=0", "Streaming__MessageBytes")]
    [InlineData("Streaming:MessageBytes=65537", "Streaming__MessageBytes")]
    [InlineData("Streaming:IntervalMs=0", "Streaming__IntervalMs")]
    [InlineData("Streaming:IntervalMs=60001", "Streaming__IntervalMs")]
    [InlineData("Streaming:QueueMessages=0", "Streaming__QueueMessages")]
    [InlineData("Streaming:MaxClients=0", "Streaming__MaxClients")]
    public async Task AnInvalidSettingStopsStartUpWithOneLineNamingIt(string setting, string environmentVariable)
    {
        var failure = await Assert.ThrowsAsync<OptionsValidationException>(() => SandboxServer.StartAsync(setting));

        Assert.Contains(environmentVariable, failure.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', failure.Message);
    }

    /// <summary>Reads a saea-pooled server on <paramref name="port"/> once its one client has had ten messages.</summary>
    private static async Task<T> WhileOneClientStreamsAsync<T>(int port, Func<SandboxServer, Task<T>> read)
    {
        await using var server = await SandboxServer.StartAsync($"Streaming:Port={port}", "Streaming:Implementation=saea-pooled", "Streaming:IntervalMs=5");
        var tally = new StreamTally();
        using var stop = new CancellationTokenSource();
        var client = StreamingClient.RunAsync(new IPEndPoint(IPAddress.Loopback, port), tally, stop.Token);
        await Eventually.TrueAsync(() => tally.Counts().Delivered >= 10, "ten messages delivered");

        var answer = await read(server);
        await stop.CancelAsync();
        await client;
        return answer;
    }

    private static Task<StreamingStatus> GetStatusAsync(SandboxServer server) => server.Client.GetOkAsync<StreamingStatus>("/api/streaming");

    private static int FreePort()
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }
}
