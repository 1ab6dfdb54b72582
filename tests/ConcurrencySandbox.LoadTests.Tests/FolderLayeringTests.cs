using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using ConcurrencySandbox.LoadTests.Experiments;

namespace ConcurrencySandbox.LoadTests.Tests;

public partial class FolderLayeringTests
{
    /// <summary>
    /// The runner's assemblies, lowest first, each allowed to reference only the ones before it (docs/notebook/loadtests.md,
    /// "Layout of the runner"): the load engine, the observer and diagnosis, reporting, the command-line app.
    /// </summary>
    internal static readonly string[] Assemblies =
        ["ConcurrencySandbox.LoadTests.Engine", "ConcurrencySandbox.LoadTests.Diagnostics", "ConcurrencySandbox.LoadTests.Reports", "ConcurrencySandbox.LoadTests"];

    /// <summary>The app's folders, each allowed to use only the ones before it; the assemblies below it are the compiler's to check.</summary>
    private static readonly string[] Layers = ["Hosting", "Experiments", "Progress", "Running", "Runs", "Matrix", "Cli"];

    [GeneratedRegex(@"^using ConcurrencySandbox\.LoadTests\.(?<folder>\w+)(\.(?<slice>\w+))?;", RegexOptions.Multiline)]
    private static partial Regex UsingOfAFolder();

    private static string Runner => Path.Combine(RepositoryRoot(), "loadtests", "ConcurrencySandbox.LoadTests");

    private static string SlicesFolder => Path.Combine(Runner, "Experiments");

    [Fact]
    public void EveryRunnerAssemblyReferencesOnlyTheAssembliesBeforeIt()
    {
        var projects = Directory.GetDirectories(Path.Combine(RepositoryRoot(), "loadtests"), "ConcurrencySandbox.LoadTests*").Select(Path.GetFileName);
        Assert.Equal(Assemblies.Order(), projects.Order());

        // What each assembly was compiled against (its metadata), and what its project file asks for.
        var compiled = Assemblies.Select(name => (name, (IEnumerable<string>)CompiledReferences(Path.Combine(AppContext.BaseDirectory, name + ".dll"))));
        var declared = Assemblies.Select(name => (name, (IEnumerable<string>)ProjectReferences(name)));
        Assert.Empty(UpwardReferences(compiled));
        Assert.Empty(UpwardReferences(declared));
        Assert.Contains("ConcurrencySandbox.LoadTests.Engine", CompiledReferences(Path.Combine(AppContext.BaseDirectory, "ConcurrencySandbox.LoadTests.Reports.dll")));
    }

    [Fact]
    public void AReferenceFromALowerAssemblyToAHigherOneIsAViolation()
    {
        (string, IEnumerable<string>)[] references =
        [
            ("ConcurrencySandbox.LoadTests.Engine", ["ConcurrencySandbox.Contracts"]),
            ("ConcurrencySandbox.LoadTests.Diagnostics", ["ConcurrencySandbox.LoadTests.Engine", "ConcurrencySandbox.LoadTests.Reports"]),
            ("ConcurrencySandbox.LoadTests", ["ConcurrencySandbox.LoadTests.Diagnostics", "ConcurrencySandbox.LoadTests.Reports"]),
        ];
        Assert.Equal(["ConcurrencySandbox.LoadTests.Diagnostics references ConcurrencySandbox.LoadTests.Reports"], UpwardReferences(references));
    }

    [Fact]
    public void NoRunnerAssemblyLinksTheApi() =>
        Assert.All(Assemblies, name => Assert.DoesNotContain("ConcurrencySandbox.Api", CompiledReferences(Path.Combine(AppContext.BaseDirectory, name + ".dll"))));

    /// <summary>Each reference from one of the runner's assemblies to itself or one after it, as "A references B".</summary>
    private static List<string> UpwardReferences(IEnumerable<(string Assembly, IEnumerable<string> References)> assemblies) =>
    [
        .. from assembly in assemblies
           let rank = Array.IndexOf(Assemblies, assembly.Assembly)
           from reference in assembly.References
           where Array.IndexOf(Assemblies, reference) >= rank
           select $"{assembly.Assembly} references {reference}",
    ];

    /// <summary>The names of the assemblies the compiled assembly at <paramref name="path"/> references, read from its metadata.</summary>
    private static List<string> CompiledReferences(string path)
    {
        using var pe = new PEReader(File.OpenRead(path));
        var metadata = pe.GetMetadataReader();
        return [.. metadata.AssemblyReferences.Select(handle => metadata.GetString(metadata.GetAssemblyReference(handle).Name))];
    }

