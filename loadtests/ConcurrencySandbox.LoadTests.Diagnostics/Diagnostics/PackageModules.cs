using System.Collections.Concurrent;
using System.Text.Json;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// The modules a service ships from NuGet packages (Swashbuckle, Serilog, a database driver): libraries, not the code
/// its developer wrote, although their frames' names start with no "System." or "Microsoft.". Read from the
/// <c>*.deps.json</c> beside the module: the runtime assets of every library of type "package" (a "project" is the
/// developer's own). A module with no deps.json beside it (a single file, a synthetic stack) is not known to be one.
/// </summary>
public static class PackageModules
{
    private static readonly ConcurrentDictionary<string, IReadOnlySet<string>> ByFolder = new(StringComparer.Ordinal);

    /// <summary>Whether <paramref name="modulePath"/> is a runtime assembly of a package its folder's deps.json lists.</summary>
    public static bool IsPackage(string? modulePath) =>
        modulePath is not null && Path.GetDirectoryName(modulePath) is { Length: > 0 } folder && ByFolder.GetOrAdd(folder, Read).Contains(Path.GetFileName(modulePath));

    /// <summary>The file names of the package assemblies the deps.json files of <paramref name="folder"/> list.</summary>
    internal static IReadOnlySet<string> Read(string folder)
    {
        var names = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        if (!Directory.Exists(folder))
        {
            return names;
        }
        foreach (var file in Directory.EnumerateFiles(folder, "*.deps.json"))
        {
            try
            {
                using var deps = JsonDocument.Parse(File.ReadAllText(file));
                var root = deps.RootElement;
                if (!root.TryGetProperty("libraries", out var libraries) || !root.TryGetProperty("targets", out var targets))
                {
                    continue;
                }
                var packages = libraries.EnumerateObject().Where(l => l.Value.TryGetProperty("type", out var type) && type.GetString() == "package").Select(l => l.Name).ToHashSet(StringComparer.Ordinal);
                foreach (var library in targets.EnumerateObject().SelectMany(t => t.Value.EnumerateObject()).Where(l => packages.Contains(l.Name)))
                {
                    if (library.Value.TryGetProperty("runtime", out var runtime))
                    {
                        names.UnionWith(runtime.EnumerateObject().Select(asset => Path.GetFileName(asset.Name)));
                    }
                }
            }
            catch (Exception e) when (e is JsonException or IOException or UnauthorizedAccessException or InvalidOperationException)
            {
                // An unreadable deps.json names no package: its modules stay the application's, as before it was read.
            }
        }
        return names;
    }
}
