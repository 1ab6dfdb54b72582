using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Tests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// <c>watch</c>: bad input refused in one line with exit 2 before anything is attached; the real runner as a process on the
/// sample service driven by the test's own HTTP client (no load from the runner), idle, and killed under it.
/// </summary>
public sealed class WatchCommandTests : IDisposable
{
    private readonly string _out = Path.Combine(Path.GetTempPath(), "watch-" + Guid.NewGuid().ToString("N"));

    [Theory]
    [InlineData(new[] { "--duration-s", "5" }, "name the process to watch: --pid N, --process-name NAME, --url http://127.0.0.1:PORT/ or --diagnostic-port PATH")]
    [InlineData(new[] { "--pid", "1", "--url", "http://127.0.0.1:1/" }, "give one of --pid, --process-name or --url, not several")]
    [InlineData(new[] { "--url", "http://10.1.2.3:8080/" }, "is not a loopback address")]
    [InlineData(new[] { "--url", "http://127.0.0.1:1/" }, "no socket listens on loopback port 1")]
    [InlineData(new[] { "--pid", "0" }, "--pid must be a positive process id")]
    [InlineData(new[] { "--process-name", "NoSuchService-0f1e2d" }, "no .NET process is named 'NoSuchService-0f1e2d'")]
    [InlineData(new[] { "--pid", "1", "--bogus" }, "watch has no option --bogus; its options: --pid, --process-name, --url, --diagnostic-port, --duration-s, --out")]
    [InlineData(new[] { "--diagnostic-port", "/tmp/w.sock", "--pid", "1" }, "--diagnostic-port watches the runtime that connects to it, so it cannot go with --pid")]
    [InlineData(new[] { "--diagnostic-port", "/no/such/folder/w.sock" }, "--diagnostic-port: the folder /no/such/folder does not exist")]
    [InlineData(new[] { "--pid", "1", "--profile", "quick" }, "--profile is not an option of watch")]
    public async Task BadInputIsOneLineAndExitTwo(string[] options, string cause)
    {
        var (code, error) = await WatchInProcessAsync(options);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains(cause, error);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("86401")]
    [InlineData("-3")]
    public async Task ADurationOutOfRangeIsRefused(string seconds)
    {
        using var self = Process.GetCurrentProcess();

        var (code, error) = await WatchInProcessAsync("--pid", self.Id.ToString(CultureInfo.InvariantCulture), "--duration-s", seconds);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains("--duration-s", error);
    }

    [Fact]
    public async Task APidThatDoesNotExistIsRefused()
    {
        using var process = Process.Start("true")!;
        await process.WaitForExitAsync();

        var (code, error) = await WatchInProcessAsync("--pid", process.Id.ToString(CultureInfo.InvariantCulture));

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains("does not exist or has exited", error);
    }

    [Fact]
    public async Task APidThatIsNotADotnetProcessIsRefused()
    {
        await AssertPidRefusedAsync(new ProcessStartInfo("sleep", "100"), "is not a .NET process");
    }

