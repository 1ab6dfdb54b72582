using System.Text.Json;
using System.Text.Json.Serialization;

namespace ConcurrencySandbox.Contracts;

/// <summary>
/// How the API writes these types and every reader reads them: the web defaults (camelCase properties) and enums as
/// camelCase strings ("ok", "timedOut", "dedicated").
/// </summary>
public static class ContractJson
{
    public static JsonSerializerOptions Options { get; } = Configure(new JsonSerializerOptions(JsonSerializerDefaults.Web));

    public static JsonSerializerOptions Configure(JsonSerializerOptions options)
    {
        options.Converters.Add(new JsonStringEnumConverter(JsonNamingPolicy.CamelCase));
        return options;
    }
}
