using System.Text.Json;
using System.Text.Json.Serialization;

namespace ConcurrencySandbox.Api;

/// <summary>
/// How the API writes JSON: the web defaults (camelCase properties) and enums as camelCase strings, so the
/// experiments' enums read "ok", "timedOut", "dedicated" without serialization attributes of their own.
/// </summary>
public static class SandboxJson
{
    /// <summary>The same settings for a client in this solution that reads the API's answers (the tests).</summary>
    public static JsonSerializerOptions Options { get; } = Configure(new JsonSerializerOptions(JsonSerializerDefaults.Web));

    public static WebApplicationBuilder AddSandboxJson(this WebApplicationBuilder builder)
    {
        builder.Services.ConfigureHttpJsonOptions(options => Configure(options.SerializerOptions));
        return builder;
    }

    private static JsonSerializerOptions Configure(JsonSerializerOptions options)
    {
        options.Converters.Add(new JsonStringEnumConverter(JsonNamingPolicy.CamelCase));
        return options;
    }
}
