using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.LoadTests.Hosting;

/// <summary>
/// Where the runner's requests go: a fresh API child per variant, or a server the user already runs. A container is
/// one more subclass: start it with the variant's environment, return its address and what stops it.
/// </summary>
internal abstract class ApiServers
{
    /// <summary>Whether each variant gets its own fresh process (and so its own environment).</summary>
    public abstract bool StartsOwnProcess { get; }

    /// <summary>Whether the runner asks GET /healthz before the load (a server it did not start, unless that is any user service).</summary>
    public virtual bool ChecksHealth => !StartsOwnProcess;

    public abstract string Describe();

    /// <summary>A server for one variant, with <paramref name="environment"/> applied when a process is started.</summary>
    public abstract Task<ApiLease> AcquireAsync(IReadOnlyDictionary<string, string> environment, CancellationToken cancellationToken);

    /// <summary>The same servers with the API pinned to <paramref name="cpus"/> (a variant that keeps other cpus for its own load); only a local child can be.</summary>
    public virtual ApiServers PinnedTo(CpuSet cpus) => throw new UsageException($"{Describe()} cannot be pinned to cpus {cpus}; pinning needs a fresh local API child");
}

/// <summary>Where the runner reads a server's pool series over HTTP when no observer is attached, and how the report names it ("the API", "the control plane").</summary>
internal sealed record HttpTelemetry(Uri Address, string Name)
{
    public override string ToString() => $"GET {ControlRoutes.Telemetry} every second from {Name} ({Address})";

    /// <summary>How the report names the series when it is read once the variant is done (<see cref="Experiments.Experiment.RuntimeReadAfterwardsBecause"/>).</summary>
    public string Afterwards => $"GET {ControlRoutes.TelemetryHistory} once after the variant from {Name} ({Address}), the API's own per-second record";
}

/// <summary>The API a variant runs against; disposing it stops what was started for it (a child process, a container), if anything.</summary>
internal sealed class ApiLease(Uri baseAddress, IAsyncDisposable? started) : IAsyncDisposable
{
    public Uri BaseAddress { get; } = baseAddress;

    /// <summary>The serving runtime's diagnostics channel, when the runner can reach it: the runtime observer attaches through it.</summary>
    public DiagnosticsChannel? Diagnostics { get; init; }

    /// <summary>Where the pool series is read over HTTP when the observer is not attached; null: nowhere (a user's service).</summary>
    public HttpTelemetry? Telemetry { get; init; }

    /// <summary>Why there is no <see cref="Diagnostics"/> channel, for the report (a container's runtime that did not connect, a process not found).</summary>
    public string? DiagnosticsProblem { get; init; }

    /// <summary>The processors that process may use (its pinning), for the observer's CPU figures.</summary>
    public int ProcessorCount { get; init; } = Environment.ProcessorCount;

    public ValueTask DisposeAsync() => started?.DisposeAsync() ?? ValueTask.CompletedTask;
}

/// <summary>Starts a fresh API child per variant, so no variant inherits another's grown pool.</summary>
internal sealed class ChildApiServers(ApiLaunch launch) : ApiServers
{
    public override bool StartsOwnProcess => true;

    public override string Describe() => launch.Cpus is { } cpus
        ? $"a fresh API child per variant, pinned to {CountText.Noun(cpus.Count, "cpu")} {cpus}"
        : "a fresh API child per variant on a loopback port";

    public override ApiServers PinnedTo(CpuSet cpus) => new ChildApiServers(launch with { Cpus = cpus });

    public override async Task<ApiLease> AcquireAsync(IReadOnlyDictionary<string, string> environment, CancellationToken cancellationToken)
    {
        var merged = new Dictionary<string, string>(launch.Environment);
        foreach (var (name, value) in environment)
        {
            merged[name] = value;
        }
        var child = await ApiProcess.StartAsync(launch with { Environment = merged }, cancellationToken);
        return new ApiLease(child.BaseAddress, child)
        {
            Diagnostics = DiagnosticsChannel.OfProcess(child.ProcessId),
            Telemetry = new HttpTelemetry(child.BaseAddress, "the API"),
            ProcessorCount = launch.Cpus?.Count ?? Environment.ProcessorCount,
        };
    }
}

/// <summary>
/// A server the user runs: the sandbox API (--target), or any user's service (run --url, <paramref name="isSandboxApi"/> false),
/// which is never asked for the sandbox's health or telemetry routes. Every variant goes to it, one after another.
/// </summary>
internal sealed class TargetApiServers(Uri target, bool isSandboxApi = true) : ApiServers
{
    /// <summary>The serving process on this machine, when known: the observer attaches to it.</summary>
    public int? ProcessId { get; init; }

    /// <summary>Why the serving process is not observed (run --url could not find it, or it is not a .NET process this user reaches).</summary>
    public string? NotObservedBecause { get; init; }

    /// <summary>The serving process when it is local but not observed (its diagnostics channel closed): its CPU is read from /proc instead.</summary>
    public int? UnobservedProcessId { get; init; }

    public override bool ChecksHealth => isSandboxApi;

    public override bool StartsOwnProcess => false;

    public override string Describe() => target.ToString();

    public override Task<ApiLease> AcquireAsync(IReadOnlyDictionary<string, string> environment, CancellationToken cancellationToken) =>
        Task.FromResult(new ApiLease(target, null)
        {
            Diagnostics = ProcessId is { } pid ? DiagnosticsChannel.OfProcess(pid) : null,
            Telemetry = isSandboxApi ? new HttpTelemetry(target, "the API") : null,
            DiagnosticsProblem = NotObservedBecause,
        });
}
