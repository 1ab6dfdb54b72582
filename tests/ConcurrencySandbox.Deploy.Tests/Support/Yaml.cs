using YamlDotNet.Core;
using YamlDotNet.Core.Events;
using YamlDotNet.Serialization;

namespace ConcurrencySandbox.Deploy.Tests.Support;

/// <summary>
/// YAML read into plain maps, lists and strings, with anchors and merge keys (&lt;&lt;: *x) resolved as
/// Compose and kubectl resolve them.
/// </summary>
internal static class Yaml
{
    private static readonly IDeserializer Deserializer = new DeserializerBuilder().Build();

    public static object? LoadFile(string relativePath) => LoadAll(Repository.Read(relativePath)).Single();

    public static IReadOnlyList<object?> LoadAll(string yaml)
    {
        var parser = new MergingParser(new Parser(new StringReader(yaml)));
        parser.Consume<StreamStart>();
        var documents = new List<object?>();
        while (parser.Accept<DocumentStart>(out _))
        {
            documents.Add(Deserializer.Deserialize(parser));
        }

        return documents;
    }

    /// <summary>The node at a path of map keys, or null when any step is missing.</summary>
    public static object? At(this object? node, params string[] keys)
    {
        foreach (var key in keys)
        {
            if (node is not Dictionary<object, object?> map || !map.TryGetValue(key, out node))
            {
                return null;
            }
        }

        return node;
    }

    public static Dictionary<object, object?> Map(this object? node, params string[] keys) =>
        node.At(keys) as Dictionary<object, object?>
        ?? throw new KeyNotFoundException($"No map at '{string.Join('.', keys)}'.");

    public static IReadOnlyList<object?> List(this object? node, params string[] keys) =>
        node.At(keys) as List<object?> ?? [];

    public static string? Text(this object? node, params string[] keys) => node.At(keys) as string;

    /// <summary>The entries of a map as (key, value) pairs with string keys.</summary>
    public static IEnumerable<KeyValuePair<string, object?>> Entries(this object? node, params string[] keys) =>
        node.At(keys) is Dictionary<object, object?> map
            ? map.Select(entry => KeyValuePair.Create((string)entry.Key, entry.Value))
            : [];
}
