using System.Text.RegularExpressions;
using ConcurrencySandbox.Contracts.Hosting;
using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// The sample service (copied into the tests' sample/ folder by the build), one of the target services of
/// tests/Targets (targets/&lt;Name&gt;/), or the sandbox API (api/), as its own process on a free loopback port; killed on dispose.
/// </summary>
internal sealed partial class SampleServiceProcess : IAsyncDisposable
{
    private static readonly string Assembly = Path.Combine(AppContext.BaseDirectory, "sample", "ConcurrencySandbox.SampleService.dll");
    private readonly ChildProcess _child;

    private SampleServiceProcess(ChildProcess child, Uri baseAddress)
    {
        _child = child;
        BaseAddress = baseAddress;
    }

    public Uri BaseAddress { get; }

    public int ProcessId => _child.Id;

    // "SampleService ready: http://127.0.0.1:41234 pid 5678"; each target prints its own name.
    [GeneratedRegex(@"^\w+ ready: (?<url>http://\S+) pid \d+")]
    private static partial Regex ReadyLine();

    /// <summary>The address a service's ready line announces (the sandbox API's own line too), else null.</summary>
    public static Uri? ReadyAddress(string line) =>
        ReadyLine().Match(line) is { Success: true } match ? new Uri(match.Groups["url"].Value + "/")
        : ApiStartup.ReadyAddress(line) is { } api ? new Uri(api, "/")
        : null;

    /// <summary>Starts the sample service on a free loopback port with <paramref name="environment"/> added to the runner's.</summary>
    public static Task<SampleServiceProcess> StartAsync(IReadOnlyDictionary<string, string>? environment = null) => StartAsync(Assembly, environment);

    /// <summary>Starts the target service tests/Targets/<paramref name="name"/> on a free loopback port, with <paramref name="environment"/> added to the runner's.</summary>
    public static Task<SampleServiceProcess> StartTargetAsync(string name, IReadOnlyDictionary<string, string>? environment = null) => StartAsync(Path.Combine(AppContext.BaseDirectory, "targets", name, $"{name}.dll"), environment);

    /// <summary>Starts a service built elsewhere (a generated one) from its assembly on a free loopback port.</summary>
    public static Task<SampleServiceProcess> StartAssemblyAsync(string assembly) => StartAsync(assembly, null);

    private static async Task<SampleServiceProcess> StartAsync(string assembly, IReadOnlyDictionary<string, string>? environment)
    {
        var child = ChildProcess.Start(new ChildLaunch(assembly, ["--urls", "http://127.0.0.1:0"]) { Environment = environment ?? new Dictionary<string, string>() });
        try
        {
            return new SampleServiceProcess(child, await child.WaitForLineAsync(ReadyAddress, TimeSpan.FromSeconds(60)));
        }
        catch
        {
            await child.DisposeAsync();
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

    public void Kill() => _child.Kill();

    public ValueTask DisposeAsync() => _child.DisposeAsync();
}