    /// <summary>The assembly names of the projects the runner project <paramref name="name"/> references.</summary>
    private static List<string> ProjectReferences(string name) =>
    [
        .. XDocument.Load(Path.Combine(RepositoryRoot(), "loadtests", name, name + ".csproj"))
            .Descendants("ProjectReference")
            .Select(reference => Path.GetFileNameWithoutExtension(reference.Attribute("Include")!.Value.Replace('\\', '/'))),
    ];

    [Fact]
    public void EveryAppFolderUsesOnlyTheFoldersBeforeItSoNoTwoImportEachOther()
    {
        var runner = Runner;
        var folders = Directory.GetDirectories(runner).Select(Path.GetFileName).Where(f => f is not ("bin" or "obj")).Order().ToList();
        Assert.Equal(Layers.Order(), folders);

        var violations =
            from layer in Layers.Select((folder, rank) => (folder, rank))
            from file in Directory.GetFiles(Path.Combine(runner, layer.folder), "*.cs", SearchOption.AllDirectories)
            from match in UsingOfAFolder().Matches(File.ReadAllText(file))
            let used = match.Groups["folder"].Value
            where Array.IndexOf(Layers, used) > layer.rank
            select $"{layer.folder}/{Path.GetFileName(file)} uses {used}";
        Assert.Empty(violations);
    }

    [Fact]
    public void EveryExperimentHasAFolderOfItsOwnThatNoOtherExperimentUses()
    {
        var slices = Slices();
        var experimentFiles = Directory.GetFiles(Runner, "*Experiment.cs", SearchOption.AllDirectories)
            .Where(file => !File.ReadAllText(file).Contains("abstract class", StringComparison.Ordinal))
            .Select(file => Path.GetRelativePath(SlicesFolder, file).Replace('\\', '/'));
        Assert.All(experimentFiles, file => Assert.Matches(@"^(?<slice>\w+)/\k<slice>Experiment\.cs$", file));

        var crossings =
            from slice in slices
            from file in Directory.GetFiles(Path.Combine(SlicesFolder, slice), "*.cs", SearchOption.AllDirectories)
            from crossing in Crossings(slice, File.ReadAllText(file), slices)
            select $"Experiments/{slice}/{Path.GetFileName(file)} uses {crossing}";
        Assert.Empty(crossings);
        Assert.Equal(slices.Count, ExperimentList.All.Count);
    }

    [Theory]
    [InlineData("using ConcurrencySandbox.Experiments.FanOut;")]
    [InlineData("using ConcurrencySandbox.Contracts.FanOut;")]
    [InlineData("using ConcurrencySandbox.LoadTests.Experiments.FanOut;")]
    [InlineData("using static ConcurrencySandbox.Experiments.FanOut.FanOutStrategies;")]
    [InlineData("using Strategies = ConcurrencySandbox.Experiments.FanOut.FanOutStrategies;")]
    public void AnImportOfAnotherSlicesNamespaceInAnyProjectIsACrossing(string line)
    {
        Assert.Single(Crossings("Contention", line, Slices()));
        Assert.Empty(Crossings("FanOut", line, Slices()));
    }

    /// <summary>The runner's experiment slices: the folders under Experiments/.</summary>
    private static List<string> Slices() => [.. Directory.GetDirectories(SlicesFolder).Select(d => Path.GetFileName(d)!)];

    /// <summary>
    /// The namespaces a file of <paramref name="slice"/> imports that belong to another slice, in any project (the
    /// runner's, Contracts', the experiments' or the API's): any segment after "ConcurrencySandbox" naming another slice.
    /// </summary>
    private static IEnumerable<string> Crossings(string slice, string source, IReadOnlyCollection<string> slices) =>
        from match in AnyUsing().Matches(source)
        let name = match.Groups["namespace"].Value
        where name.Split('.').Skip(1).Any(segment => segment != slice && slices.Contains(segment))
        select name;

    [GeneratedRegex(@"^using\s+(?:static\s+)?(?:\w+\s*=\s*)?(?<namespace>ConcurrencySandbox(?:\.\w+)+)\s*;", RegexOptions.Multiline)]
    private static partial Regex AnyUsing();

    internal static string RepositoryRoot()
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
