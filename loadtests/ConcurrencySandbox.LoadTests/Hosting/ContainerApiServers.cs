using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.LoadTests.ApiClient;
using ConcurrencySandbox.LoadTests.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Hosting;

/// <summary>How a container is given its CPUs: a CFS quota (<c>--cpus</c>) or pinning to the first N CPUs (<c>--cpuset-cpus</c>).</summary>
public enum CpuLimitKind
{
    Quota,
    Pinning,
}

/// <summary>A container's CPU limit, as the engine's command-line flag and as the report names it.</summary>
internal sealed record ContainerLimit(CpuLimitKind Kind, int Cpus)
{
    /// <summary>"quota" or "pinning", as variant labels and report folders name the limit.</summary>
    public string KindName => NameOf(Kind);

    public static string NameOf(CpuLimitKind kind) => kind.ToString().ToLowerInvariant();

    public IReadOnlyList<string> DockerArguments() => Kind == CpuLimitKind.Quota
        ? ["--cpus", Cpus.ToString(CultureInfo.InvariantCulture)]
        : ["--cpuset-cpus", Cpus == 1 ? "0" : string.Create(CultureInfo.InvariantCulture, $"0-{Cpus - 1}")];

    public override string ToString() => string.Join(' ', DockerArguments());
}

/// <summary>The container engine's command line (docker, or a CLI-compatible one such as podman).</summary>
internal sealed class ContainerEngine(string command)
{
    /// <summary>The API image's HTTP port (ASPNETCORE_HTTP_PORTS in the Dockerfile).</summary>
    public const int ApiPort = 8080;

    /// <summary>The API image's control plane port (the API's ControlOptions.DefaultPort, listening on every interface in the image).</summary>
    public const int ControlPort = 5081;

    private static readonly TimeSpan CommandTimeout = TimeSpan.FromMinutes(2);

    public string Command { get; } = command;

    /// <summary>The engine's server version, or a <see cref="UsageException"/> saying why there is no engine to use.</summary>
    public async Task<string> ServerVersionAsync(CancellationToken cancellationToken)
    {
        var (exitCode, output, error) = await RunAsync(["version", "--format", "{{.Server.Version}}"], cancellationToken);
        return exitCode == 0 && output.Length > 0
            ? output
            : throw new UsageException($"the container engine '{Command}' does not answer ('{Command} version': {error})");
    }

    /// <summary>The image's id (short form), so the report says exactly which build ran.</summary>
    public async Task<string> ImageIdAsync(string image, CancellationToken cancellationToken)
    {
        var (exitCode, output, error) = await RunAsync(["image", "inspect", "--format", "{{.Id}}", image], cancellationToken);
        var id = output.Replace("sha256:", "", StringComparison.Ordinal);
        return exitCode == 0
            ? id[..Math.Min(12, id.Length)]
            : throw new UsageException($"no image {image} for '{Command}' ({error}): build it first, see docs/notebook/deploy.md");
    }

    /// <summary>
    /// The arguments of <c>run</c> for one API container: detached, the API port and the control plane published on free
    /// loopback ports, the limit, the diagnostics socket's folder mounted with the runtime told to connect to it (when
    /// <paramref name="socket"/> is given), then the environment.
    /// </summary>
    public static IReadOnlyList<string> RunArguments(string image, ContainerLimit limit, IReadOnlyDictionary<string, string> environment, DiagnosticsSocket? socket)
    {
        List<string> arguments = ["run", "--detach", "--publish", Invariant($"127.0.0.1::{ApiPort}"), "--publish", Invariant($"127.0.0.1::{ControlPort}"), .. limit.DockerArguments()];
        if (socket is not null)
        {
            arguments.AddRange(["--volume", $"{socket.HostFolder}:{DiagnosticsSocket.ContainerFolder}", "--env", $"{DiagnosticsSocket.PortsSetting}={socket.PortsValue}"]);
        }
        foreach (var (name, value) in environment)
        {
            arguments.AddRange(["--env", $"{name}={value}"]);
        }
        arguments.Add(image);
        return arguments;
    }

    /// <summary>Starts <paramref name="image"/> detached (see <see cref="RunArguments"/>); returns the container's id.</summary>
    public async Task<string> StartAsync(string image, ContainerLimit limit, IReadOnlyDictionary<string, string> environment, DiagnosticsSocket? socket, CancellationToken cancellationToken)
    {
        var (exitCode, output, error) = await RunAsync(RunArguments(image, limit, environment, socket), cancellationToken);
        return exitCode == 0
            ? output
            : throw new UsageException($"'{Command} run {limit} {image}' failed: {error}");
    }

