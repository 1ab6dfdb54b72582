using System.Reflection;
using ConcurrencySandbox.Api;

namespace ConcurrencySandbox.Deploy.Tests.Support;

/// <summary>What the app reads from environment variables, taken from its own code.</summary>
internal static class AppConfiguration
{
    /// <summary>Variables read by the runtime or ASP.NET Core rather than by an options class.</summary>
    public static readonly IReadOnlySet<string> RuntimeVariables = new HashSet<string>(StringComparer.Ordinal)
    {
        "ASPNETCORE_HTTP_PORTS",
        "DOTNET_PROCESSOR_COUNT",
        "DOTNET_gcServer",
    };

    /// <summary>The options classes of the API and the libraries it references, by their SectionName.</summary>
    public static ILookup<string, Type> OptionsBySection { get; } = FindOptions();

    /// <summary>
    /// Why a variable would not reach the app, or null when it does: a runtime variable, or
    /// Section__Property naming a settable property of the options class bound from Section.
    /// </summary>
    public static string? ProblemWith(string variable)
    {
        if (RuntimeVariables.Contains(variable))
        {
            return null;
        }

        var parts = variable.Split("__");
        if (parts.Length != 2)
        {
            return $"{variable} is neither a runtime variable nor Section__Property";
        }

        var candidates = OptionsBySection[parts[0]].ToList();
        if (candidates.Count == 0)
        {
            return $"{variable}: no options class has SectionName \"{parts[0]}\" (known: {string.Join(", ", OptionsBySection.Select(g => g.Key))})";
        }

        // Configuration keys are case-insensitive, so the binder matches the property ignoring case too.
        var settable = candidates
            .Select(options => options.GetProperty(parts[1], BindingFlags.Public | BindingFlags.Instance | BindingFlags.IgnoreCase))
            .Any(property => property?.SetMethod is { IsPublic: true });
        return settable ? null : $"{variable}: {string.Join(", ", candidates.Select(c => c.Name))} has no settable property {parts[1]}";
    }

    private static ILookup<string, Type> FindOptions()
    {
        var api = typeof(SandboxApp).Assembly;
        var sandboxAssemblies = api.GetReferencedAssemblies()
            .Where(name => name.Name?.StartsWith("ConcurrencySandbox.", StringComparison.Ordinal) == true)
            .Select(Assembly.Load)
            .Append(api);
        return sandboxAssemblies
            .SelectMany(assembly => assembly.GetTypes())
            .Select(type => (type, field: type.GetField("SectionName", BindingFlags.Public | BindingFlags.Static)))
            .Where(pair => pair.field is { IsLiteral: true } && pair.field.FieldType == typeof(string))
            .ToLookup(pair => (string)pair.field!.GetRawConstantValue()!, pair => pair.type, StringComparer.OrdinalIgnoreCase);
    }
}
