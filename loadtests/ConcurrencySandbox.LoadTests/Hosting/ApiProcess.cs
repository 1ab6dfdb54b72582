using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using ConcurrencySandbox.Contracts.Hosting;

namespace ConcurrencySandbox.LoadTests.Hosting;

/// <summary>How to start the API child: environment, optional pinning to the first N cores.</summary>
public sealed record ApiLaunch(IReadOnlyDictionary<string, string> Environment, int? PinToCores = null)
{
    public static readonly ApiLaunch Default = new(new Dictionary<string, string>());
}

/// <summary>
/// The API (<c>api/ConcurrencySandbox.Api.dll</c>, which the build copies next to this runner) started as its own process, so the
/// load generator and the server never share a ThreadPool. Started on a free loopback port and told this runner's pid,
/// so it stops by itself if the runner dies; killed (with its tree) on dispose.
/// </summary>
public sealed class ApiProcess : IAsyncDisposable
{
    /// <summary>Where the build puts the API, relative to the runner's own folder.</summary>
    public static readonly string ApiAssembly = Path.Combine(AppContext.BaseDirectory, "api", "ConcurrencySandbox.Api.dll");

    // Per-request Information logs would slow the server under load; the runner keeps only warnings.
    private static readonly string[] QuietLogging = ["--Logging:LogLevel:Default=Warning", "--Logging:LogLevel:Microsoft.Hosting.Lifetime=Information"];
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);
    private static readonly ConcurrentDictionary<int, Process> Live = new();
    private readonly Process _process;

    private ApiProcess(Process process, Uri baseAddress)
    {
        _process = process;
        BaseAddress = baseAddress;
    }

    public Uri BaseAddress { get; }

    public int ProcessId => _process.Id;

    /// <summary>Starts the child and waits for its ready line; throws <see cref="UsageException"/> when it cannot start.</summary>
    public static async Task<ApiProcess> StartAsync(ApiLaunch launch, CancellationToken cancellationToken)
    {
        var start = CreateStartInfo(launch);
        var process = Process.Start(start) ?? throw new UsageException($"could not start {start.FileName}");
        var ready = new TaskCompletionSource<Uri>(TaskCreationOptions.RunContinuationsAsynchronously);
        var errors = new Queue<string>();
        process.OutputDataReceived += (_, e) =>
        {
            // Keep draining stdout after the ready line so the child never blocks on a full pipe.
            if (ApiStartup.ReadyAddress(e.Data) is { } address)
            {
                ready.TrySetResult(address);
            }
        };
        process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is { } line)
            {
                lock (errors)
                {
                    errors.Enqueue(line);
                    if (errors.Count > 5)
                    {
                        errors.Dequeue();
                    }
                }
            }
        };
        process.EnableRaisingEvents = true;
        process.Exited += (_, _) => ready.TrySetException(new UsageException(
            $"the API child exited with code {process.ExitCode} before it was ready: {string.Join(" | ", errors)}"));
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();

        Live[process.Id] = process;
        try
        {
            return new ApiProcess(process, await ready.Task.WaitAsync(ReadyTimeout, cancellationToken));
        }
        catch (TimeoutException)
        {
            await StopAsync(process);
            throw new UsageException($"the API child printed no ready line within {ReadyTimeout.TotalSeconds:0} s");
        }
        catch
        {
            await StopAsync(process);
            throw;
        }
    }

    private static ProcessStartInfo CreateStartInfo(ApiLaunch launch)
    {
        if (!File.Exists(ApiAssembly))
        {
            throw new UsageException($"the API is not next to the runner ({ApiAssembly}); build the runner project, which copies it there");
        }
        string[] arguments =
        [
            ApiAssembly, "--urls", "http://127.0.0.1:0",
            $"--{ApiStartup.ParentProcessSetting}={Environment.ProcessId.ToString(CultureInfo.InvariantCulture)}", .. QuietLogging,
        ];
        var start = new ProcessStartInfo
        {
            FileName = DotnetHost(),
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = false,
            UseShellExecute = false,
        };
        if (launch.PinToCores is { } cores)
        {
            start.ArgumentList.Add("-c");
            start.ArgumentList.Add(cores == 1 ? "0" : $"0-{cores - 1}");
            start.ArgumentList.Add(start.FileName);
            start.FileName = "taskset";
            start.Environment["DOTNET_PROCESSOR_COUNT"] = cores.ToString(CultureInfo.InvariantCulture);
        }
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }
        foreach (var (name, value) in launch.Environment)
        {
            start.Environment[name] = value;
        }
        return start;
    }

    /// <summary>The dotnet host this runner runs on: the runtime folder is &lt;root&gt;/shared/Microsoft.NETCore.App/&lt;version&gt;/.</summary>
    private static string DotnetHost()
    {
        var name = OperatingSystem.IsWindows() ? "dotnet.exe" : "dotnet";
        var root = Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
        var host = Path.Combine(root, name);
        return File.Exists(host) ? host : name;
    }

    public ValueTask DisposeAsync() => new(StopAsync(_process));

    private static async Task StopAsync(Process process)
    {
        try
        {
            if (!process.HasExited)
            {
                process.Kill(entireProcessTree: true);
                await process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(10));
            }
        }
        catch (Exception e) when (e is InvalidOperationException or TimeoutException or System.ComponentModel.Win32Exception)
        {
            // Already gone, or refusing to die: nothing more this runner can do.
        }
        Live.TryRemove(process.Id, out _);
        process.Dispose();
    }

    /// <summary>Kills every child still alive; called when the runner itself is being stopped.</summary>
    public static void KillAll()
    {
        foreach (var process in Live.Values)
        {
            try
            {
                process.Kill(entireProcessTree: true);
            }
            catch (InvalidOperationException)
            {
                // Already exited.
            }
        }
    }
}
