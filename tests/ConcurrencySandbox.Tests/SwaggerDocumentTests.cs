using System.Text.Json;
using ConcurrencySandbox.Tests.Hosting;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;

namespace ConcurrencySandbox.Tests;

/// <summary>Every route the app maps against its parameter declarations in the Swagger document; one server, read only.</summary>
public sealed class SwaggerDocumentTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>
{
    [Fact]
    public async Task EachRouteHasASummaryATagAndItsDeclaredParametersWithTheirAllowedRanges()
    {
        using var document = JsonDocument.Parse(await shared.Client.GetStringAsync("/swagger/v1/swagger.json"));
        var paths = document.RootElement.GetProperty("paths");
        var routes = DocumentedRoutes(shared.Server.Services);
        Assert.Contains(routes, route => route.Path == "/api/receive/compare");
        Assert.Contains(routes, route => route.Path == "/api/streaming");

        foreach (var (path, method, endpoint) in routes)
        {
            var operation = paths.GetProperty(path).GetProperty(method);

            Assert.False(string.IsNullOrWhiteSpace(operation.GetProperty("summary").GetString()), $"{method} {path}: no summary");
            Assert.NotEmpty(operation.GetProperty("tags").EnumerateArray());
            var declared = endpoint.Metadata.GetMetadata<QueryParameterMetadata>()?.Parameters(shared.Server.Services).Select(p => p.Name) ?? [];
            var documented = operation.TryGetProperty("parameters", out var list) ? list.EnumerateArray().ToList() : [];
            Assert.Equal(declared, documented.Select(p => p.GetProperty("name").GetString()));
            foreach (var parameter in documented)
            {
                Assert.Contains("Allowed:", parameter.GetProperty("description").GetString(), StringComparison.Ordinal);
                var schema = parameter.GetProperty("schema");
                Assert.True(schema.TryGetProperty("maximum", out _) || schema.TryGetProperty("enum", out _), $"{path} {parameter}: no range");
            }
        }
    }

    /// <summary>The app's own routes that the document describes: its endpoints, not a list kept beside them.</summary>
    internal static List<(string Path, string Method, RouteEndpoint Endpoint)> DocumentedRoutes(IServiceProvider services) =>
    [
        .. from endpoint in services.GetRequiredService<EndpointDataSource>().Endpoints.OfType<RouteEndpoint>()
           where endpoint.Metadata.GetMetadata<IExcludeFromDescriptionMetadata>() is not { ExcludeFromDescription: true }
           from method in endpoint.Metadata.GetMetadata<IHttpMethodMetadata>()?.HttpMethods ?? []
           select ("/" + endpoint.RoutePattern.RawText!.Trim('/'), method.ToLowerInvariant(), endpoint),
    ];
}
