using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary><c>run --url</c> refuses what it cannot load or observe: exit 2, one line naming the cause, before any load is sent.</summary>
public sealed class ObserverBadInputTests
{
    // Nothing listens there: every case below must be refused before the runner would try it.
    private const string Url = "http://127.0.0.1:1/orders/1";

    [Theory]
    [InlineData("ftp://127.0.0.1/orders", "must be an absolute http(s) URL")]
    [InlineData("orders/1", "must be an absolute http(s) URL")]
    [InlineData("http://10.1.2.3:8080/orders", "is not a loopback address")]
    [InlineData("http://example.com/orders", "is not a loopback address")]
    public async Task AUrlThatIsNotHttpOnLoopbackIsRefused(string url, string cause)
    {
        var (code, error) = await RunAsync("--url", url);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains(cause, error);
    }

    [Theory]
    [InlineData("http://127.0.0.2:1/x")]
    [InlineData("http://localhost:1/x")]
    [InlineData("http://[::1]:1/x")]
    public void LoopbackUrlsAreAccepted(string url)
    {
        Assert.Equal(url, UrlCommand.LoopbackUrl(url).ToString());
    }

    [Fact]
    public async Task NothingListeningAtTheUrlIsRefusedBeforeTheLoad()
    {
        var (code, error) = await RunAsync("--url", Url, "--profile", "smoke");

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains("nothing answered GET http://127.0.0.1:1/orders/1", error);
    }

    [Theory]
    [InlineData(new[] { "--find-capacity", "--verify-fix" }, "the runner cannot restart a process it did not start: add --launch")]
    [InlineData(new[] { "--verify-fix", "--launch", "Missing.dll" }, "needs --find-capacity")]
    [InlineData(new[] { "--launch", "Missing.dll", "--pid", "1" }, "cannot go with --pid or --process-name")]
    [InlineData(new[] { "--launch", "Missing.dll" }, "--launch: no such file 'Missing.dll'")]
    public async Task VerifyFixOnAUrlNeedsAServiceTheRunnerLaunchedItself(string[] options, string cause)
    {
        var (code, error) = await RunAsync(["--url", Url, .. options]);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains(cause, error);
        Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    [Theory]
    [InlineData("-1")]
    [InlineData("17")]
    public async Task BisectStepsOutOfItsRangeAreRefusedNamingTheRange(string steps)
    {
        var (code, error) = await RunAsync(["--url", Url, "--find-capacity", "--bisect-steps", steps]);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Equal($"error: --bisect-steps must be from 0 to {CapacityOptions.MaxBisectSteps}, got {steps}", error.Trim());
    }

    [Theory]
    [InlineData("--pid", "1")]
    [InlineData("--process-name", "x")]
    [InlineData("--verify-fix", "--find-capacity")]
    public async Task NoObserverNamesNoProcessToObserve(string option, string value)
    {
        var (code, error) = await RunAsync("--url", Url, "--no-observer", option, value);

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Equal("error: --no-observer observes no process, so it cannot go with --pid, --process-name or --verify-fix", error.Trim());
    }

    [Fact]
    public async Task APidThatHasExitedIsRefused()
    {
        using var process = Process.Start("true")!;
        await process.WaitForExitAsync();

        var (code, error) = await RunAsync("--url", Url, "--pid", process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture));

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains("does not exist or has exited", error);
    }

    [Fact]
    public async Task APidThatIsNotADotnetProcessIsRefused()
    {
        await AssertPidRefusedAsync(new ProcessStartInfo("sleep", "30"), "sleep", "is not a .NET process");
    }

    /// <summary>
    /// A --pid with no diagnostics channel is taken for /proc, with why, when its own /proc files say it is .NET: a setting
    /// that closes the channel at 0 in its environment (named), or the runtime mapped in; otherwise (not .NET, or an
    /// unreadable /proc) it is refused as before. Seeded environments with other variables around, the settings at other
    /// values, and maps with and without libcoreclr.
    /// </summary>
    [Fact]
    public void APidWhoseDiagnosticsChannelIsClosedIsTakenForProcOnlyWhenItsProcFilesShowDotnet()
    {
        var random = new Random(3803);
        string[] settings = ["DOTNET_EnableDiagnostics", "COMPlus_EnableDiagnostics", "DOTNET_EnableDiagnostics_IPC"];
        string[] others = ["PATH=/usr/bin", "HOME=/home/app", "DOTNET_gcServer=0", "ASPNETCORE_URLS=http://127.0.0.1:5000", "DOTNET_EnableDiagnosticsX=0", "XDOTNET_EnableDiagnostics=0"];
        for (var i = 0; i < 300; i++)
        {
            var variables = others.Where(_ => random.Next(2) == 0).ToList();
            var setting = random.Next(3) == 0 ? null : $"{settings[random.Next(settings.Length)]}={(random.Next(3) == 0 ? "1" : "0")}";
            if (setting is not null)
            {
                variables.Insert(random.Next(variables.Count + 1), setting);
            }
            var environ = random.Next(10) == 0 ? null : string.Concat(variables.Select(v => v + '\0'));
            var runtime = random.Next(2) == 0;
            var maps = random.Next(10) == 0 ? null
                : $"7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n{(runtime ? "7f02-7f03 r-xp 00000000 08:01 2 /usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.0/libcoreclr.so\n" : "")}";

            var closed = ObserverTarget.ClosedBy(4242, environ, maps);

            var closing = environ is not null && setting is not null && setting.EndsWith("=0", StringComparison.Ordinal);
            var context = $"environ '{environ?.Replace('\0', ' ')}', runtime mapped {maps is not null && runtime}";
            if (closing)
            {
                Assert.Equal($"process 4242 is a .NET process whose diagnostics channel is closed ({setting} in its environment)", closed);
            }
            else if (maps is not null && runtime)
            {
                Assert.True(closed?.StartsWith("process 4242 runs .NET but publishes no diagnostics channel this runner finds (DOTNET_EnableDiagnostics=0", StringComparison.Ordinal), context);
            }
            else
            {
                Assert.True(closed is null, context);
            }
        }
    }

