using System.Collections.Concurrent;
using System.Diagnostics;
using ConcurrencySandbox.Api;
using ConcurrencySandbox.Api.Control;
using ConcurrencySandbox.Contracts.Hosting;

namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>
/// The API as a real child process (its own ThreadPool, signals, exit code), on free loopback ports, found
/// through its two ready lines. Killed on dispose if still running.
/// </summary>
public sealed class ApiChildProcess : IAsyncDisposable
{
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);
    private readonly Process _process;
    private readonly ConcurrentQueue<string> _output;

    private ApiChildProcess(Process process, ConcurrentQueue<string> output, Uri api, Uri control)
    {
        _process = process;
        _output = output;
        Api = new HttpClient { BaseAddress = api, Timeout = TimeSpan.FromMinutes(2) };
        Control = new HttpClient { BaseAddress = control, Timeout = TimeSpan.FromSeconds(30) };
    }

    /// <summary>A client of the API port (Kestrel, served by the child's ThreadPool).</summary>
    public HttpClient Api { get; }

    /// <summary>A client of the control port (the child's dedicated control threads).</summary>
    public HttpClient Control { get; }

    public int Id => _process.Id;

    /// <summary>Every line the child wrote to stdout or stderr so far.</summary>
    public IReadOnlyCollection<string> Output => _output;

    /// <summary>Starts the API's own build; settings are configuration keys such as "ThreadPool:MaxWorkerThreads=2".</summary>
    public static async Task<ApiChildProcess> StartAsync(params string[] settings)
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "ConcurrencySandbox.Api.dll"));
        foreach (var argument in new[] { "--urls", "http://127.0.0.1:0", "--Control:Port=0", "--Logging:LogLevel:Default=Warning" }.Concat(settings.Select(s => "--" + s)))
        {
            start.ArgumentList.Add(argument);
        }

        var process = Process.Start(start) ?? throw new InvalidOperationException("Could not start the API child.");
        var output = new ConcurrentQueue<string>();
        var api = new TaskCompletionSource<Uri>(TaskCreationOptions.RunContinuationsAsynchronously);
        var control = new TaskCompletionSource<Uri>(TaskCreationOptions.RunContinuationsAsynchronously);
        void OnLine(object sender, DataReceivedEventArgs e)
        {
            if (e.Data is not { } line)
            {
                return;
            }

            output.Enqueue(line);
            if (ApiStartup.ReadyAddress(line) is { } apiAddress)
            {
                api.TrySetResult(apiAddress);
            }
            else if (ApiStartup.ControlReadyAddress(line) is { } controlAddress)
            {
                control.TrySetResult(controlAddress);
            }
        }

        process.OutputDataReceived += OnLine;
        process.ErrorDataReceived += OnLine;
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        try
        {
            return new ApiChildProcess(process, output, await api.Task.WaitAsync(ReadyTimeout), await control.Task.WaitAsync(ReadyTimeout));
        }
        catch
        {
            process.Kill(entireProcessTree: true);
            process.Dispose();
            throw new InvalidOperationException($"The API child printed no ready lines: {string.Join(" | ", output)}");
        }
    }

    /// <summary>Sends SIGTERM, as `docker stop` and Kubernetes do.</summary>
    public void Terminate()
    {
        using var kill = Process.Start("kill", ["-TERM", _process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        kill.WaitForExit();
    }

    /// <summary>Waits for the child to exit (a hang guard, not a measurement); returns its exit code.</summary>
    public async Task<int> WaitForExitAsync(TimeSpan hangGuard)
    {
        using var timeout = new CancellationTokenSource(hangGuard);
        await _process.WaitForExitAsync(timeout.Token);
        return _process.ExitCode;
    }

    public async ValueTask DisposeAsync()
    {
        Api.Dispose();
        Control.Dispose();
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
    }
}
