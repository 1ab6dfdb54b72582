using System.Net;
using Microsoft.AspNetCore.Http;

namespace ConcurrencySandbox.Tests.Hosting;

public static class ProblemAssert
{
    /// <summary>
    /// Asserts a 400 application/problem+json whose errors name exactly the given parameters, each in its own
    /// message; returns the detail text.
    /// </summary>
    public static async Task<string> IsBadRequestNamingAsync(HttpResponseMessage response, params string[] parameters)
    {
        var problem = await response.ReadProblemAsync<HttpValidationProblemDetails>(HttpStatusCode.BadRequest);
        Assert.Equal(parameters.Order(), problem.Errors.Keys.Order());
        Assert.All(parameters, parameter => Assert.Contains(parameter, problem.Errors[parameter][0], StringComparison.Ordinal));
        return problem.Detail ?? string.Empty;
    }
}
