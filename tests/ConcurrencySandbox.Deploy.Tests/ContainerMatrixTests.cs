using System.Net;
using System.Net.Sockets;
using System.Text;
using ConcurrencySandbox.LoadTests;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Hosting;

namespace ConcurrencySandbox.Deploy.Tests;

/// <summary>
/// The load runner's container matrix, against a fake engine: a script that answers `run`, `port` and `rm` like the
/// docker CLI, logs its calls, and publishes a tiny HTTP server that reports a chosen processor count.
/// </summary>
[System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
public sealed class ContainerMatrixTests : IDisposable
{
    private const string ContainerId = "0123456789abcdef";
    private readonly string _folder = Directory.CreateTempSubdirectory("fake-engine-").FullName;

    [Theory]
    [InlineData(CpuLimitKind.Quota, 1, "--cpus 1")]
    [InlineData(CpuLimitKind.Quota, 2, "--cpus 2")]
    [InlineData(CpuLimitKind.Pinning, 1, "--cpuset-cpus 0")]
    [InlineData(CpuLimitKind.Pinning, 2, "--cpuset-cpus 0-1")]
    public void LimitBecomesTheEnginesQuotaOrCpusetFlag(CpuLimitKind kind, int cpus, string expected) =>
        Assert.Equal(expected, new ContainerLimit(kind, cpus).ToString());

    [Theory]
    [InlineData("quota", new[] { CpuLimitKind.Quota })]
    [InlineData("cpuset", new[] { CpuLimitKind.Pinning })]
    [InlineData("both", new[] { CpuLimitKind.Quota, CpuLimitKind.Pinning })]
    public async Task MatrixWithAnEngineTakesTheLimitsToRunEachCoreCountUnder(string limit, CpuLimitKind[] expected)
    {
        var request = await ParseAsync("matrix", "--engine", "docker", "--limit", limit, "--image", "my/api:1");

        Assert.Equal("docker", request.Matrix.Engine);
        Assert.Equal("my/api:1", request.Matrix.Image);
        Assert.Equal(expected, request.Matrix.Limits);
    }

    [Fact]
    public async Task MatrixWithoutAnEngineRunsLocally() =>
        Assert.Null((await ParseAsync("matrix")).Matrix.Engine);

    [Theory]
    [InlineData("--engine", "lxc")]
    [InlineData("--limit", "half")]
    public async Task UnknownEngineOrLimitIsAUsageError(string option, string value)
    {
        var code = await CommandLine.InvokeAsync(["matrix", option, value], TextWriter.Null, TextWriter.Null, (_, _) => Task.FromResult(0));

        Assert.Equal(CommandLine.ExitUsage, code);
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task ContainerIsStartedWithTheLimitAndRemovedWhenTheVariantEnds()
    {
        using var api = FakeApi.Start(processorCount: 2);
        var servers = new ContainerApiServers(FakeEngine(api.Port), "my/api:1", new ContainerLimit(CpuLimitKind.Pinning, 2), new Dictionary<string, string> { ["DOTNET_gcServer"] = "0" });

        await using (var lease = await servers.AcquireAsync(new Dictionary<string, string> { ["FanOut__DedicatedThreads"] = "4" }, CancellationToken.None))
        {
            Assert.Equal(api.Port, lease.BaseAddress.Port);
        }

        var calls = EngineCalls();
        Assert.Equal($"run --detach --publish 127.0.0.1::8080 --cpuset-cpus 0-1 --env DOTNET_gcServer=0 --env FanOut__DedicatedThreads=4 my/api:1", calls[0]);
        Assert.Equal($"port {ContainerId} 8080/tcp", calls[1]);
        Assert.Equal($"rm --force {ContainerId}", calls[^1]);
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task WrongProcessorCountInsideStopsTheRunWithAClearErrorAndRemovesTheContainer()
    {
        using var api = FakeApi.Start(processorCount: 2);
        var servers = new ContainerApiServers(FakeEngine(api.Port), "my/api:1", new ContainerLimit(CpuLimitKind.Quota, 1), new Dictionary<string, string>());

        var error = await Assert.ThrowsAsync<UsageException>(() => servers.AcquireAsync(new Dictionary<string, string>(), CancellationToken.None));

        Assert.Contains("reports ProcessorCount 2, expected 1", error.Message, StringComparison.Ordinal);
        Assert.Equal($"rm --force {ContainerId}", EngineCalls()[^1]);
    }

    [Fact]
    public async Task MissingEngineIsAUsageErrorNamingIt()
    {
        var engine = new ContainerEngine(Path.Combine(_folder, "no-such-engine"));

        var error = await Assert.ThrowsAsync<UsageException>(() => engine.ServerVersionAsync(CancellationToken.None));

        Assert.Contains("no-such-engine", error.Message, StringComparison.Ordinal);
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    private static async Task<RunRequest> ParseAsync(params string[] args)
    {
        RunRequest? parsed = null;
        var code = await CommandLine.InvokeAsync(args, TextWriter.Null, TextWriter.Null, (request, _) =>
        {
            parsed = request;
            return Task.FromResult(0);
        });
        Assert.Equal(CommandLine.ExitOk, code);
        return parsed!;
    }

    /// <summary>A docker stand-in: logs each call's arguments, answers run with an id and port with the fake API's address.</summary>
    private ContainerEngine FakeEngine(int port)
    {
        var script = Path.Combine(_folder, "docker");
        File.WriteAllText(script, $"""
            #!/usr/bin/env bash
            echo "$*" >> "{_folder}/calls"
            case $1 in
              run) echo {ContainerId} ;;
              port) echo 127.0.0.1:{port} ;;
            esac
            """.ReplaceLineEndings("\n"));
        File.SetUnixFileMode(script, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        return new ContainerEngine(script);
    }

    private string[] EngineCalls() => File.ReadAllLines(Path.Combine(_folder, "calls"));

    /// <summary>Answers /healthz and /api/telemetry like the API would with the given processor count.</summary>
    private sealed class FakeApi : IDisposable
    {
        private readonly HttpListener _listener = new();

        private FakeApi(int port, int processorCount)
        {
            Port = port;
            _listener.Prefixes.Add($"http://127.0.0.1:{port}/");
            _listener.Start();
            _ = ServeAsync(processorCount);
        }

        public int Port { get; }

        public static FakeApi Start(int processorCount)
        {
            using var probe = new TcpListener(IPAddress.Loopback, 0);
            probe.Start();
            var port = ((IPEndPoint)probe.LocalEndpoint).Port;
            probe.Stop();
            return new FakeApi(port, processorCount);
        }

        public void Dispose() => _listener.Close();

        private async Task ServeAsync(int processorCount)
        {
            var telemetry = $$"""
                {"timestamp":"2026-01-01T00:00:00+00:00","uptimeSeconds":1,"processorCount":{{processorCount}},
                 "threadPool":{"threadCount":1,"pendingWorkItemCount":0,"completedWorkItemCount":0,"minWorkerThreads":1,"maxWorkerThreads":10},
                 "gc":{},"process":{},"lockContentionCount":0,"inFlightRequests":0}
                """;
            while (_listener.IsListening)
            {
                HttpListenerContext context;
                try
                {
                    context = await _listener.GetContextAsync();
                }
                catch (Exception e) when (e is HttpListenerException or ObjectDisposedException)
                {
                    return;
                }
                var body = Encoding.UTF8.GetBytes(context.Request.Url!.AbsolutePath == "/api/telemetry" ? telemetry : """{"status":"ok"}""");
                context.Response.ContentType = "application/json";
                await context.Response.OutputStream.WriteAsync(body);
                context.Response.Close();
            }
        }
    }
}
