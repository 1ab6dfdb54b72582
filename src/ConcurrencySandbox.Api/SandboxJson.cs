using System.Text.Json;
using ConcurrencySandbox.Contracts;

namespace ConcurrencySandbox.Api;

/// <summary>
/// How the API writes JSON: the web defaults (camelCase properties) and enums as camelCase strings, so the
/// experiments' enums read "ok", "timedOut", "dedicated" without serialization attributes of their own.
/// </summary>
public static class SandboxJson
{
    /// <summary>The same settings for a client in this solution that reads the API's answers (the tests).</summary>
    public static JsonSerializerOptions Options => ContractJson.Options;

    public static WebApplicationBuilder AddSandboxJson(this WebApplicationBuilder builder)
    {
        builder.Services.ConfigureHttpJsonOptions(options => ContractJson.Configure(options.SerializerOptions));
        return builder;
    }
}
