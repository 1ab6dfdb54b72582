using System.Diagnostics;
using System.Text.RegularExpressions;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>The sample service (copied into the tests' sample/ folder by the build) as its own process on a free loopback port; killed on dispose.</summary>
internal sealed partial class SampleServiceProcess : IAsyncDisposable
{
    private static readonly string Assembly = Path.Combine(AppContext.BaseDirectory, "sample", "ConcurrencySandbox.SampleService.dll");
    private readonly Process _process;

    private SampleServiceProcess(Process process, Uri baseAddress)
    {
        _process = process;
        BaseAddress = baseAddress;
    }

    public Uri BaseAddress { get; }

    public int ProcessId => _process.Id;

    [GeneratedRegex(@"^SampleService ready: (?<url>http://\S+) pid \d+")]
    private static partial Regex ReadyLine();

    public static async Task<SampleServiceProcess> StartAsync()
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in new[] { Assembly, "--urls", "http://127.0.0.1:0" })
        {
            start.ArgumentList.Add(argument);
        }
        var process = Process.Start(start)!;
        var ready = new TaskCompletionSource<Uri>(TaskCreationOptions.RunContinuationsAsynchronously);
        process.OutputDataReceived += (_, e) =>
        {
            if (e.Data is { } line && ReadyLine().Match(line) is { Success: true } match)
            {
                ready.TrySetResult(new Uri(match.Groups["url"].Value + "/"));
            }
        };
        process.ErrorDataReceived += (_, _) => { };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        try
        {
            return new SampleServiceProcess(process, await ready.Task.WaitAsync(TimeSpan.FromSeconds(60)));
        }
        catch
        {
            process.Kill(entireProcessTree: true);
            process.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Starts <paramref name="count"/> concurrent GET <paramref name="path"/>?delayMs=..., each holding a pool thread (/orders/1 in
    /// .Result, /reports/1 in Thread.Sleep); they end when the token is cancelled or they finish.
    /// </summary>
    public Task LoadAsync(string path, int count, int delayMs, CancellationToken cancellationToken)
    {
        var http = new HttpClient { BaseAddress = BaseAddress, Timeout = Timeout.InfiniteTimeSpan };
        var requests = Enumerable.Range(0, count).Select(async _ =>
        {
            try
            {
                using var response = await http.GetAsync($"{path}?delayMs={delayMs}", cancellationToken);
            }
            catch (Exception e) when (e is OperationCanceledException or HttpRequestException)
            {
                // Cancelled by the test, or the service was killed under it.
            }
        });
        return Task.WhenAll(requests).ContinueWith(_ => http.Dispose(), TaskScheduler.Default);
    }

    public void Kill() => _process.Kill(entireProcessTree: true);

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
        }
        _process.Dispose();
    }
}
