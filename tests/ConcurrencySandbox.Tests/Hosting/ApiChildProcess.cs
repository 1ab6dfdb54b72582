using ConcurrencySandbox.Contracts.Hosting;
using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>
/// The API as a real child process (its own ThreadPool, signals, exit code), on free loopback ports, found
/// through its two ready lines. Killed on dispose if still running.
/// </summary>
public sealed class ApiChildProcess : IAsyncDisposable
{
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);
    private readonly ChildProcess _child;

    private ApiChildProcess(ChildProcess child, Uri api, Uri control)
    {
        _child = child;
        Api = new HttpClient { BaseAddress = api, Timeout = TimeSpan.FromMinutes(2) };
        Control = new HttpClient { BaseAddress = control, Timeout = TimeSpan.FromSeconds(30) };
    }

    /// <summary>A client of the API port (Kestrel, served by the child's ThreadPool).</summary>
    public HttpClient Api { get; }

    /// <summary>A client of the control port (the child's dedicated control threads).</summary>
    public HttpClient Control { get; }

    public int Id => _child.Id;

    /// <summary>The last lines the child wrote to stdout or stderr so far (<see cref="ChildProcess.KeptLines"/> at most).</summary>
    public IReadOnlyCollection<string> Output => _child.Output;

    /// <summary>Starts the API's own build; settings are configuration keys such as "ThreadPool:MaxWorkerThreads=2".</summary>
    public static async Task<ApiChildProcess> StartAsync(params string[] settings)
    {
        var child = ChildProcess.Start(new ChildLaunch(Path.Combine(AppContext.BaseDirectory, "ConcurrencySandbox.Api.dll"), TestHostArguments.For(settings)));
        try
        {
            var api = await child.WaitForLineAsync(ApiStartup.ReadyAddress, ReadyTimeout);
            var control = await child.WaitForLineAsync(ApiStartup.ControlReadyAddress, ReadyTimeout);
            return new ApiChildProcess(child, api, control);
        }
        catch
        {
            var output = child.Output;
            await child.DisposeAsync();
            throw new InvalidOperationException($"The API child printed no ready lines: {string.Join(" | ", output)}");
        }
    }

    /// <summary>Sends SIGTERM, as `docker stop` and Kubernetes do.</summary>
    public void Terminate() => _child.Terminate();

    /// <summary>Waits for the child to exit (a hang guard, not a measurement); returns its exit code.</summary>
    public Task<int> WaitForExitAsync(TimeSpan hangGuard) => _child.WaitForExitAsync(hangGuard);

    public async ValueTask DisposeAsync()
    {
        Api.Dispose();
        Control.Dispose();
        await _child.DisposeAsync();
    }
}
