using Microsoft.OpenApi;
using Swashbuckle.AspNetCore.SwaggerGen;

namespace ConcurrencySandbox.Api.Swagger;

/// <summary>Endpoint metadata: the 200 answer also comes as text in these media types (the JSON one stays documented by its type).</summary>
public sealed record TextAlternativesMetadata(IReadOnlyList<string> ContentTypes);

public static class TextAlternativesExtensions
{
    /// <summary>Documents a JSON 200 of <typeparamref name="T"/> and the same answer as text in other media types (ApiExplorer keeps one type per status).</summary>
    public static RouteHandlerBuilder ProducesJsonOrText<T>(this RouteHandlerBuilder builder, params string[] textContentTypes) =>
        builder.Produces<T>(StatusCodes.Status200OK, "application/json").WithMetadata(new TextAlternativesMetadata(textContentTypes));
}

internal sealed class TextAlternativesOperationFilter : IOperationFilter
{
    public void Apply(OpenApiOperation operation, OperationFilterContext context)
    {
        var alternatives = context.ApiDescription.ActionDescriptor.EndpointMetadata.OfType<TextAlternativesMetadata>().SelectMany(m => m.ContentTypes);
        if (operation.Responses?.TryGetValue("200", out var ok) is not true || ok.Content is null)
        {
            return;
        }

        foreach (var contentType in alternatives)
        {
            ok.Content[contentType] = new OpenApiMediaType { Schema = new OpenApiSchema { Type = JsonSchemaType.String } };
        }
    }
}
