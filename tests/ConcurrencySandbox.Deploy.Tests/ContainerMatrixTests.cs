using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.RegularExpressions;
using ConcurrencySandbox.Api.Control;
using ConcurrencySandbox.LoadTests;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Matrix;
using Microsoft.Diagnostics.NETCore.Client;

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

        var matrix = Assert.IsType<MatrixOptions>(request.Matrix);
        Assert.Equal("docker", matrix.Engine);
        Assert.Equal("my/api:1", matrix.Image);
        Assert.Equal(expected, matrix.Limits);
    }

    [Fact]
    public async Task MatrixWithoutAnEngineRunsLocally() =>
        Assert.Null(Assert.IsType<MatrixOptions>((await ParseAsync("matrix")).Matrix).Engine);

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
    public async Task ContainerIsStartedWithTheLimitAndTheDiagnosticsSocketAndRemovedWhenTheVariantEnds()
    {
        using var api = FakeApi.Start(processorCount: 2);
        var servers = new ContainerApiServers(FakeEngine(api.Port), "my/api:1", new ContainerLimit(CpuLimitKind.Pinning, 2), new Dictionary<string, string> { ["DOTNET_gcServer"] = "0" });

        string folder;
        await using (var lease = await servers.AcquireAsync(new Dictionary<string, string> { ["FanOut__DedicatedThreads"] = "4" }, CancellationToken.None))
        {
            Assert.Equal(api.Port, lease.BaseAddress.Port);
            var run = Regex.Match(EngineCalls()[0],
                @"^run --detach --publish 127\.0\.0\.1::8080 --publish 127\.0\.0\.1::5081 --cpuset-cpus 0-1 --volume (?<folder>\S+):/diag --env DOTNET_DiagnosticPorts=/diag/(?<name>\w+)\.sock,nosuspend --env DOTNET_gcServer=0 --env FanOut__DedicatedThreads=4 my/api:1$");
            Assert.True(run.Success, EngineCalls()[0]);
            folder = run.Groups["folder"].Value;
            Assert.True(File.Exists(Path.Combine(folder, $"{run.Groups["name"].Value}.sock")), "the runner listens on the socket the container's runtime is told to connect to");
        }

        var calls = EngineCalls();
        Assert.Equal($"port {ContainerId} 8080/tcp", calls[1]);
        Assert.Contains($"port {ContainerId} 5081/tcp", calls);
        Assert.Equal($"rm --force {ContainerId}", calls[^1]);
        Assert.False(Directory.Exists(folder), "the socket's folder is deleted with the container");
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task ARuntimeThatNeverConnectsIsReadThroughTheControlPlaneAndTheLeaseSaysWhy()
    {
        using var api = FakeApi.Start(processorCount: 1);
        var servers = new ContainerApiServers(FakeEngine(api.Port), "my/api:1", new ContainerLimit(CpuLimitKind.Quota, 1), new Dictionary<string, string>());

        await using var lease = await servers.AcquireAsync(new Dictionary<string, string>(), CancellationToken.None);

        Assert.Null(lease.Diagnostics);
        Assert.Equal("the control plane", lease.Telemetry?.Name);
        Assert.Contains("did not connect to the diagnostics socket", lease.DiagnosticsProblem, StringComparison.Ordinal);
        Assert.EndsWith("read through the control plane instead", lease.DiagnosticsProblem, StringComparison.Ordinal);
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task AnEngineThatRefusesTheMountRunsTheContainerWithoutItAndTheLeaseSaysSo()
    {
        using var api = FakeApi.Start(processorCount: 1);
        var servers = new ContainerApiServers(FakeEngine(api.Port, refuseMounts: true), "my/api:1", new ContainerLimit(CpuLimitKind.Quota, 1), new Dictionary<string, string>());

        await using var lease = await servers.AcquireAsync(new Dictionary<string, string>(), CancellationToken.None);

        var runs = EngineCalls().Where(c => c.StartsWith("run ", StringComparison.Ordinal)).ToList();
        Assert.Equal(2, runs.Count);
        Assert.DoesNotContain("--volume", runs[1], StringComparison.Ordinal);
        Assert.DoesNotContain("DOTNET_DiagnosticPorts", runs[1], StringComparison.Ordinal);
        Assert.Contains("the engine refused to mount the diagnostics socket's folder", lease.DiagnosticsProblem, StringComparison.Ordinal);
        Assert.Equal("the control plane", lease.Telemetry?.Name);
    }

    [Fact]
    public void AConnectedRuntimeIsObservedThroughTheSocketAndTheControlPlaneStaysTheHttpFallback()
    {
        var control = new Uri("http://127.0.0.1:5999/");

        var (diagnostics, telemetry, problem) = ContainerApiServers.ReadThrough(ContainerId, new DiagnosticsClient(Environment.ProcessId), "/diag/x.sock", null, control, () => false);

        Assert.Equal($"container {ContainerId[..12]}", diagnostics?.Process);
        Assert.Equal($"the diagnostics socket /diag/x.sock on a volume shared with container {ContainerId[..12]}", diagnostics?.Description);
        Assert.Equal(control, telemetry?.Address);
        Assert.Null(problem);
    }

    [Fact]
    public void WithoutTheSocketOrTheControlPlaneNothingIsReadAndNeverTheApiPort()
    {
        var (diagnostics, telemetry, problem) = ContainerApiServers.ReadThrough(ContainerId, null, "/diag/x.sock", "the runtime did not connect", null, () => false);

        Assert.Null(diagnostics);
        Assert.Null(telemetry);
        Assert.Equal("the runtime did not connect; its control plane did not answer either, so the runtime is not read", problem);
    }

    [Fact]
    public void RunArgumentsPublishTheApiAndTheControlPlaneAndMountTheSocketsFolder()
    {
        var arguments = ContainerEngine.RunArguments("my/api:1", new ContainerLimit(CpuLimitKind.Quota, 2), new Dictionary<string, string> { ["A"] = "1" }, null);

        Assert.Equal(["run", "--detach", "--publish", "127.0.0.1::8080", "--publish", "127.0.0.1::5081", "--cpus", "2", "--env", "A=1", "my/api:1"], arguments);
        Assert.Equal(ControlOptions.DefaultPort, ContainerEngine.ControlPort);
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

    /// <summary>
    /// A docker stand-in: logs each call's arguments, answers run with an id (or, with <paramref name="refuseMounts"/>,
    /// refuses a run with a --volume as a rootless engine might) and port with the fake API's address for every port.
    /// </summary>
    private ContainerEngine FakeEngine(int port, bool refuseMounts = false)
    {
        var script = Path.Combine(_folder, "docker");
        var refusal = refuseMounts ? """if [[ "$*" == *--volume* ]]; then echo "Error: mounts are not allowed" >&2; exit 125; fi;""" : "";
        File.WriteAllText(script, $"""
            #!/usr/bin/env bash
            echo "$*" >> "{_folder}/calls"
            case $1 in
              run) {refusal} echo {ContainerId} ;;
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
