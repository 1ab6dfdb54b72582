using System.Net;
using System.Text.Json;

namespace ConcurrencySandbox.Tests.Hosting;

public static class ProblemAssert
{
    /// <summary>Asserts a 400 application/problem+json whose errors name the parameter; returns the detail text.</summary>
    public static async Task<string> IsBadRequestNaming(HttpResponseMessage response, string parameter)
    {
        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        var errors = problem.RootElement.GetProperty("errors");
        Assert.True(errors.TryGetProperty(parameter, out var messages), $"errors should name '{parameter}': {errors}");
        Assert.Contains(parameter, messages[0].GetString());
        return problem.RootElement.GetProperty("detail").GetString() ?? string.Empty;
    }
}
