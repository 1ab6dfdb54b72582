using System.Text.RegularExpressions;

namespace ConcurrencySandbox.Tests;

/// <summary>
/// The server side's folders, read from the source: no two API folders import each other (directly or round a longer
/// cycle), and no experiment slice imports another's namespace in the API or the experiments library, so deleting a
/// slice's folders leaves the others building (docs/notebook/development.md, "One experiment, one folder per layer").
/// </summary>
public sealed partial class SourceLayeringTests
{
    /// <summary>Slice namespaces every slice may use, because they are a shared mechanism rather than an experiment's.</summary>
    private static readonly Dictionary<string, string> SharedSliceNamespaces = new()
    {
        ["Experiments.Telemetry"] = "the ConcurrencySandbox meter every slice declares its instruments on, and the process readers",
    };

    [GeneratedRegex(@"^using ConcurrencySandbox\.(?<project>Api|Experiments)\.(?<folder>\w+)(\.\w+)*;", RegexOptions.Multiline)]
    private static partial Regex UsingOfAFolder();

    private static string Source => Path.Combine(RepositoryRoot(), "src");

    [Fact]
    public void NoApiFoldersImportEachOtherRoundACycle()
    {
        var api = Folders("Api");
        var uses = api.ToDictionary(folder => folder, folder => Imports("Api", folder).Where(i => i.Project == "Api").Select(i => i.Folder).ToHashSet());

        var cycles = api.Select(folder => CycleFrom(folder, uses)).OfType<string>().Distinct().ToList();

        Assert.Empty(cycles);
    }

    [Fact]
    public void NoExperimentSliceImportsAnother()
    {
        // A slice is an experiment library folder; the API folders of the same names are their API layers, the others
        // (Admin, Control, Hosting, Metrics, Swagger) are shared mechanisms.
        var slices = Folders("Experiments");
        Assert.Contains("FanOut", slices);

        var crossings =
            from project in new[] { "Api", "Experiments" }
            from slice in Folders(project).Intersect(slices)
            from import in Imports(project, slice)
            where slices.Contains(import.Folder) && import.Folder != slice && !SharedSliceNamespaces.ContainsKey($"{import.Project}.{import.Folder}")
            select $"{project}/{slice}/{import.File} uses {import.Project}.{import.Folder}";

        Assert.Empty(crossings);
    }

    [Fact]
    public void AnImportOfAnotherSliceIsSeen()
    {
        var imports = UsingOfAFolder().Matches("using ConcurrencySandbox.Experiments.Work;\nusing ConcurrencySandbox.Api.FanOut.Stub;\nusing System;");

        Assert.Equal(["Experiments.Work", "Api.FanOut"], imports.Select(m => $"{m.Groups["project"].Value}.{m.Groups["folder"].Value}"));
    }

    /// <summary>A cycle through <paramref name="start"/> as "A -> B -> A", or null.</summary>
    private static string? CycleFrom(string start, Dictionary<string, HashSet<string>> uses)
    {
        var path = new List<string> { start };
        return Walk(start) ? string.Join(" -> ", path) : null;

        bool Walk(string folder)
        {
            foreach (var next in uses.GetValueOrDefault(folder, []).Order())
            {
                if (next == start)
                {
                    path.Add(next);
                    return true;
                }

                if (!path.Contains(next))
                {
                    path.Add(next);
                    if (Walk(next))
                    {
                        return true;
                    }

                    path.RemoveAt(path.Count - 1);
                }
            }

            return false;
        }
    }

    private static List<string> Folders(string project) =>
        [.. Directory.GetDirectories(Path.Combine(Source, $"ConcurrencySandbox.{project}"))
            .Select(Path.GetFileName).OfType<string>().Where(f => f is not ("bin" or "obj")).Order()];

    private static IEnumerable<(string File, string Project, string Folder)> Imports(string project, string folder) =>
        from file in Directory.GetFiles(Path.Combine(Source, $"ConcurrencySandbox.{project}", folder), "*.cs", SearchOption.AllDirectories)
        from match in UsingOfAFolder().Matches(File.ReadAllText(file))
        let used = (Project: match.Groups["project"].Value, Folder: match.Groups["folder"].Value)
        where used != (project, folder)
        select (Path.GetFileName(file), used.Project, used.Folder);

    private static string RepositoryRoot()
    {
        for (var folder = new DirectoryInfo(AppContext.BaseDirectory); folder is not null; folder = folder.Parent)
        {
            if (File.Exists(Path.Combine(folder.FullName, "ConcurrencySandbox.sln")))
            {
                return folder.FullName;
            }
        }

        throw new InvalidOperationException($"no ConcurrencySandbox.sln above {AppContext.BaseDirectory}");
    }
}
