using System.Globalization;
using System.Text.RegularExpressions;

namespace ConcurrencySandbox.Deploy.Tests.Support;

/// <summary>deploy/compose.yaml, its services found by the Dockerfile target they build.</summary>
internal sealed class ComposeFile
{
    public const string Path = "deploy/compose.yaml";

    public object? Root { get; } = Yaml.LoadFile(Path);

    public IEnumerable<KeyValuePair<string, object?>> Services => Root.Entries("services");

    /// <summary>The services built from the API target, ordered by their CPU quota.</summary>
    public IReadOnlyList<KeyValuePair<string, object?>> Apis =>
        ServicesBuilding("api").OrderBy(service => Cpus(service.Value)).ToList();

    public KeyValuePair<string, object?> Stub => Assert.Single(ServicesBuilding("stub"));

    public KeyValuePair<string, object?> LoadRunner => Assert.Single(ServicesBuilding("loadrunner"));

    public IEnumerable<KeyValuePair<string, object?>> ServicesBuilding(string target) =>
        Services.Where(service => service.Value.Text("build", "target") == target);

    public static double Cpus(object? service) =>
        double.Parse(service.Text("cpus") ?? "NaN", CultureInfo.InvariantCulture);

    /// <summary>A value as Compose sees it when the shell sets none of its ${VARIABLE:-default}s.</summary>
    public static string WithDefaults(string value) => Regex.Replace(value, @"\$\{\w+:-([^}]*)\}", "$1");

    public static IReadOnlyDictionary<string, string?> Environment(object? service) =>
        service.Entries("environment").ToDictionary(entry => entry.Key, entry => entry.Value as string);
}