    /// <summary>
    /// A --pid whose channel is closed is not observed but kept for /proc, as a process found by its port is: its CPU is
    /// read over each step of --find-capacity (the note says so, and what cannot be seen); a plain profile reads load and
    /// latency only, and says that. This test process's own pid stands for the service: nothing is attached to it.
    /// </summary>
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task APidWhoseChannelIsClosedIsKeptForProcAndTheNoteSaysWhatCannotBeSeen(bool findCapacity)
    {
        var pid = Environment.ProcessId;
        var closed = $"process {pid} is a .NET process whose diagnostics channel is closed (DOTNET_EnableDiagnostics=0 in its environment)";
        var output = new StringWriter();

        var servers = await UrlCommand.ServersAsync(new Uri(Url), pid, closed, observe: true, readsCores: findCapacity, output);

        Assert.Null(servers.ProcessId);
        Assert.Equal(pid, servers.UnobservedProcessId);
        Assert.Equal(closed, servers.NotObservedBecause);
        Assert.Equal(findCapacity
            ? $"note: the runtime is not observed: {closed}; pid {pid}'s CPU is read from /proc over each step, but no method, thread pool, lock, GC or outgoing call can be seen without its diagnostics channel"
            : $"note: the runtime is not observed (load and latency only): {closed}", output.ToString().Trim());
    }

    [FactWhenAnotherUserCanRun]
    public async Task APidOfAnotherUserIsRefused()
    {
        // setpriv changes its user, then becomes sleep.
        await AssertPidRefusedAsync(new ProcessStartInfo("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "sleep", "30"]), "sleep", "belongs to another user");
    }

    [Fact]
    public async Task AProcessNameMatchingNoneIsRefused()
    {
        var (code, error) = await RunAsync("--url", Url, "--process-name", "NoSuchService" + Guid.NewGuid().ToString("N"));

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains("no .NET process is named", error);
    }

    [Fact]
    [Trait("Category", "Slow")]
    public async Task AProcessNameMatchingSeveralIsRefusedWithTheirPids()
    {
        await using var first = await SampleServiceProcess.StartAsync();
        await using var second = await SampleServiceProcess.StartAsync();

        var (code, error) = await RunAsync("--url", Url, "--process-name", "ConcurrencySandbox.SampleService");

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains(".NET processes are named 'ConcurrencySandbox.SampleService'", error);
        Assert.Contains(first.ProcessId.ToString(System.Globalization.CultureInfo.InvariantCulture), error);
        Assert.Contains(second.ProcessId.ToString(System.Globalization.CultureInfo.InvariantCulture), error);
    }

    [Fact]
    public async Task PidAndProcessNameTogetherAreRefused()
    {
        var (code, error) = await RunAsync("--url", Url, "--pid", "1", "--process-name", "x");

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains("not both", error);
    }

    [Fact]
    public async Task VerifyFixWithoutTheObserverIsRefused()
    {
        var errors = new StringWriter();
        var code = await CommandLine.InvokeAsync(["fanout", "--verify-fix", "--no-observer"], new StringWriter(), errors, (_, _) => Task.FromResult(0));

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains("--verify-fix", errors.ToString());
    }

    /// <summary>Starts a process, waits until it runs <paramref name="command"/>, and checks --pid refuses it naming <paramref name="cause"/>.</summary>
    private static async Task AssertPidRefusedAsync(ProcessStartInfo start, string command, string cause)
    {
        using var process = Process.Start(start)!;
        try
        {
            await Eventually.TrueAsync(() => File.ReadAllText($"/proc/{process.Id}/comm").Trim() == command, $"the process to run {command}");

            var (code, error) = await RunAsync("--url", Url, "--pid", process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture));

            Assert.Equal(CommandLine.ExitUsage, code);
            Assert.Contains(cause, error);
        }
        finally
        {
            process.Kill();
        }
    }

    private static async Task<(int Code, string Error)> RunAsync(params string[] arguments)
    {
        var (output, error) = (new StringWriter(), new StringWriter());
        var code = await CommandLine.InvokeAsync(["run", .. arguments], output, error, (_, _) => throw new InvalidOperationException("run --url never reaches the experiment runner"));
        var text = error.ToString();
        Assert.Single(text.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        return (code, text);
    }
}

/// <summary>A fact that needs to start a process as another user (root with setpriv); skipped with the reason elsewhere.</summary>
internal sealed class FactWhenAnotherUserCanRunAttribute : FactAttribute
{
    public FactWhenAnotherUserCanRunAttribute()
    {
        if (!OperatingSystem.IsLinux() || Environment.UserName != "root")
        {
            Skip = "starting a process as another user needs root on Linux";
        }
        else if (!File.Exists("/usr/bin/setpriv") && !File.Exists("/bin/setpriv"))
        {
            Skip = "setpriv (util-linux) is not installed";
        }
    }
}
