using System.Globalization;
using System.Net;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using ConcurrencySandbox.Api.Control;
using ConcurrencySandbox.Deploy.Tests.Support;

namespace ConcurrencySandbox.Deploy.Tests;

public class DockerfileTests
{
    private const string SdkImage = "mcr.microsoft.com/dotnet/sdk:10.0";
    private const string RuntimeImage = "mcr.microsoft.com/dotnet/aspnet:10.0";

    /// <summary>Each image target and the project whose published output it runs.</summary>
    public static TheoryData<string, string> Targets => new()
    {
        { "api", "src/ConcurrencySandbox.Api/ConcurrencySandbox.Api.csproj" },
        { "stub", "src/ConcurrencySandbox.ThirdPartyStub/ConcurrencySandbox.ThirdPartyStub.csproj" },
        { "loadrunner", "loadtests/ConcurrencySandbox.LoadTests/ConcurrencySandbox.LoadTests.csproj" },
    };

    private readonly Dockerfile _dockerfile = Dockerfile.Load();

    [Fact]
    public void BaseImagesAreBuildArgumentsDefaultingToTheOfficialImages()
    {
        Assert.Equal(SdkImage, _dockerfile.GlobalArguments["SDK_IMAGE"]);
        Assert.Equal(RuntimeImage, _dockerfile.GlobalArguments["RUNTIME_IMAGE"]);
        var imageStages = _dockerfile.Stages.Where(stage => _dockerfile.Stages.All(other => other.Name != stage.From)).Select(stage => stage.Name);
        Assert.Equal(new[] { "build", "runtime" }, imageStages);
        Assert.Matches(@"(?m)^FROM \$\{SDK_IMAGE\} AS build$", Repository.Read("Dockerfile"));
        Assert.Matches(@"(?m)^FROM \$\{RUNTIME_IMAGE\} AS runtime$", Repository.Read("Dockerfile"));
    }

    [Fact]
    public void DockerfileHasNoSyntaxDirectiveThatAnOfflineBuildKitWouldFetch() =>
        Assert.DoesNotMatch(@"(?im)^#\s*syntax\s*=", Repository.Read("Dockerfile"));

    [Fact]
    public void ApiIsTheDefaultTarget() => Assert.Equal("api", _dockerfile.Stages[^1].Name);

    [Theory]
    [MemberData(nameof(Targets))]
    public void TargetRunsItsProjectOnTheAspNetRuntimeAfterPublishingItWithTheSdk(string target, string project)
    {
        var stage = _dockerfile[target];
        Assert.Equal(RuntimeImage, _dockerfile.BaseImage(stage));

        var copy = Assert.Single(stage.All("COPY"));
        var publishStage = _dockerfile[copy.Flag("from") ?? throw new Xunit.Sdk.XunitException($"{target} copies nothing from a build stage.")];
        Assert.Equal(SdkImage, _dockerfile.BaseImage(publishStage));
        var publish = Assert.Single(publishStage.All("RUN"));
        Assert.Equal(project, PathAfter("publish", publish.Arguments));

        Assert.Equal(new[] { "dotnet", $"{Path.GetFileNameWithoutExtension(project)}.dll" }, Assert.Single(stage.All("ENTRYPOINT")).ExecForm());
    }

    [Theory]
    [InlineData("api")]
    [InlineData("stub")]
    [InlineData("loadrunner")]
    public void TargetRunsAsANonRootUser(string target)
    {
        var user = _dockerfile.EffectiveUser(_dockerfile[target]);
        Assert.NotNull(user);
        Assert.DoesNotMatch(@"^(root|0)(:.*)?$", user);
    }

    [Theory]
    [InlineData("api")]
    [InlineData("stub")]
    [InlineData("loadrunner")]
    public void TargetListensOnPort8080(string target)
    {
        var lineage = _dockerfile.Lineage(_dockerfile[target]).ToList();
        Assert.Contains(lineage, stage => stage.All("EXPOSE").Any(expose => expose.Arguments == "8080"));
        Assert.Contains(lineage, stage => stage.All("ENV").Any(env => env.Arguments == "ASPNETCORE_HTTP_PORTS=8080"));
    }

