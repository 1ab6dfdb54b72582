using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Experiments.FanOut;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Progress;

namespace ConcurrencySandbox.LoadTests.Tests;

public class CommandLineTests
{
    [Theory]
    [InlineData("bogus")]
    [InlineData("fanout", "--profile", "forever")]
    [InlineData("compute", "--cycles", "many")]
    [InlineData("compute", "--cycles", "0")]
    [InlineData("fanout", "--strategies", "threadpool,magic")]
    [InlineData("fanout", "--threshold", "async:p99")]
    [InlineData("fanout", "--target", "not a url")]
    [InlineData("matrix", "--cpus", "one")]
    [InlineData("compute", "--no-such-option")]
    [InlineData("compute", "--config", "/no/such/file.json")]
    [InlineData("streaming", "--server-cpus", "0-4095")]
    [InlineData("streaming-clients", "--port", "0", "--clients", "1")]
    [InlineData("streaming-clients", "--port", "5000", "--clients", "0")]
    [InlineData("streaming-clients", "--clients", "1")]
    [InlineData("agent", "--coordinator", "http://127.0.0.1:7070")]
    [InlineData("agent", "--coordinator", "tcp://127.0.0.1:7070", "--index", "-1")]
    [InlineData("compute", "--agent-cpus", "1")]
    [InlineData("fanout", "--live", "65536")]
    [InlineData("fanout", "--live", "http")]
    [InlineData("limits", "--rounds", "5")]
    [InlineData("limits", "--rounds", "201")]
    [InlineData("limits", "--cores", "0")]
    [InlineData("limits", "--engine", "local")]
    [InlineData("limits", "--burst", "0")]
    [InlineData("limits", "--ci-width", "60")]
    [InlineData("run", "--url", "http://127.0.0.1:9/x", "--find-capacity", "--threshold", "target:p99<5")]
    [InlineData("run", "--url", "http://127.0.0.1:9/x", "--threshold", "other:p99<5")]
    public async Task BadOptionsExitWithCode2AndOneLine(params string[] args)
    {
        var (code, _, error) = await InvokeAsync(args, (_, _) => Task.FromResult(0));

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.StartsWith("error: ", error);
        Assert.Single(error.Trim().Split('\n'));
    }

    [Fact]
    public async Task AThrottledBurstOfNoCyclesIsRefusedBeforeAnyContainerStarts()
    {
        var (code, _, error) = await InvokeAsync(["limits", "--engine", "podman", "--throttle-cycles", "0"], (_, _) => Task.FromResult(0));

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Equal("error: --throttle-cycles must be positive, got 0", error.Trim());
    }

