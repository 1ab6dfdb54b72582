using Microsoft.OpenApi;
using Swashbuckle.AspNetCore.SwaggerGen;

namespace ConcurrencySandbox.Api.Swagger;

/// <summary>
/// Lists every tag the described endpoints carry (<see cref="ApiTag"/>) with its description, in its declared order, and
/// declares that operations without the admin key need no credentials.
/// </summary>
internal sealed class TagsDocumentFilter : IDocumentFilter
{
    public void Apply(OpenApiDocument swaggerDoc, DocumentFilterContext context)
    {
        var tags = context.ApiDescriptions
            .SelectMany(description => description.ActionDescriptor.EndpointMetadata.OfType<ApiTag>())
            .Distinct()
            .OrderBy(tag => tag.Order);
        swaggerDoc.Tags = new HashSet<OpenApiTag>(tags.Select(tag => tag.ToOpenApi()));
        foreach (var operation in swaggerDoc.Paths.Values.SelectMany(path => path.Operations?.Values.AsEnumerable() ?? []))
        {
            operation.Security ??= [new OpenApiSecurityRequirement()];
        }
    }
}