    [Fact]
    public void ApiTargetExposesTheControlPlanesDefaultPortOnEveryInterface()
    {
        var api = _dockerfile["api"];
        var environment = _dockerfile.Environment(api);
        var port = ControlOptions.DefaultPort.ToString(CultureInfo.InvariantCulture);

        Assert.Contains(_dockerfile.Lineage(api), stage => stage.All("EXPOSE").Any(expose => expose.Arguments == port));
        Assert.True(
            IPAddress.TryParse(environment.GetValueOrDefault($"{ControlOptions.SectionName}__{nameof(ControlOptions.Host)}"), out var host) && host.Equals(IPAddress.Any),
            "The api image must set Control__Host=0.0.0.0: the default, loopback, is unreachable from outside a container.");
        Assert.DoesNotContain($"{ControlOptions.SectionName}__{nameof(ControlOptions.Port)}", environment.Keys);
    }

    [Fact]
    public void RestoreRunsBeforeTheSourceIsCopied()
    {
        var build = BuildStage();
        var restoreIndex = IndexOf(build, instruction => instruction.Keyword == "RUN" && instruction.Arguments.Contains("dotnet restore", StringComparison.Ordinal));
        var sourceIndex = IndexOf(build, instruction => instruction.Keyword == "COPY" && instruction.Words().SequenceEqual([".", "."]));
        Assert.True(restoreIndex < sourceIndex, "dotnet restore must run before COPY . . so that source edits keep the restore layer.");

        var copiedBeforeRestore = build.Instructions.Take(restoreIndex).Where(instruction => instruction.Keyword == "COPY").SelectMany(Sources);
        Assert.All(copiedBeforeRestore, source => Assert.Matches(@"(\.csproj|\.props|global\.json)$", source));
    }

    [Fact]
    public void RestoreLayerHoldsEveryFileRestoreReads()
    {
        var build = BuildStage();
        var restoreIndex = IndexOf(build, instruction => instruction.Keyword == "RUN" && instruction.Arguments.Contains("dotnet restore", StringComparison.Ordinal));
        var copied = build.Instructions.Take(restoreIndex).Where(instruction => instruction.Keyword == "COPY").SelectMany(Sources).ToHashSet();
        var restored = Regex.Matches(build.Instructions[restoreIndex].Arguments, @"dotnet restore (\S+)").Select(match => match.Groups[1].Value).ToList();

        Assert.NotEmpty(restored);
        var needed = restored.SelectMany(ProjectClosure).SelectMany(project => BuildFilesRestoreReads(project).Append(project)).Distinct();
        Assert.All(needed, path => Assert.Contains(path, copied));
    }

    [Fact]
    public void EveryTargetProjectIsRestored()
    {
        var build = BuildStage();
        var restore = Assert.Single(build.All("RUN"), instruction => instruction.Arguments.Contains("dotnet restore", StringComparison.Ordinal));
        Assert.All(Targets, row => Assert.Contains($"dotnet restore {row[1]}", restore.Arguments, StringComparison.Ordinal));
    }

    [Fact]
    public void StubProjectClosureHoldsTheValidationLibraryAndNotTheApi()
    {
        // The stub image publishes this closure: it validates like the API without carrying the API.
        var closure = ProjectClosure("src/ConcurrencySandbox.ThirdPartyStub/ConcurrencySandbox.ThirdPartyStub.csproj").ToList();
        Assert.Contains("src/ConcurrencySandbox.Validation/ConcurrencySandbox.Validation.csproj", closure);
        Assert.DoesNotContain("src/ConcurrencySandbox.Api/ConcurrencySandbox.Api.csproj", closure);
    }

    [Fact]
    public void LoadRunnerProjectClosureHoldsEachOfItsLayers()
    {
        // The runner's app composes one assembly per layer; restore reads each of their project files.
        var closure = ProjectClosure("loadtests/ConcurrencySandbox.LoadTests/ConcurrencySandbox.LoadTests.csproj").ToList();
        Assert.All(new[] { "Engine", "Diagnostics", "Reports" }, layer =>
            Assert.Contains($"loadtests/ConcurrencySandbox.LoadTests.{layer}/ConcurrencySandbox.LoadTests.{layer}.csproj", closure));
    }

    [Fact]
    public void EveryPathTheDockerfileCopiesFromTheContextExists()
    {
        var sources = _dockerfile.Stages.SelectMany(stage => stage.All("COPY")).Where(copy => copy.Flag("from") is null).SelectMany(Sources).ToList();
        Assert.NotEmpty(sources);
        Assert.All(sources, source => Assert.True(
            source == "." || File.Exists(Repository.PathOf(source)),
            $"COPY {source}: no such file in the repository."));
    }

