using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Issue 37's bad input for the naming, run for real (<c>run --url</c> on a live process, as <see cref="TargetServicesDiagnosisTests"/>):
/// a service without its PDB, one that is not ASP.NET Core, a ReadyToRun build and a trimmed one. Each says what it
/// could not know rather than guessing.
/// </summary>
[Trait("Category", "Slow")]
public sealed class NamingBadInputTests
{
    private static readonly TimeSpan PublishTimeout = TimeSpan.FromMinutes(15);

    /// <summary>
    /// No PDB beside the module: the method is still named (the IL says it), without a line, and the note says why; the
    /// minimal API's route, which the sources (found through the PDB) would give, comes from ASP.NET Core's own metrics.
    /// </summary>
    [Fact]
    public async Task AServiceWithoutItsPdbIsNamedWithoutLinesAndItsRouteComesFromTheRuntime()
    {
        var folder = Directory.CreateTempSubdirectory("no-pdb-").FullName;
        try
        {
            var built = Path.Combine(AppContext.BaseDirectory, "targets", "InlinedHelper");
            foreach (var file in Directory.GetFiles(built).Where(f => !f.EndsWith(".pdb", StringComparison.Ordinal)))
            {
                File.Copy(file, Path.Combine(folder, Path.GetFileName(file)));
            }
            await using var service = await SampleServiceProcess.StartAssemblyAsync(Path.Combine(folder, "InlinedHelper.dll"));

            var call = (await RunUrlDiagnosis.DiagnoseAsync(service, "orders/1")).Top;

            Assert.NotNull(call);
            Assert.Equal("Blocking.DoBlocking", call.Method);
            Assert.Equal(BlockingPrimitive.Result, call.Primitive);
            Assert.Null(call.Line);
            Assert.Contains("InlinedHelper.dll ships no portable PDB: names without lines", call.Note);
            Assert.Equal("GET /orders/{id:int}", call.Route);
            Assert.Contains("the runtime's route is trusted, its handler not found in the metadata", call.RouteCheck);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>
    /// ReadyToRun (crossgen'd, and InlinedHelper runs without tiering, so its precompiled code is what runs): the trace
    /// has no IL-to-native map for that code, so the sampled frame's statement is not known. Its whole method is
    /// searched and the note says so; before, the offset read as 0 and the handler's first statement was named.
    /// </summary>
    [Fact]
    public async Task AReadyToRunBuildIsNamedFromTheWholeMethodWhenItsCodeHasNoIlMap()
    {
        var call = (await DiagnosePublishedAsync(CommandLine.ExitOk, "--self-contained", "false", "-p:PublishReadyToRun=true")).Top!;

        // Said when the sampled frame was the precompiled code (the runtime may still jit a method it rejects).
        Assert.True(call.Note is null || call.Note.Contains("no IL-to-native map", StringComparison.Ordinal), call.Note);
    }

    /// <summary>
    /// Trimmed (self-contained, PublishTrimmed): the service's own Order response cannot be serialized once reflection
    /// metadata is trimmed away, so every request fails with a 500 and the run is refused with one line (exit 2), its
    /// report written all the same; the blocking method is still named with its line and route.
    /// </summary>
    [Fact]
    public async Task ATrimmedBuildIsStillNamedWhileItsFailingRequestsAreRefused()
    {
        var diagnosed = await DiagnosePublishedAsync(CommandLine.ExitUsage, "--self-contained", "true", "-p:PublishTrimmed=true");

        Assert.Contains("every request failed (HTTP 500", diagnosed.Error);
    }

    /// <summary>InlinedHelper published with <paramref name="options"/>, started and diagnosed; its blocking helper must be named at its line, with the route.</summary>
    private static async Task<Diagnosed> DiagnosePublishedAsync(int exit, params string[] options)
    {
        var folder = Directory.CreateTempSubdirectory("published-").FullName;
        try
        {
            await using var service = await SampleServiceProcess.StartAssemblyAsync(await PublishInlinedHelperAsync(folder, options));

            var diagnosed = await RunUrlDiagnosis.DiagnoseAsync(service, "orders/1", exit);

            Assert.NotNull(diagnosed.Top);
            Assert.Equal("Blocking.DoBlocking", diagnosed.Top.Method);
            AssertLineHolds(diagnosed.Top, "DoAsync(id).Result");
            Assert.Equal("GET /orders/{id:int}", diagnosed.Top.Route);
            return diagnosed;
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>tests/Targets/InlinedHelper's source published into <paramref name="folder"/> with <paramref name="options"/> for linux-x64, outside the repository's build rules; returns its assembly.</summary>
    private static async Task<string> PublishInlinedHelperAsync(string folder, params string[] options)
    {
        var source = Path.Combine(FolderLayeringTests.RepositoryRoot(), "tests", "Targets", "InlinedHelper", "Program.cs");
        var project = Directory.CreateDirectory(Path.Combine(folder, "src")).FullName;
        await File.WriteAllTextAsync(Path.Combine(folder, "Directory.Build.props"), "<Project />\n");
        await File.WriteAllTextAsync(Path.Combine(folder, "Directory.Packages.props"), "<Project />\n");
        File.Copy(source, Path.Combine(project, "Program.cs"));
        // As InlinedHelper.csproj and the repository's rules build it: optimized, without tiering.
        await File.WriteAllTextAsync(Path.Combine(project, "InlinedHelper.csproj"), """
            <Project Sdk="Microsoft.NET.Sdk.Web">
              <PropertyGroup>
                <TargetFramework>net10.0</TargetFramework>
                <Nullable>enable</Nullable>
                <ImplicitUsings>enable</ImplicitUsings>
                <TieredCompilation>false</TieredCompilation>
              </PropertyGroup>
            </Project>
            """);
        var output = Path.Combine(folder, "out");
        var (code, stdout, stderr) = await CommandRun.RunAsync("dotnet",
            ["publish", Path.Combine(project, "InlinedHelper.csproj"), "-c", "Release", "-r", "linux-x64", "-o", output, "-nologo", "--disable-build-servers", .. options], PublishTimeout);
        Assert.True(code == 0, $"dotnet publish failed ({code}):\n{stdout}\n{stderr}");
        return Path.Combine(output, "InlinedHelper.dll");
    }

    private static void AssertLineHolds(BlockingCall call, string code)
    {
        Assert.NotNull(call.Line);
        Assert.Contains(code, File.ReadAllLines(call.Line.File)[call.Line.Line - 1]);
    }

    /// <summary>Not ASP.NET Core (tests/Targets/SocketShop answers HTTP over a socket of its own): the method and line are named, with no route and the reason.</summary>
    [Fact]
    public async Task AServiceThatIsNotAspNetCoreIsNamedWithNoRouteAndSaysWhy()
    {
        await using var service = await SampleServiceProcess.StartTargetAsync("SocketShop");

        var call = (await RunUrlDiagnosis.DiagnoseAsync(service, "quote/1")).Top;

        Assert.NotNull(call);
        Assert.Equal("Prices.Quote", call.Method);
        Assert.Equal(BlockingPrimitive.Result, call.Primitive);
        AssertLineHolds(call, "LookupAsync(id).Result");
        Assert.Null(call.Route);
        Assert.Null(call.RouteCheck);
        Assert.Contains("no route: the thread served no request", call.Note);
    }
}