    [FactWhenAnotherUserCanRun]
    public async Task APidOfAnotherUserIsRefused()
    {
        await AssertPidRefusedAsync(new ProcessStartInfo("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "sleep", "100"]), "belongs to another user");
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task WatchNamesTheSampleServicesBlockingMethodUnderItsOwnTraffic()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        using var watch = StartWatch("--pid", Pid(service), "--duration-s", "20");
        var first = await FirstLineAsync(watch);
        Assert.StartsWith($"watching pid {service.ProcessId}", first);

        var output = await EndUnderTrafficAsync(watch, service, first);

        using var report = ReadReport();
        var episodes = report.RootElement.GetProperty("episodes");
        Assert.True(episodes.GetArrayLength() >= 1, output);
        var named = episodes.EnumerateArray().Where(e => e.TryGetProperty("callSite", out _)).Select(e => e.GetProperty("callSite")).ToList();
        Assert.Contains(named, site => site.GetProperty("method").GetString() == "Orders.Get" && site.GetProperty("file").GetString()!.EndsWith("Orders.cs", StringComparison.Ordinal));
        Assert.Contains("episode 1: ", output);
        Assert.Contains("Orders.Get (Orders.cs:", output);
        Assert.Contains("fix: make Orders.Get asynchronous", output);
        Assert.Contains($"report: {Path.Combine(_out, WatchReport.MarkdownFile)}", output);
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task WatchThroughADiagnosticPortNamesTheCallSiteOfTheRuntimeThatConnected()
    {
        // As a container's runtime would, through a socket on a shared volume: the service connects out to the watch.
        Directory.CreateDirectory(_out);
        var socket = Path.Combine(_out, "svc.sock");
        using var watch = StartWatch("--diagnostic-port", socket, "--duration-s", "20");
        var listening = await FirstLineAsync(watch);
        Assert.StartsWith($"listening on {socket}", listening);
        await using var service = await SampleServiceProcess.StartAsync(new Dictionary<string, string> { ["DOTNET_DiagnosticPorts"] = $"{socket},nosuspend" });
        var watching = await FirstLineAsync(watch);
        Assert.StartsWith($"watching the runtime connected to {socket}", watching);

        var output = await EndUnderTrafficAsync(watch, service, watching);

        Assert.Contains("Orders.Get (Orders.cs:", output);
        using var report = ReadReport();
        Assert.Contains(report.RootElement.GetProperty("episodes").EnumerateArray(), e => e.TryGetProperty("callSite", out var site) && site.GetProperty("method").GetString() == "Orders.Get");
        Assert.False(File.Exists(socket), "the watch left its socket behind");
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task AnIdleServiceGivesAReportThatNothingStarvedAndWhatWasWatched()
    {
        await using var service = await SampleServiceProcess.StartAsync();

        var (code, output, error) = await CommandRun.RunAsync("dotnet", [typeof(WatchCommand).Assembly.Location, "watch", "--url", service.BaseAddress.ToString(), "--duration-s", "3", "--out", _out]);

        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        Assert.Contains($"watching pid {service.ProcessId}", output);
        Assert.Contains("watch: no starvation in", output);
        using var report = ReadReport();
        Assert.Equal(0, report.RootElement.GetProperty("episodes").GetArrayLength());
        Assert.True(report.RootElement.GetProperty("samples").GetInt32() >= 1);
        var markdown = await File.ReadAllTextAsync(Path.Combine(_out, WatchReport.MarkdownFile));
        Assert.Contains("Nothing starved", markdown);
        Assert.Contains("counter samples, the pool's threads", markdown);
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task AProcessThatExitsMidWatchGivesTheReportOfWhatWasSeenAndItsOwnExitCode()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        using var watch = StartWatch("--pid", Pid(service), "--duration-s", "600");
        var first = await FirstLineAsync(watch);

        service.Kill();
        var (code, output, error) = await EndAsync(watch, first);

        Assert.True(code == WatchCommand.ExitProcessExited, $"exit {code}: {error}\n{output}");
        using var report = ReadReport();
        Assert.True(report.RootElement.GetProperty("processExited").GetBoolean());
        Assert.Contains("the process exited", report.RootElement.GetProperty("endedBecause").GetString());
        Assert.Contains("ENDED EARLY", await File.ReadAllTextAsync(Path.Combine(_out, WatchReport.MarkdownFile)));
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task CtrlCEndsAWatchWithNoDurationAndWritesItsReport()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        using var watch = StartWatch("--pid", Pid(service));

        var (code, output, error) = await CommandRun.InterruptAfterAsync(watch, line => line.StartsWith("watching pid", StringComparison.Ordinal));

        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        Assert.Contains("until Ctrl+C", output);
        Assert.Contains("stopped (Ctrl+C or SIGTERM)", output);
        using var report = ReadReport();
        Assert.False(report.RootElement.GetProperty("processExited").GetBoolean());
    }

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }

    private static string Pid(SampleServiceProcess service) => service.ProcessId.ToString(CultureInfo.InvariantCulture);

    private Process StartWatch(params string[] options) =>
        CommandRun.Start("dotnet", [typeof(WatchCommand).Assembly.Location, "watch", .. options, "--out", _out]);

    private JsonDocument ReadReport() => JsonDocument.Parse(File.ReadAllText(Path.Combine(_out, WatchReport.JsonFile)));

    /// <summary>The watch's first line, which it prints once attached; a hang fails here.</summary>
    private static async Task<string> FirstLineAsync(Process watch)
    {
        using var attach = new CancellationTokenSource(TimeSpan.FromMinutes(2));
        return await watch.StandardOutput.ReadLineAsync(attach.Token) ?? throw new InvalidOperationException($"watch printed nothing: {await watch.StandardError.ReadToEndAsync()}");
    }

    /// <summary>The rest of the watch's output and its exit code; the process is killed if it outlives the hang guard.</summary>
    private static async Task<(int Code, string Output, string Error)> EndAsync(Process watch, string firstLine)
    {
        var output = watch.StandardOutput.ReadToEndAsync();
        var error = watch.StandardError.ReadToEndAsync();
        using var guard = new CancellationTokenSource(TimeSpan.FromMinutes(3));
        try
        {
            await watch.WaitForExitAsync(guard.Token);
        }
        catch (OperationCanceledException)
        {
            watch.Kill(entireProcessTree: true);
            throw;
        }
        return (watch.ExitCode, firstLine + "\n" + await output, await error);
    }

    /// <summary>
    /// The test's own client, not the runner: 80 users arriving over 2.4 s, each sending GET /orders/1?delayMs=500 (a
    /// .Result) back to back for 12 s, while the watch runs to its end; its output (with the answers counted) once it
    /// exited 0.
    /// </summary>
    private static async Task<string> EndUnderTrafficAsync(Process watch, SampleServiceProcess service, string lastLineRead)
    {
        var traffic = TrafficAsync(service.BaseAddress, users: 80, TimeSpan.FromSeconds(12));
        var (code, output, error) = await EndAsync(watch, lastLineRead);
        output += $"\n(the test's client got {await traffic} answers)";
        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        return output;
    }

    /// <summary>
    /// <paramref name="users"/> concurrent clients, one more every 30 ms, sending GET /orders/1?delayMs=500 back to back for
    /// <paramref name="length"/>; the answers counted. Sent all at once, 80 such requests can hold the sample service's pool
    /// with its timers' continuations queued behind them for longer than the watch.
    /// </summary>
    private static async Task<int> TrafficAsync(Uri service, int users, TimeSpan length)
    {
        using var http = new HttpClient { BaseAddress = service, Timeout = TimeSpan.FromSeconds(60) };
        using var stop = new CancellationTokenSource(length);
        var answered = 0;
        await Task.WhenAll(Enumerable.Range(0, users).Select(async user =>
        {
            await Task.Delay(TimeSpan.FromMilliseconds(30 * user), CancellationToken.None);
            while (!stop.IsCancellationRequested)
            {
                try
                {
                    using var response = await http.GetAsync("orders/1?delayMs=500", stop.Token);
                    Interlocked.Increment(ref answered);
                }
                catch (OperationCanceledException) when (stop.IsCancellationRequested)
                {
                    // The traffic's time is up.
                }
            }
        }));
        return answered;
    }

    private static async Task AssertPidRefusedAsync(ProcessStartInfo start, string cause)
    {
        using var process = Process.Start(start)!;
        try
        {
            await Eventually.TrueAsync(() => File.ReadAllText($"/proc/{process.Id}/comm").Trim() == "sleep", "the process to run sleep");

            var (code, error) = await WatchInProcessAsync("--pid", process.Id.ToString(CultureInfo.InvariantCulture));

            Assert.Equal(CommandLine.ExitUsage, code);
            Assert.Contains(cause, error);
        }
        finally
        {
            process.Kill();
        }
    }

    /// <summary>Runs <c>watch</c> in this process; its error output must be one line.</summary>
    private static async Task<(int Code, string Error)> WatchInProcessAsync(params string[] options)
    {
        var (output, error) = (new StringWriter(), new StringWriter());
        // Bad input is refused before any watch begins: a watch that began instead fails here rather than running on.
        var code = await CommandLine.InvokeAsync(["watch", .. options], output, error, (_, _) => throw new InvalidOperationException("watch never reaches the experiment runner"))
            .WaitAsync(TimeSpan.FromMinutes(1));
        var text = error.ToString();
        Assert.Single(text.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        return (code, text);
    }
}