    [Fact]
    public void DockerignoreKeepsBuildOutputOutOfTheContext()
    {
        var patterns = Repository.Read(".dockerignore").ReplaceLineEndings("\n").Split('\n').Select(line => line.Trim().TrimEnd('/')).ToHashSet();
        Assert.Contains("**/bin", patterns);
        Assert.Contains("**/obj", patterns);
    }

    [Fact]
    public void DockerignoreKeepsNoSourceFileOutEvenWhenMatchedIgnoringCase()
    {
        // Compose v1's own builder matches .dockerignore without regard to case: "**/reports/" dropped the runner's Reports/ folder.
        var patterns = Repository.Read(".dockerignore").ReplaceLineEndings("\n").Split('\n')
            .Select(line => line.Trim()).Where(line => line.Length > 0 && !line.StartsWith('#')).ToList();
        var sources = new[] { "src", "loadtests" }
            .SelectMany(folder => Directory.EnumerateFiles(Repository.PathOf(folder), "*", SearchOption.AllDirectories))
            .Select(path => Path.GetRelativePath(Repository.Root, path).Replace(Path.DirectorySeparatorChar, '/'))
            .Where(path => !Regex.IsMatch(path, "/(bin|obj)/"))
            .ToList();

        Assert.NotEmpty(sources);
        Assert.All(sources, source => Assert.DoesNotContain(patterns, pattern => Regex.IsMatch(source, IgnoreRegex(pattern), RegexOptions.IgnoreCase)));
    }

    /// <summary>A .dockerignore pattern as a regex over repository paths: "**/" any folders, "*" within one name, a match covers everything below.</summary>
    private static string IgnoreRegex(string pattern)
    {
        var body = Regex.Escape(pattern.Trim('/')).Replace(@"\*\*/", "(.*/)?", StringComparison.Ordinal).Replace(@"\*", "[^/]*", StringComparison.Ordinal);
        return $"^{body}(/.*)?$";
    }

    private Stage BuildStage() =>
        Assert.Single(_dockerfile.Stages, stage => stage.From == SdkImage && stage.All("RUN").Any(run => run.Arguments.Contains("dotnet restore", StringComparison.Ordinal)));

    private static int IndexOf(Stage stage, Func<Instruction, bool> match)
    {
        var index = stage.Instructions.ToList().FindIndex(instruction => match(instruction));
        Assert.True(index >= 0, $"Stage {stage.Name} lacks the expected instruction.");
        return index;
    }

    /// <summary>The source paths of a COPY: every word but the destination.</summary>
    private static IEnumerable<string> Sources(Instruction copy)
    {
        var words = copy.Words();
        return words.Take(words.Count - 1);
    }

    private static string PathAfter(string verb, string arguments) =>
        Regex.Match(arguments, $@"dotnet {verb} (\S+)").Groups[1].Value;

    /// <summary>The project and every project it references, transitively, as repository paths.</summary>
    private static IEnumerable<string> ProjectClosure(string project)
    {
        var seen = new HashSet<string>();
        var pending = new Stack<string>([project]);
        while (pending.TryPop(out var next))
        {
            if (!seen.Add(next))
            {
                continue;
            }

            Assert.True(File.Exists(Repository.PathOf(next)), $"{next}: no such project in the repository.");
            var directory = Path.GetDirectoryName(next)!;
            foreach (var reference in XDocument.Load(Repository.PathOf(next)).Descendants("ProjectReference"))
            {
                var referenced = Path.GetRelativePath(Repository.Root, Path.Combine(Repository.PathOf(directory), reference.Attribute("Include")!.Value.Replace('\\', '/')));
                pending.Push(referenced.Replace(Path.DirectorySeparatorChar, '/'));
            }
        }

        return seen;
    }

    /// <summary>The Directory.*.props and global.json files above a project that MSBuild imports on restore.</summary>
    private static IEnumerable<string> BuildFilesRestoreReads(string project)
    {
        for (var directory = Path.GetDirectoryName(project); directory is not null; directory = Path.GetDirectoryName(directory))
        {
            foreach (var name in new[] { "Directory.Build.props", "Directory.Packages.props", "global.json", "NuGet.config", "nuget.config" })
            {
                var path = directory.Length == 0 ? name : $"{directory}/{name}";
                if (File.Exists(Repository.PathOf(path)))
                {
                    yield return path;
                }
            }
        }
    }
}