    /// <summary>The loopback address the container's <paramref name="port"/> is published on.</summary>
    public async Task<Uri> PublishedAddressAsync(string containerId, int port, CancellationToken cancellationToken)
    {
        var (exitCode, output, error) = await RunAsync(["port", containerId, Invariant($"{port}/tcp")], cancellationToken);
        var first = output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).FirstOrDefault();
        return exitCode == 0 && first is not null && Uri.TryCreate($"http://{first}", UriKind.Absolute, out var address)
            ? address
            : throw new UsageException($"'{Command} port {containerId} {port}/tcp' named no published port: {error}");
    }

    /// <summary>Whether the container still runs; blocks on the engine's answer (called only when the observer lost its channel).</summary>
    public bool IsRunning(string containerId) =>
        RunAsync(["inspect", "--format", "{{.State.Running}}", containerId], CancellationToken.None).GetAwaiter().GetResult() is (0, "true", _);

    /// <summary>The standard output of <paramref name="command"/> run in the container, or null when it failed.</summary>
    public async Task<string?> ExecAsync(string containerId, IReadOnlyList<string> command, CancellationToken cancellationToken)
    {
        var (exitCode, output, _) = await RunAsync(["exec", containerId, .. command], cancellationToken);
        return exitCode == 0 ? output : null;
    }

    /// <summary>Stops and removes the container; never throws, so it can run while the runner is being stopped.</summary>
    public async Task RemoveAsync(string containerId)
    {
        try
        {
            await RunAsync(["rm", "--force", containerId], CancellationToken.None);
        }
        catch (UsageException)
        {
            // The engine went away: nothing more this runner can remove.
        }
    }


    private async Task<(int ExitCode, string Output, string Error)> RunAsync(IEnumerable<string> arguments, CancellationToken cancellationToken)
    {
        var start = new ProcessStartInfo(Command) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }
        Process process;
        try
        {
            process = Process.Start(start) ?? throw new UsageException($"could not start '{Command}'");
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            throw new UsageException($"the container engine '{Command}' is not installed ({e.Message})");
        }
        using (process)
        {
            var output = process.StandardOutput.ReadToEndAsync(cancellationToken);
            var error = process.StandardError.ReadToEndAsync(cancellationToken);
            await process.WaitForExitAsync(cancellationToken).WaitAsync(CommandTimeout, cancellationToken);
            return (process.ExitCode, (await output).Trim(), (await error).Trim().ReplaceLineEndings(" "));
        }
    }
}

/// <summary>
/// A fresh API container per variant, limited by quota or pinning. Before a variant runs it checks that the runtime
/// inside derived the expected processor count from the limit, and stops the run with a clear error if not. The runtime
/// is read through a diagnostics socket on a shared volume (<see cref="DiagnosticsSocket"/>) when it connects to it, else
/// through the API's control plane, never through the API port the load goes to.
/// </summary>
internal sealed class ContainerApiServers(ContainerEngine engine, string image, ContainerLimit limit, IReadOnlyDictionary<string, string> environment) : ApiServers
{
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan ReadyPoll = TimeSpan.FromMilliseconds(100);

    // The runtime connects to its diagnostics port while it starts, before the app serves /healthz: a short grace after that.
    private static readonly TimeSpan SocketGrace = TimeSpan.FromSeconds(3);

    public ContainerLimit Limit { get; } = limit;

    public override bool StartsOwnProcess => true;

    public override string Describe() => $"a fresh {image} container per variant ({engine.Command} run {Limit})";

    public override async Task<ApiLease> AcquireAsync(IReadOnlyDictionary<string, string> variantEnvironment, CancellationToken cancellationToken)
    {
        var merged = new Dictionary<string, string>(environment);
        foreach (var (name, value) in variantEnvironment)
        {
            merged[name] = value;
        }
        var (socket, socketProblem) = ListenOrExplain();
        string containerId;
        string? mountProblem;
        try
        {
            (containerId, mountProblem) = await StartAsync(merged, socket, cancellationToken);
        }
        catch
        {
            await (socket?.DisposeAsync() ?? ValueTask.CompletedTask);
            throw;
        }
        if (mountProblem is not null)
        {
            await socket!.DisposeAsync();
            (socket, socketProblem) = (null, mountProblem);
        }
        var removal = new Removal(engine, containerId, socket);
        try
        {
            var address = await engine.PublishedAddressAsync(containerId, ContainerEngine.ApiPort, cancellationToken);
            await WaitReadyAsync(address, containerId, Limit, cancellationToken);
            var connected = socket is null ? null : await socket.ConnectedAsync(SocketGrace, cancellationToken);
            if (socket is not null && connected is null)
            {
                socketProblem = $"the runtime did not connect to the diagnostics socket {socket.ContainerPath} within {SocketGrace.TotalSeconds:0} s of serving";
            }
            var controlPlane = await ControlPlaneAsync(containerId, cancellationToken);
            var (diagnostics, telemetry, problem) = ReadThrough(containerId, connected, socket?.ContainerPath, socketProblem, controlPlane, () => !engine.IsRunning(containerId));
            return new ApiLease(address, removal) { Diagnostics = diagnostics, Telemetry = telemetry, DiagnosticsProblem = problem, ProcessorCount = Limit.Cpus };
        }
        catch
        {
            await removal.DisposeAsync();
            throw;
        }
    }

