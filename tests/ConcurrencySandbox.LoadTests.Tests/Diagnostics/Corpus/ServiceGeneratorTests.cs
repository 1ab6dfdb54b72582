using System.Text.RegularExpressions;
using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics.Corpus;

/// <summary>
/// The generator's entries added after the cold services of 2026-11-29 evening (an MVC action filter, an endpoint filter
/// class and a generic base repository that block): each generated service compiles, and what a right diagnosis says
/// points at its wait: the expected line holds the blocking statement and the expected method is a method of the
/// compiled assembly, in the words <see cref="SourceNames"/> gives it. Compiled with Roslyn, with the Web SDK's implicit usings.
/// </summary>
public sealed class ServiceGeneratorTests : IDisposable
{
    private static readonly Entry[] Added = [Entry.ActionFilter, Entry.BlockingEndpointFilter, Entry.GenericRepository];

    // What the blocking statements of ServiceGenerator.Blocking hold, one of them per wait.
    private static readonly Regex BlockingStatement = new(@"\.Result;|\.Wait\(\);|GetResult\(\);|Task\.WaitAll\(|\.Send\(|Thread\.Sleep\(|lock \(|\.Permits\.Wait\(\)|ReadExactly\(|ReadAllBytes\(");

    private const string ImplicitUsings = """
        global using System;
        global using System.Collections.Generic;
        global using System.IO;
        global using System.Linq;
        global using System.Net.Http;
        global using System.Threading;
        global using System.Threading.Tasks;
        global using Microsoft.AspNetCore.Builder;
        global using Microsoft.AspNetCore.Hosting;
        global using Microsoft.AspNetCore.Http;
        global using Microsoft.AspNetCore.Routing;
        global using Microsoft.Extensions.DependencyInjection;
        global using Microsoft.Extensions.Hosting;
        global using Microsoft.Extensions.Logging;
        """;

    private readonly string _folder = Directory.CreateTempSubdirectory("generated-").FullName;

    /// <summary>Seeds whose grids put the added entries with waits of every kind among their first services.</summary>
    public static TheoryData<int> Seeds() => [37, 4901, 5101, 5201];

    [Theory]
    [MemberData(nameof(Seeds))]
    public void AddedEntriesCompileAndTheirExpectedCallSiteIsTheWait(int seed)
    {
        var grid = Enum.GetValues<Entry>().Length * Enum.GetValues<Wait>().Length;
        // Each added entry once, with the first wait the seed's grid gives it.
        var services = ServiceGenerator.Compose(seed, grid).Where(s => Added.Contains(s.Shape.Entry)).DistinctBy(s => s.Shape.Entry).ToList();
        Assert.Equal(Added.Length, services.Count);
        foreach (var service in services)
        {
            var folder = Directory.CreateDirectory(Path.Combine(_folder, service.Shape.Name)).FullName;
            var sources = service.Files.Where(f => f.Key.EndsWith(".cs", StringComparison.Ordinal))
                .Select(f => (Name: f.Key, Path: Path.Combine(folder, Path.GetFileName(f.Key)), f.Value)).ToList();
            sources.ForEach(f => File.WriteAllText(f.Path, f.Value));
            File.WriteAllText(Path.Combine(folder, "GlobalUsings.cs"), ImplicitUsings);
            var assembly = Path.Combine(folder, $"{service.Shape.Name}.dll");

            ServedCodeTests.Compile([.. sources.Select(f => f.Path), Path.Combine(folder, "GlobalUsings.cs")], assembly);

            var expected = service.Expected;
            var line = File.ReadAllLines(Path.Combine(folder, expected.File))[expected.Line - 1];
            Assert.True(BlockingStatement.IsMatch(line), $"{service.Shape.Name}: {expected.File}:{expected.Line} is `{line.Trim()}`");
            using var module = ModuleSource.Open(assembly)!;
            Assert.Contains(expected.Method, module.Methods().Select(m => SourceNames.Describe(module.MethodName(m))));
        }
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
