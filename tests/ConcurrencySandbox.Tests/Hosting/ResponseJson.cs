using System.Net;
using System.Text.Json;
using ConcurrencySandbox.Api;

namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>Reads the API's answers into its own response records, with the API's JSON settings.</summary>
public static class ResponseJson
{
    /// <summary>GETs <paramref name="url"/>, asserts a success status and reads the body as <typeparamref name="T"/>.</summary>
    public static async Task<T> GetOkAsync<T>(this HttpClient client, string url)
    {
        using var response = await client.GetAsync(url);
        return await response.ReadOkAsync<T>();
    }

    /// <summary>Asserts a success status and reads the body as <typeparamref name="T"/>.</summary>
    public static async Task<T> ReadOkAsync<T>(this HttpResponseMessage response)
    {
        var body = await response.Content.ReadAsStringAsync();
        Assert.True(response.IsSuccessStatusCode, $"{response.RequestMessage?.RequestUri}: {(int)response.StatusCode} {body}");
        return Read<T>(body);
    }

    /// <summary>Asserts an application/problem+json answer with <paramref name="status"/> and reads it as <typeparamref name="T"/>.</summary>
    public static async Task<T> ReadProblemAsync<T>(this HttpResponseMessage response, HttpStatusCode status)
    {
        Assert.Equal(status, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        return Read<T>(await response.Content.ReadAsStringAsync());
    }

    private static T Read<T>(string body) =>
        JsonSerializer.Deserialize<T>(body, SandboxJson.Options) ?? throw new InvalidOperationException($"The body is JSON null: {body}");
}