    [Fact]
    public async Task MalformedConfigFileExitsWithCode2()
    {
        var path = Path.GetTempFileName();
        await File.WriteAllTextAsync(path, """{ "LoadSimulationsSettings": [ { "KeepConstant": [4] } ] }""");
        try
        {
            var (code, _, error) = await InvokeAsync(["fanout", "--config", path], (_, _) => Task.FromResult(0));

            Assert.Equal(CommandLine.ExitUsage, code);
            Assert.Contains("KeepConstant", error);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Theory]
    [InlineData("unreachable", "compute", "--target", "http://127.0.0.1:9")]
    [InlineData("names no variant", "fanout", "--threshold", "nosuchvariant:p99<5")]
    [InlineData("names no variant", "matrix", "--cpus", "1,2", "--threshold", "async@4cpu:p99<5")]
    [InlineData("cannot use --target", "coldstart", "--target", "http://127.0.0.1:9")]
    [InlineData("cannot use --target", "matrix", "--target", "http://127.0.0.1:9")]
    [InlineData("cannot use --target", "streaming", "--target", "http://127.0.0.1:9")]
    [InlineData("--message-bytes must be from 1 to 65536", "streaming", "--message-bytes", "65537")]
    [InlineData("--clients must be positive", "streaming", "--clients", "0")]
    [InlineData("--hold-ms must be at most 10000", "contention", "--hold-ms", "10001")]
    [InlineData("cannot use --target", "contention", "--target", "http://127.0.0.1:9")]
    [InlineData("--connect-interval-ms must be from 0 to 60000", "streaming", "--connect-interval-ms", "-1")]
    [InlineData("--capacity-from must be from 1 to 100000", "streaming", "--find-capacity", "--capacity-from", "0")]
    [InlineData("--capacity-to must be from --capacity-from (50) to 100000", "streaming", "--find-capacity", "--capacity-from", "50", "--capacity-to", "10")]
    [InlineData("--capacity-step-s must be from 1 to 600", "streaming", "--find-capacity", "--capacity-step-s", "601")]
    [InlineData("--ci-width must be from 1 to 50, got 0.5", "matrix", "--ci-width", "0.5")]
    [InlineData("--sweep-budget-s must be from 1 to 1800, got 3600", "matrix", "--sweep-budget-s", "3600")]
    [InlineData("--runs must be from 1 to 20, got 0", "fanout", "--runs", "0")]
    [InlineData("--server-cpus must name cpus from ", "streaming", "--server-cpus", "4095")]
    [InlineData("--client-cpus must name cpus from ", "streaming", "--client-cpus", "one")]
    [InlineData("must not share a cpu", "streaming", "--server-cpus", "0", "--client-cpus", "0")]
    [InlineData("--agents must be at least 1, got 0", "compute", "--agents", "0")]
    [InlineData("is more than this machine can start", "compute", "--agents", "100000")]
    [InlineData("so some agent would get 0 users; use at most 6 agents", "compute", "--agents", "7")]
    [InlineData("--agents splits the HTTP ramp and the streaming clients only", "coldstart", "--agents", "2")]
    [InlineData("which agents started elsewhere cannot reach", "streaming", "--agents", "2", "--agent-listen", "127.0.0.1:0")]
    [InlineData("must not share a cpu", "streaming", "--agents", "2", "--server-cpus", "0", "--agent-cpus", "0")]
    [InlineData("cannot use --agents", "matrix", "--agents", "2")]
    [InlineData("--agent-cpus takes a cpu list", "compute", "--agents", "2", "--agent-cpus", "one")]
    public async Task RunnerRefusesWhatCannotRunWithCode2BeforeStartingAnything(string expected, params string[] args)
    {
        var (code, _, error) = await InvokeAsync(
            [.. args, "--profile", "smoke", "--out", Path.Combine(Path.GetTempPath(), Guid.NewGuid().ToString())],
            (request, cancellationToken) => Runner.RunAsync(request, TextWriter.Null, cancellationToken));

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains(expected, error);
    }

    [Fact]
    public async Task FanOutDefaultsToTheQuickProfileTenOneSecondCallsAndEveryStrategy()
    {
        RunRequest? seen = null;

        var (code, _, _) = await InvokeAsync(["fanout"], (request, _) =>
        {
            seen = request;
            return Task.FromResult(0);
        });

        Assert.Equal(0, code);
        Assert.NotNull(seen);
        Assert.Equal("quick", seen.Load.ProfileName);
        var fanOut = seen.Get<FanOutExperiment>();
        Assert.Equal([fanOut], seen.Selected);
        Assert.Equal(1000, fanOut.Settings.DelayMs);
        Assert.Equal(10, fanOut.Settings.Calls);
        Assert.Equal(["threadpool", "sync-over-async", "dedicated", "async"], fanOut.Settings.Strategies);
        Assert.StartsWith(Path.Combine("reports", ""), seen.Settings.OutputFolder);
        Assert.EndsWith("-fanout", seen.Settings.OutputFolder);
    }

    [Theory]
    [InlineData(null, false)]
    [InlineData(LiveServer.DefaultPort, false, "--live")]
    [InlineData(0, true, "--live", "0", "--verbose")]
    [InlineData(8123, false, "--live", "8123", "--profile", "smoke")]
    public async Task LiveTakesAnOptionalPortAndVerboseIsAFlag(int? port, bool verbose, params string[] options)
    {
        RunRequest? seen = null;

        var (code, _, _) = await InvokeAsync(["fanout", .. options], (request, _) =>
        {
            seen = request;
            return Task.FromResult(0);
        });

        Assert.Equal(0, code);
        Assert.Equal(port, seen!.Settings.Progress.LivePort);
        Assert.Equal(verbose, seen.Settings.Progress.Verbose);
    }

    [Fact]
    public async Task ThresholdOptionRepeats()
    {
        RunRequest? seen = null;

        await InvokeAsync(["fanout", "--threshold", "async:p99<1200", "--threshold", "*:failedPercent<=1"], (request, _) =>
        {
            seen = request;
            return Task.FromResult(0);
        });

        Assert.Equal(["async:p99<1200", "*:failedPercent<=1"], seen!.Settings.Thresholds.Select(t => t.ToString()));
    }

    [Fact]
    public async Task HelpListsTheCommandsAndEachCommandsHelpOnlyItsOwnOptions()
    {
        var (code, output, _) = await InvokeAsync(["--help"], (_, _) => Task.FromResult(0));
        Assert.Equal(0, code);
        Assert.All([.. ExperimentList.Names, "all", "matrix", "run", "compare", "agent", "limits"], command => Assert.Contains($"\n  {command} ", output));
        Assert.DoesNotContain("--profile", output);

        var fanout = (await InvokeAsync(["fanout", "--help"], (_, _) => Task.FromResult(0))).Output;
        Assert.All(["--profile", "--threshold", "--live", "--verbose", "--agents", "--dedicated-threads", "--strategies"], option => Assert.Contains(option, fanout));
        // Another experiment's options and the matrix's are not fanout's.
        Assert.All(["--cycles", "--coldstart-request", "--cpus", "--sweep-to", "--clients"], option => Assert.DoesNotContain(option, fanout));

        var matrix = (await InvokeAsync(["matrix", "--help"], (_, _) => Task.FromResult(0))).Output;
        Assert.All(["--cpus", "--sweep-to", "--strategies"], option => Assert.Contains(option, matrix));
        Assert.DoesNotContain("--cycles", matrix);

        var all = (await InvokeAsync(["all", "--help"], (_, _) => Task.FromResult(0))).Output;
        Assert.All(ExperimentList.All.SelectMany(d => d.Options).Select(o => o.Name), option => Assert.Contains(option, all));
    }

    [Theory]
    [InlineData(new[] { "bogus" }, "error: unknown command 'bogus' (expected one of: compute, ")]
    [InlineData(new[] { "--profile", "smoke", "fanout", "--calls", "2" }, "error: options go after the command: fanout --profile smoke --calls 2")]
    [InlineData(new[] { "fanout", "--cpus", "1" }, "error: --cpus is not an option of fanout; matrix takes it (see fanout --help)")]
    [InlineData(new[] { "contention", "--no-such-option" }, "error: contention has no option --no-such-option; its options: --profile, ")]
    [InlineData(new string[0], "error: name a command before its options: compute, ")]
    public async Task AMistakeOnTheCommandLineIsOneLineThatSaysWhatToTypeInstead(string[] args, string expected)
    {
        var (code, _, error) = await InvokeAsync(args, (_, _) => Task.FromResult(0));

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.StartsWith(expected, error, StringComparison.Ordinal);
        Assert.Single(error.Trim().Split('\n'));
    }

    [Fact]
    public async Task EachExperimentCommandBuildsOnlyItsOwnExperimentAndMatrixItsFanOut()
    {
        RunRequest? compute = null;
        RunRequest? matrix = null;
        await InvokeAsync(["compute", "--cycles", "5"], (request, _) => Task.FromResult(Seen(request, out compute)));
        await InvokeAsync(["matrix", "--cpus", "1"], (request, _) => Task.FromResult(Seen(request, out matrix)));

        Assert.Equal(["compute"], compute!.Experiments.Select(e => e.Name));
        Assert.Null(compute.Matrix);
        Assert.Equal(["fanout"], matrix!.Experiments.Select(e => e.Name));
        Assert.Equal([1], matrix.Matrix!.Cpus);
    }

    [Theory]
    [InlineData("/home/me/.dotnet/tools/dotnet-sandbox", "dotnet-sandbox")]
    [InlineData("/usr/share/dotnet/dotnet", "dotnet ConcurrencySandbox.LoadTests.dll")]
    [InlineData("/src/loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0/ConcurrencySandbox.LoadTests", "dotnet run --project loadtests/ConcurrencySandbox.LoadTests --")]
    public void TheUsageLinesNameTheRunnerAsTheUserStartedIt(string processPath, string name)
    {
        Assert.Equal(name, CommandLine.CommandName(processPath, "/any/folder/ConcurrencySandbox.LoadTests.dll"));
    }

    [Fact]
    public async Task TheUsageLineIsNotTheAssemblysName()
    {
        var (_, output, _) = await InvokeAsync(["fanout", "--help"], (_, _) => Task.FromResult(0));

        Assert.Contains($"Usage:\n  {CommandLine.CommandName(Environment.ProcessPath, typeof(CommandLine).Assembly.Location)} fanout [options]", output.ReplaceLineEndings("\n"));
        Assert.DoesNotContain("ConcurrencySandbox.LoadTests fanout", output);
    }

    private static int Seen(RunRequest request, out RunRequest? seen)
    {
        seen = request;
        return 0;
    }

    private static async Task<(int Code, string Output, string Error)> InvokeAsync(string[] args, Func<RunRequest, CancellationToken, Task<int>> run)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var code = await CommandLine.InvokeAsync(args, output, error, run);
        return (code, output.ToString(), error.ToString());
    }
}
