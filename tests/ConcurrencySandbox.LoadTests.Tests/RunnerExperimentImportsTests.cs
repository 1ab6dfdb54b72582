using System.Text.RegularExpressions;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// The runner treats the API as a black box: it reads the wire through Contracts and runs server-side experiment code
/// only where it must run the same code itself. Each such import is listed here with its reason; a new one fails.
/// </summary>
public partial class RunnerExperimentImportsTests
{
    private static readonly Dictionary<string, string> Allowed = new()
    {
        ["Experiments/Streaming/StreamingClientsCommand.cs uses ConcurrencySandbox.Experiments.Streaming"] =
            "runs the validating clients (StreamingClient, StreamTally) in the runner's streaming-clients process: they check each message with the protocol code the server sends with",
        ["Experiments/Streaming/StreamingExperiment.cs uses ConcurrencySandbox.Experiments.Streaming"] =
            "reads the clients' lateness buckets (LatenessHistogram) and bounds the message size by the protocol's (StreamProtocol), the code the validating clients run",
    };

    [GeneratedRegex(@"^using\s+(?:static\s+)?(?:\w+\s*=\s*)?(?<namespace>ConcurrencySandbox\.Experiments(?:\.\w+)*)\s*;", RegexOptions.Multiline)]
    private static partial Regex ExperimentsUsing();

    [Fact]
    public void TheRunnerImportsServerSideExperimentCodeOnlyWhereListedWithAReason()
    {
        var imports =
            from assembly in FolderLayeringTests.Assemblies
            let runner = Path.Combine(FolderLayeringTests.RepositoryRoot(), "loadtests", assembly)
            from file in Directory.GetFiles(runner, "*.cs", SearchOption.AllDirectories)
            let relative = Path.GetRelativePath(runner, file).Replace('\\', '/')
            where !relative.StartsWith("bin/", StringComparison.Ordinal) && !relative.StartsWith("obj/", StringComparison.Ordinal)
            from match in ExperimentsUsing().Matches(File.ReadAllText(file))
            select $"{relative} uses {match.Groups["namespace"].Value}";

        Assert.Equal(Allowed.Keys.Order(), imports.Order());
        Assert.All(Allowed.Values, reason => Assert.False(string.IsNullOrWhiteSpace(reason)));
    }
}
