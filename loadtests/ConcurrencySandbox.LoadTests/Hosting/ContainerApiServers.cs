using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.LoadTests.ApiClient;

namespace ConcurrencySandbox.LoadTests.Hosting;

/// <summary>How a container is given its CPUs: a CFS quota (<c>--cpus</c>) or pinning to the first N CPUs (<c>--cpuset-cpus</c>).</summary>
public enum CpuLimitKind
{
    Quota,
    Pinning,
}

/// <summary>A container's CPU limit, as the engine's command-line flag and as the report names it.</summary>
public sealed record ContainerLimit(CpuLimitKind Kind, int Cpus)
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
public sealed class ContainerEngine(string command)
{
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
            : throw new UsageException($"no image {image} for '{Command}' ({error}): build it first, see docs/deploy.md");
    }

    /// <summary>Starts <paramref name="image"/> detached with the limit and environment, its port 8080 published on a free loopback port.</summary>
    public async Task<string> StartAsync(string image, ContainerLimit limit, IReadOnlyDictionary<string, string> environment, CancellationToken cancellationToken)
    {
        List<string> arguments = ["run", "--detach", "--publish", "127.0.0.1::8080", .. limit.DockerArguments()];
        foreach (var (name, value) in environment)
        {
            arguments.AddRange(["--env", $"{name}={value}"]);
        }
        arguments.Add(image);
        var (exitCode, output, error) = await RunAsync(arguments, cancellationToken);
        return exitCode == 0
            ? output
            : throw new UsageException($"'{Command} run {limit} {image}' failed: {error}");
    }

    /// <summary>The loopback address the container's port 8080 is published on.</summary>
    public async Task<Uri> PublishedAddressAsync(string containerId, CancellationToken cancellationToken)
    {
        var (exitCode, output, error) = await RunAsync(["port", containerId, "8080/tcp"], cancellationToken);
        var first = output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).FirstOrDefault();
        return exitCode == 0 && first is not null && Uri.TryCreate($"http://{first}", UriKind.Absolute, out var address)
            ? address
            : throw new UsageException($"'{Command} port {containerId}' named no published port: {error}");
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
/// inside derived the expected processor count from the limit, and stops the run with a clear error if not.
/// </summary>
public sealed class ContainerApiServers(ContainerEngine engine, string image, ContainerLimit limit, IReadOnlyDictionary<string, string> environment) : ApiServers
{
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan ReadyPoll = TimeSpan.FromMilliseconds(100);

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
        var containerId = await engine.StartAsync(image, Limit, merged, cancellationToken);
        var lease = new ApiLease(await AddressOrRemoveAsync(containerId, cancellationToken), new Removal(engine, containerId));
        try
        {
            await CheckProcessorCountAsync(lease.BaseAddress, containerId, cancellationToken);
            return lease;
        }
        catch
        {
            await lease.DisposeAsync();
            throw;
        }
    }

    private async Task<Uri> AddressOrRemoveAsync(string containerId, CancellationToken cancellationToken)
    {
        try
        {
            return await engine.PublishedAddressAsync(containerId, cancellationToken);
        }
        catch
        {
            await engine.RemoveAsync(containerId);
            throw;
        }
    }

    private async Task CheckProcessorCountAsync(Uri address, string containerId, CancellationToken cancellationToken)
    {
        using var client = new SandboxClient(address);
        var waited = Stopwatch.StartNew();
        while (!await client.IsHealthyAsync(cancellationToken))
        {
            if (waited.Elapsed > ReadyTimeout)
            {
                throw new UsageException($"the API container {containerId[..Math.Min(12, containerId.Length)]} ({Limit}) answered no /healthz within {ReadyTimeout.TotalSeconds:0} s");
            }
            await Task.Delay(ReadyPoll, cancellationToken);
        }
        var processors = (await client.GetTelemetryAsync(TimeSpan.FromSeconds(10), cancellationToken))?.ProcessorCount;
        if (processors != Limit.Cpus)
        {
            throw new UsageException(
                $"the API in the container ({Limit}) reports ProcessorCount {processors?.ToString(CultureInfo.InvariantCulture) ?? "n/a"}, expected {Limit.Cpus}: " +
                "the engine did not apply the limit (cgroup v1/v2 without the cpu controller?), so this core count would measure the wrong thing");
        }
    }

    /// <summary>Removes the container when the variant's lease ends.</summary>
    private sealed class Removal(ContainerEngine engine, string containerId) : IAsyncDisposable
    {
        public ValueTask DisposeAsync() => new(engine.RemoveAsync(containerId));
    }
}
