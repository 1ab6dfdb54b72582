using System.Reflection.PortableExecutable;
using ConcurrencySandbox.LoadTests.Tests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// The runner as Release publishes it (the tool, the container, <c>dotnet run -c Release</c>'s build): the observer's
/// assemblies precompiled, so their code is not JIT-compiled in a load's first seconds, and the engine and the
/// command-line app not, so their loop stays JIT-compiled fully optimised (the runner runs with tiering off).
/// </summary>
[Trait("Category", "Slow")]
public sealed class ObserverReadyToRunTests
{
    private static readonly string[] Observer =
        ["Microsoft.Diagnostics.Tracing.TraceEvent", "Microsoft.Diagnostics.FastSerialization", "Microsoft.Diagnostics.NETCore.Client", "ConcurrencySandbox.LoadTests.Diagnostics"];

    private static readonly string[] JitCompiled = ["ConcurrencySandbox.LoadTests.Engine", "ConcurrencySandbox.LoadTests"];

    [Fact]
    public async Task AReleasePublishPrecompilesTheObserverAndNotTheEngine()
    {
        var folder = Directory.CreateTempSubdirectory("runner-release-").FullName;
        try
        {
            var project = Path.Combine(FolderLayeringTests.RepositoryRoot(), "loadtests", "ConcurrencySandbox.LoadTests", "ConcurrencySandbox.LoadTests.csproj");
            // A cold Release build of the runner and the API it carries takes minutes on two shared cores.
            var (code, output, error) = await CommandRun.RunAsync("dotnet", ["publish", project, "-c", "Release", "-p:UseAppHost=false", "-o", folder, "--disable-build-servers", "-nologo"],
                TimeSpan.FromMinutes(10));
            Assert.True(code == 0, $"dotnet publish: exit {code}\n{output}\n{error}");

            Assert.All(Observer, name => Assert.True(IsReadyToRun(Path.Combine(folder, name + ".dll")), $"{name} is IL only"));
            Assert.All(JitCompiled, name => Assert.False(IsReadyToRun(Path.Combine(folder, name + ".dll")), $"{name} is precompiled"));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>Whether the assembly carries ReadyToRun code: its CLI header points at a managed native (ReadyToRun) header.</summary>
    private static bool IsReadyToRun(string path)
    {
        using var pe = new PEReader(File.OpenRead(path));
        return pe.PEHeaders.CorHeader is { ManagedNativeHeaderDirectory.Size: > 0 };
    }
}
