using System.Text.RegularExpressions;

namespace ConcurrencySandbox.LoadTests.Tests;

public partial class FolderLayeringTests
{
    /// <summary>The runner's folders, each allowed to use only the ones before it (docs/loadtests.md, "Layout of the runner").</summary>
    private static readonly string[] Layers = ["ApiContract", "Engine", "Diagnostics", "Hosting", "Experiments", "Reports", "Running", "Matrix", "Cli"];

    [GeneratedRegex(@"^using ConcurrencySandbox\.LoadTests\.(?<folder>\w+);", RegexOptions.Multiline)]
    private static partial Regex UsingOfAFolder();

    [Fact]
    public void EveryFolderUsesOnlyTheFoldersBeforeItSoNoTwoImportEachOther()
    {
        var runner = Path.Combine(RepositoryRoot(), "loadtests", "ConcurrencySandbox.LoadTests");
        var folders = Directory.GetDirectories(runner).Select(Path.GetFileName).Where(f => f is not ("bin" or "obj")).Order().ToList();
        Assert.Equal(Layers.Order(), folders);

        var violations =
            from layer in Layers.Select((folder, rank) => (folder, rank))
            from file in Directory.GetFiles(Path.Combine(runner, layer.folder), "*.cs")
            from match in UsingOfAFolder().Matches(File.ReadAllText(file))
            let used = match.Groups["folder"].Value
            where Array.IndexOf(Layers, used) > layer.rank
            select $"{layer.folder}/{Path.GetFileName(file)} uses {used}";
        Assert.Empty(violations);
    }

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
