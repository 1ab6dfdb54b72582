using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.LoadTests.Hosting;

/// <summary>
/// <c>run --url URL --launch App.dll</c>: the user's service started by the runner (<c>dotnet App.dll</c>) listening on
/// the URL's origin (<c>ASPNETCORE_URLS</c>), ready once the URL answers, killed on dispose. Because the runner started
/// it, it can start it again with another environment (--verify-fix's pool minimum).
/// </summary>
internal sealed class LaunchedService : IAsyncDisposable
{
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan ProbePeriod = TimeSpan.FromMilliseconds(200);
    private static readonly TimeSpan ProbeTimeout = TimeSpan.FromSeconds(5);

    private readonly ChildProcess _child;

    private LaunchedService(ChildProcess child) => _child = child;

    public int ProcessId => _child.Id;

    /// <summary>
    /// Starts <paramref name="assembly"/> on <paramref name="url"/>'s origin with <paramref name="environment"/> added, and
    /// waits until a GET of <paramref name="url"/> gets any answer; a service that exits first or never answers is a
    /// <see cref="UsageException"/> naming why.
    /// </summary>
    public static async Task<LaunchedService> StartAsync(string assembly, Uri url, IReadOnlyDictionary<string, string> environment, CancellationToken cancellationToken)
    {
        if (!File.Exists(assembly))
        {
            throw new UsageException($"--launch: no such file '{assembly}' (give the service's .dll, started as 'dotnet <dll>')");
        }
        var child = ChildProcess.Start(new ChildLaunch(Path.GetFullPath(assembly), [])
        {
            Environment = new Dictionary<string, string>(environment) { ["ASPNETCORE_URLS"] = url.GetLeftPart(UriPartial.Authority) },
        });
        var service = new LaunchedService(child);
        try
        {
            await service.WaitUntilAnswersAsync(assembly, url, cancellationToken);
            return service;
        }
        catch
        {
            await service.DisposeAsync();
            throw;
        }
    }

    private async Task WaitUntilAnswersAsync(string assembly, Uri url, CancellationToken cancellationToken)
    {
        // Completes only when the child exits (no line is ever accepted).
        var exited = _child.WaitForLineAsync<string>(_ => null, ReadyTimeout, cancellationToken);
        using var http = new HttpClient { Timeout = ProbeTimeout };
        for (var waited = TimeSpan.Zero; waited < ReadyTimeout; waited += ProbePeriod)
        {
            if (exited.IsFaulted && exited.Exception.InnerException is ChildExitedException gone)
            {
                throw new UsageException($"--launch: {assembly} exited with code {gone.ExitCode} before {url} answered: {string.Join(" | ", gone.LastErrors)}");
            }
            try
            {
                using var response = await http.GetAsync(url, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
                return;
            }
            catch (Exception e) when (e is HttpRequestException or TaskCanceledException && !cancellationToken.IsCancellationRequested)
            {
                await Task.Delay(ProbePeriod, cancellationToken);
            }
        }
        throw new UsageException($"--launch: {assembly} did not answer GET {url} within {ReadyTimeout.TotalSeconds:0} s (does it read ASPNETCORE_URLS?)");
    }

    private bool _stopped;

    /// <summary>Stops the service (its whole process tree); once only, so --verify-fix may stop it before its owner does.</summary>
    public async ValueTask DisposeAsync()
    {
        if (!_stopped)
        {
            _stopped = true;
            await _child.DisposeAsync();
        }
    }
}
