using System.Reflection;
using System.Text.Json;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Tests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// The runner as a user who never clones the repository gets it: <c>dotnet pack</c> of the runner (in the configuration
/// the tests built, so the build is up to date and only packing is done), <c>dotnet tool install --tool-path</c> from
/// that folder alone, then the installed <c>dotnet-sandbox</c> command, which runs from the tool store, not from this
/// repository's bin folders.
/// </summary>
[Trait("Category", "Slow")]
public sealed class InstalledToolTests(InstalledToolTests.InstalledTool tool) : IClassFixture<InstalledToolTests.InstalledTool>
{
    [Fact]
    public async Task HelpPrintsTheUsageAndTheRunCommand()
    {
        var (code, output, error) = await CommandRun.RunAsync(tool.Command, ["--help"]);

        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}");
        // The usage line names the command a user types, not the assembly the tool runs (ConcurrencySandbox.LoadTests).
        Assert.Contains("Usage:\n  dotnet-sandbox [command] [options]", output.ReplaceLineEndings("\n"));
        Assert.Matches(@"\n  run +Load any HTTP endpoint", output);
    }

    [Fact]
    public async Task TheInstalledCommandNamesTheSampleServicesBlockingCallSite()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        var report = Path.Combine(tool.Folder, "diagnosis");

        // The load RunUrlDiagnosis gives the source-built runner, not the smoke profile: smoke's 3 s can end before a busy
        // machine's stack sample starts, and the sample then names nothing (clean-clone CI, 2026-11-29: stacks null).
        var config = Path.Combine(tool.Folder, "diagnosis-load.json");
        await File.WriteAllTextAsync(config, RunUrlDiagnosis.Load);
        var (code, output, error) = await CommandRun.RunAsync(tool.Command,
            ["run", "--url", $"{service.BaseAddress}orders/1?delayMs=500", "--pid", $"{service.ProcessId}", "--config", config, "--out", report]);

        Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}\n{output}");
        // The same call site the source-built runner names (TargetServicesDiagnosisTests, RuntimeObserverTests): method,
        // primitive, route, and a file:line that holds the .Result, read from the service's own PDB.
        using var summary = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(report, "summary.json")));
        var observation = summary.RootElement.GetProperty("observations").EnumerateObject().Single().Value;
        var stacks = observation.GetProperty("stacks");
        Assert.True(stacks.ValueKind == JsonValueKind.Object, $"no stack sample: {observation}\n{output}");
        // The site the diagnosis names (the biggest group parked in a wait), not merely the biggest group in user code: a
        // thread running a continuation can be that (CI, 2026-11-29: its source was null).
        var top = stacks.GetProperty("top");
        Assert.True(top.ValueKind == JsonValueKind.Object && top.GetProperty("source").ValueKind == JsonValueKind.Object,
            $"no resolved site named: {stacks}\n{output}");
        var call = top.GetProperty("source");
        Assert.Equal("Orders.Get", call.GetProperty("method").GetString());
        Assert.Equal(BlockingPrimitive.Result, call.GetProperty("primitive").GetString());
        Assert.Equal("GET /orders/{id:int}", call.GetProperty("route").GetString());
        var line = call.GetProperty("line");
        Assert.Contains(".Result", File.ReadAllLines(line.GetProperty("file").GetString()!)[line.GetProperty("line").GetInt32() - 1]);
        Assert.Contains("wait in Orders.Get (Orders.cs:", await File.ReadAllTextAsync(Path.Combine(report, "summary.md")));
    }

    [Fact]
    public async Task AnExperimentStartsTheApiFromTheToolsOwnApiFolder()
    {
        var report = Path.Combine(tool.Folder, "fanout");

        var (code, output, error) = await CommandRun.RunAsync(tool.Command,
            ["fanout", "--strategies", "async", "--profile", "smoke", "--calls", "2", "--delay-ms", "50", "--out", report]);

        // Exit 1 is possible: async's default p99 limit is a timing on two shared cores; that the API answered is what is checked.
        Assert.True(code is CommandLine.ExitOk or CommandLine.ExitThresholdFailed, $"exit {code}: {error}\n{output}");
        using var summary = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(report, "summary.json")));
        var variant = Assert.Single(summary.RootElement.GetProperty("variants").EnumerateArray());
        Assert.True(variant.GetProperty("ok").GetInt64() > 0, $"no request answered: {error}\n{output}");
    }

    [Fact]
    public void TheRunnersRuntimeOptionsSurvivePacking()
    {
        var runtimeConfig = Directory.GetFiles(Path.Combine(tool.Folder, "tools", ".store"), "ConcurrencySandbox.LoadTests.runtimeconfig.json", SearchOption.AllDirectories).Single();

        using var json = JsonDocument.Parse(File.ReadAllText(runtimeConfig));
        var options = json.RootElement.GetProperty("runtimeOptions").GetProperty("configProperties");
        Assert.False(options.GetProperty("System.Runtime.TieredCompilation").GetBoolean());
        Assert.Equal(0, options.GetProperty("System.Threading.ThreadPool.UnfairSemaphoreSpinLimit").GetInt32());
    }

    /// <summary>The runner packed and installed once for the class, in a temporary folder deleted afterwards.</summary>
    public sealed class InstalledTool : IAsyncLifetime
    {
        public string Folder { get; } = Directory.CreateTempSubdirectory("installed-tool-").FullName;

        /// <summary>The installed command's shim, as a user's PATH would find it.</summary>
        public string Command => Path.Combine(Folder, "tools", "dotnet-sandbox");

        public async Task InitializeAsync()
        {
            var project = Path.Combine(FolderLayeringTests.RepositoryRoot(), "loadtests", "ConcurrencySandbox.LoadTests", "ConcurrencySandbox.LoadTests.csproj");
            // The configuration the runner was built in for these tests (pack defaults to Release, which may not be built).
            // Not --no-build: with it the api/ folder's items are not in the pack's view, so a mistake in how they are
            // packed (as content, a second time: NU5100, an error here) would pass here and fail for a user.
            var configuration = typeof(Runner).Assembly.GetCustomAttribute<AssemblyConfigurationAttribute>()!.Configuration;
            var packages = Path.Combine(Folder, "packages");
            await RunDotnetAsync("pack", project, "-c", configuration, "-o", packages, "--disable-build-servers", "-nologo");
            // --source, not --add-source: the pack folder alone, so nothing comes from a feed and no network is needed.
            await RunDotnetAsync("tool", "install", "ConcurrencySandbox.Tool", "--tool-path", Path.Combine(Folder, "tools"), "--source", packages);
        }

        public Task DisposeAsync()
        {
            Directory.Delete(Folder, recursive: true);
            return Task.CompletedTask;
        }

        private static async Task RunDotnetAsync(params string[] args)
        {
            try
            {
                var (code, output, error) = await CommandRun.RunAsync("dotnet", args);
                Assert.True(code == 0, $"dotnet {string.Join(' ', args)}: exit {code}\n{output}\n{error}");
            }
            catch (OperationCanceledException)
            {
                // Up to date (as dotnet test leaves it) the pack takes about 10 s. After a commit every project is out of
                // date (the commit id is in each assembly's informational version) and the pack rebuilds them all.
                Assert.Fail($"dotnet {args[0]} did not finish within CommandRun's hang guard; if the build is out of date (a commit since it), build first");
            }
        }
    }
}
