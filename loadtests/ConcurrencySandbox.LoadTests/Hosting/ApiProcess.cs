using System.Collections.Concurrent;
using System.Globalization;
using ConcurrencySandbox.Contracts.Hosting;
using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.LoadTests.Hosting;

/// <summary>How to start the API child: environment, optional pinning to a set of cpus.</summary>
internal sealed record ApiLaunch(IReadOnlyDictionary<string, string> Environment, CpuSet? Cpus = null)
{
    public static readonly ApiLaunch Default = new(new Dictionary<string, string>());
}

/// <summary>
/// The API (<c>api/ConcurrencySandbox.Api.dll</c>, which the build copies next to this runner) started as its own process
/// (a <see cref="ChildProcess"/>), so the load generator and the server never share a ThreadPool. Started on a free loopback
/// port and told this runner's pid, so it stops by itself if the runner dies; killed (with its tree) on dispose.
/// </summary>
internal sealed class ApiProcess : IAsyncDisposable
{
    /// <summary>Where the build puts the API, relative to the runner's own folder.</summary>
    public static readonly string ApiAssembly = Path.Combine(AppContext.BaseDirectory, "api", "ConcurrencySandbox.Api.dll");

    // Per-request Information logs would slow the server under load; the runner keeps only warnings.
    private static readonly string[] QuietLogging = ["--Logging:LogLevel:Default=Warning", "--Logging:LogLevel:Microsoft.Hosting.Lifetime=Information"];
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);
    private static readonly ConcurrentDictionary<int, ChildProcess> Live = new();
    private readonly ChildProcess _child;

    private ApiProcess(ChildProcess child, Uri baseAddress)
    {
        _child = child;
        BaseAddress = baseAddress;
    }

    public Uri BaseAddress { get; }

    public int ProcessId => _child.Id;

    /// <summary>Starts the child and waits for its ready line; throws <see cref="UsageException"/> when it cannot start.</summary>
    public static async Task<ApiProcess> StartAsync(ApiLaunch launch, CancellationToken cancellationToken)
    {
        if (!File.Exists(ApiAssembly))
        {
            throw new UsageException($"the API is not next to the runner ({ApiAssembly}); build the runner project, which copies it there");
        }
        string[] arguments =
        [
            "--urls", "http://127.0.0.1:0",
            $"--{ApiStartup.ParentProcessSetting}={Environment.ProcessId.ToString(CultureInfo.InvariantCulture)}", .. QuietLogging,
        ];
        ChildProcess child;
        try
        {
            child = ChildProcess.Start(new ChildLaunch(ApiAssembly, arguments) { Environment = launch.Environment, Cpus = launch.Cpus });
        }
        catch (Exception e) when (e is InvalidOperationException or System.ComponentModel.Win32Exception)
        {
            throw new UsageException(e.Message);
        }

        Live[child.Id] = child;
        try
        {
            return new ApiProcess(child, await child.WaitForLineAsync(ApiStartup.ReadyAddress, ReadyTimeout, cancellationToken));
        }
        catch (ChildExitedException exited)
        {
            await StopAsync(child);
            throw new UsageException($"the API child exited with code {exited.ExitCode} before it was ready: {string.Join(" | ", exited.LastErrors)}");
        }
        catch (TimeoutException)
        {
            await StopAsync(child);
            throw new UsageException($"the API child printed no ready line within {ReadyTimeout.TotalSeconds:0} s");
        }
        catch
        {
            await StopAsync(child);
            throw;
        }
    }

    public ValueTask DisposeAsync() => new(StopAsync(_child));

    private static async Task StopAsync(ChildProcess child)
    {
        Live.TryRemove(child.Id, out _);
        await child.DisposeAsync();
    }

    /// <summary>Kills every child still alive; called when the runner itself is being stopped.</summary>
    public static void KillAll()
    {
        foreach (var child in Live.Values)
        {
            child.Kill();
        }
    }
}
