using System.Net;
using System.Net.Sockets;
using System.Text.Json;
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

        using var status = await GetStatusAsync(server);

        Assert.False(status.RootElement.GetProperty("enabled").GetBoolean());
        Assert.Equal(JsonValueKind.Null, status.RootElement.GetProperty("server").ValueKind);
    }

    [Fact]
    public async Task TheEndpointShowsTheRunningServerItsClientsAndItsMessages()
    {
        var port = FreePort();
        await using var server = await SandboxServer.StartAsync($"Streaming:Port={port}", "Streaming:Implementation=saea-pooled", "Streaming:IntervalMs=5");
        var tally = new StreamTally();
        using var stop = new CancellationTokenSource();
        var client = StreamingClient.RunAsync(new IPEndPoint(IPAddress.Loopback, port), tally, stop.Token);
        await Eventually.TrueAsync(() => tally.Counts().Delivered >= 10);

        using var status = await GetStatusAsync(server);
        await stop.CancelAsync();
        await client;

        var root = status.RootElement;
        Assert.True(root.GetProperty("enabled").GetBoolean());
        Assert.Equal("saea-pooled", root.GetProperty("implementation").GetString());
        Assert.Equal($"tcp://127.0.0.1:{port}", root.GetProperty("endpoint").GetString());
        Assert.Equal(1, root.GetProperty("server").GetProperty("connectedClients").GetInt32());
        Assert.True(root.GetProperty("server").GetProperty("messagesSent").GetInt64() >= 10);
        Assert.True(root.GetProperty("process").GetProperty("allocatedBytes").GetInt64() > 0);
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

    private static async Task<JsonDocument> GetStatusAsync(SandboxServer server)
    {
        using var response = await server.Client.GetAsync("/api/streaming");
        response.EnsureSuccessStatusCode();
        return JsonDocument.Parse(await response.Content.ReadAsStringAsync());
    }

    private static int FreePort()
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }
}
