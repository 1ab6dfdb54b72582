using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics.Corpus;

/// <summary>How a diagnosis scored against what the generator knows.</summary>
public enum Verdict
{
    /// <summary>The method that blocks, the file:line of its blocking call, the route and the primitive, all right.</summary>
    Right,

    /// <summary>Unsure, and the right method (at the right line) among those it lists.</summary>
    Ambiguous,

    /// <summary>It named no call site in user code: nothing wrong was said, nothing right either.</summary>
    NotNamed,

    /// <summary>A wrong method, line, route or primitive, or a list without the right method.</summary>
    Wrong,
}

/// <summary>One generated service's diagnosis: its shape, the verdict, and what was named against what was expected.</summary>
public sealed record Scored(ServiceShape Shape, Verdict Verdict, string Named, string Expected);

/// <summary>
/// The accuracy benchmark (issue 37 item 5): writes the generated services as projects under one folder, builds them
/// with one <c>dotnet build</c> of a generated solution (offline: the web SDK's packs need no package), then for each one
/// starts it, runs <c>run --url</c> on it as a new user would (<see cref="RunUrlDiagnosis"/>) and scores the top call
/// site against what the generator knows.
/// </summary>
public static class DiagnosisBenchmark
{
    private static readonly TimeSpan BuildTimeout = TimeSpan.FromMinutes(20);

    public static async Task<IReadOnlyList<Scored>> RunAsync(IReadOnlyList<GeneratedService> services, Action<string> log)
    {
        var root = Directory.CreateTempSubdirectory("sandbox-corpus-").FullName;
        try
        {
            await WriteAsync(root, services);
            var built = Stopwatch.StartNew();
            await BuildAsync(root);
            log(string.Create(CultureInfo.InvariantCulture, $"built {services.Count} services in {built.Elapsed.TotalSeconds:0} s"));
            var scored = new List<Scored>();
            foreach (var service in services)
            {
                var name = service.Shape.Name;
                await using var process = await SampleServiceProcess.StartAssemblyAsync(Path.Combine(root, name, "bin", "Release", "net10.0", $"{name}.dll"));
                var diagnosed = await RunUrlDiagnosis.DiagnoseAsync(process, service.RequestPath);
                var score = Score(service, diagnosed.Top);
                log($"{name}: {score.Verdict}: named {score.Named}; expected {score.Expected}");
                scored.Add(score);
            }
            return scored;
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }

    /// <summary>The verdict for one diagnosis (<paramref name="call"/>: the top call site in user code, null when none).</summary>
    public static Scored Score(GeneratedService service, BlockingCall? call)
    {
        var expected = service.Expected;
        var expectedText = $"{expected.Method} ({expected.File}:{expected.Line}), {string.Join(" or ", expected.Primitives)}, {expected.Route ?? "no route"}";
        if (call is null)
        {
            return new Scored(service.Shape, Verdict.NotNamed, "no call site in user code", expectedText);
        }
        bool At(string method, SourceLine? line) => method == expected.Method && line is { } l && Path.GetFileName(l.File) == expected.File && l.Line == expected.Line;
        var verdict = call.Unsure
            ? call.Listed.Any(c => At(c.Method, c.Line)) ? Verdict.Ambiguous : Verdict.Wrong
            : At(call.Method, call.Line) && call.Route == expected.Route && expected.Primitives.Contains(call.Primitive) ? Verdict.Right : Verdict.Wrong;
        return new Scored(service.Shape, verdict, $"{call.Describe()}{(call.Note is { } note ? $" [{note}]" : "")}", expectedText);
    }

    /// <summary>The table by entry and by wait: right, ambiguous, not named, wrong (Markdown).</summary>
    public static string Table(IReadOnlyList<Scored> scored)
    {
        static string Row(string label, IReadOnlyCollection<Scored> group) => string.Create(CultureInfo.InvariantCulture,
            $"| {label} | {group.Count} | {group.Count(s => s.Verdict == Verdict.Right)} | {group.Count(s => s.Verdict == Verdict.Ambiguous)} | {group.Count(s => s.Verdict == Verdict.NotNamed)} | {group.Count(s => s.Verdict == Verdict.Wrong)} |");
        var lines = new List<string> { "| shape | services | right | ambiguous (right one listed) | not named | wrong |", "|---|---|---|---|---|---|" };
        lines.AddRange(scored.GroupBy(s => s.Shape.Entry).OrderBy(g => g.Key).Select(g => Row($"entry: {g.Key}", [.. g])));
        lines.AddRange(scored.GroupBy(s => s.Shape.Wait).OrderBy(g => g.Key).Select(g => Row($"wait: {g.Key}", [.. g])));
        lines.AddRange(scored.GroupBy(s => s.Shape.Depth).OrderBy(g => g.Key).Select(g => Row($"depth {g.Key}", [.. g])));
        lines.AddRange(scored.GroupBy(s => s.Shape.Inlined).OrderBy(g => g.Key).Select(g => Row(g.Key ? "AggressiveInlining" : "no inlining hint", [.. g])));
        lines.Add(Row("**all**", scored));
        return string.Join('\n', lines);
    }

    private static async Task WriteAsync(string root, IReadOnlyList<GeneratedService> services)
    {
        // Nothing above the corpus: no repository's build rules or package versions reach the generated projects.
        await File.WriteAllTextAsync(Path.Combine(root, "Directory.Build.props"), "<Project />\n");
        await File.WriteAllTextAsync(Path.Combine(root, "Directory.Packages.props"), "<Project />\n");
        foreach (var service in services)
        {
            var folder = Directory.CreateDirectory(Path.Combine(root, service.Shape.Name)).FullName;
            await File.WriteAllTextAsync(Path.Combine(folder, $"{service.Shape.Name}.csproj"), """
                <Project Sdk="Microsoft.NET.Sdk.Web">
                  <PropertyGroup>
                    <TargetFramework>net10.0</TargetFramework>
                    <Nullable>enable</Nullable>
                    <ImplicitUsings>enable</ImplicitUsings>
                    <DebugType>portable</DebugType>
                  </PropertyGroup>
                </Project>
                """);
            foreach (var (file, text) in service.Files)
            {
                await File.WriteAllTextAsync(Path.Combine(folder, file), text);
            }
        }
        await File.WriteAllTextAsync(Path.Combine(root, "corpus.slnx"),
            $"<Solution>\n{string.Concat(services.Select(s => $"  <Project Path=\"{s.Shape.Name}/{s.Shape.Name}.csproj\" />\n"))}</Solution>\n");
    }

    /// <summary>One Release build of the whole corpus, with no build server left running after it.</summary>
    private static async Task BuildAsync(string root)
    {
        var (code, output, error) = await CommandRun.RunAsync("dotnet", ["build", Path.Combine(root, "corpus.slnx"), "-c", "Release", "-nologo", "-v", "quiet", "--disable-build-servers"], BuildTimeout);
        Assert.True(code == 0, $"dotnet build of the corpus failed ({code}):\n{output}\n{error}");
    }
}