    /// <summary>
    /// The fallback decision: the observer reads the runtime through the diagnostics socket when the runtime connected to it
    /// (<paramref name="connected"/>), else there is no channel and <paramref name="socketProblem"/> says why; without the
    /// observer, the pool series comes from the control plane when it answers, never from the API port the load goes to.
    /// </summary>
    public static (DiagnosticsChannel? Diagnostics, HttpTelemetry? Telemetry, string? Problem) ReadThrough(
        string containerId, DiagnosticsClient? connected, string? socketPath, string? socketProblem, Uri? controlPlane, Func<bool> hasExited)
    {
        var name = $"container {containerId[..Math.Min(12, containerId.Length)]}";
        var diagnostics = connected is null ? null : new DiagnosticsChannel(connected, name, $"the diagnostics socket {socketPath} on a volume shared with {name}", hasExited);
        var telemetry = controlPlane is null ? null : new HttpTelemetry(controlPlane, "the control plane");
        var problem = connected is not null ? null
            : telemetry is null ? $"{socketProblem}; its control plane did not answer either, so the runtime is not read"
            : $"{socketProblem}; read through the control plane instead";
        return (diagnostics, telemetry, problem);
    }

    /// <summary>A socket for this container's runtime, or why there is none (no Unix socket here, no temp folder).</summary>
    private static (DiagnosticsSocket? Socket, string? Problem) ListenOrExplain()
    {
        try
        {
            return (DiagnosticsSocket.Listen(), null);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or PlatformNotSupportedException or System.Net.Sockets.SocketException)
        {
            return (null, $"no diagnostics socket could be made here ({e.Message})");
        }
    }

    /// <summary>Starts the container with the socket's folder mounted; when the engine refuses that run, starts it without the mount and says why.</summary>
    private async Task<(string ContainerId, string? MountProblem)> StartAsync(Dictionary<string, string> environment, DiagnosticsSocket? socket, CancellationToken cancellationToken)
    {
        if (socket is null)
        {
            return (await engine.StartAsync(image, Limit, environment, null, cancellationToken), null);
        }
        try
        {
            return (await engine.StartAsync(image, Limit, environment, socket, cancellationToken), null);
        }
        catch (UsageException refused)
        {
            // A rootless engine or a policy may refuse the bind mount: the container still runs, read through its control plane.
            return (await engine.StartAsync(image, Limit, environment, null, cancellationToken), $"the engine refused to mount the diagnostics socket's folder ({refused.Message})");
        }
    }

    /// <summary>The control plane's published address when it answers /healthz, else null.</summary>
    private async Task<Uri?> ControlPlaneAsync(string containerId, CancellationToken cancellationToken)
    {
        Uri address;
        try
        {
            address = await engine.PublishedAddressAsync(containerId, ContainerEngine.ControlPort, cancellationToken);
        }
        catch (UsageException)
        {
            return null;
        }
        using var client = new SandboxClient(address);
        return await client.IsHealthyAsync(cancellationToken) ? address : null;
    }

    /// <summary>Waits for the container's /healthz, then refuses a runtime that did not derive <paramref name="limit"/>'s processor count.</summary>
    public static async Task WaitReadyAsync(Uri address, string containerId, ContainerLimit limit, CancellationToken cancellationToken)
    {
        using var client = new SandboxClient(address);
        var waited = Stopwatch.StartNew();
        while (!await client.IsHealthyAsync(cancellationToken))
        {
            if (waited.Elapsed > ReadyTimeout)
            {
                throw new UsageException($"the API container {containerId[..Math.Min(12, containerId.Length)]} ({limit}) answered no /healthz within {ReadyTimeout.TotalSeconds:0} s");
            }
            await Task.Delay(ReadyPoll, cancellationToken);
        }
        var processors = (await client.GetTelemetryAsync(TimeSpan.FromSeconds(10), cancellationToken))?.ProcessorCount;
        if (processors != limit.Cpus)
        {
            throw new UsageException(
                $"the API in the container ({limit}) reports ProcessorCount {processors?.ToString(CultureInfo.InvariantCulture) ?? "n/a"}, expected {limit.Cpus}: " +
                "the engine did not apply the limit (cgroup v1/v2 without the cpu controller?), so this core count would measure the wrong thing");
        }
    }

    /// <summary>Removes the container when the variant's lease ends, then stops listening on its diagnostics socket.</summary>
    private sealed class Removal(ContainerEngine engine, string containerId, DiagnosticsSocket? socket) : IAsyncDisposable
    {
        public async ValueTask DisposeAsync()
        {
            await engine.RemoveAsync(containerId);
            if (socket is not null)
            {
                await socket.DisposeAsync();
            }
        }
    }
}
