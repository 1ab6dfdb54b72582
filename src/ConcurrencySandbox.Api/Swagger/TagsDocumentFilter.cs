using Microsoft.OpenApi;
using Swashbuckle.AspNetCore.SwaggerGen;

namespace ConcurrencySandbox.Api.Swagger;

/// <summary>Lists every tag with its description in seed order, and declares that operations without the admin key need no credentials.</summary>
internal sealed class TagsDocumentFilter : IDocumentFilter
{
    public void Apply(OpenApiDocument swaggerDoc, DocumentFilterContext context)
    {
        swaggerDoc.Tags = new HashSet<OpenApiTag>(ApiTags.ToOpenApi());
        foreach (var operation in swaggerDoc.Paths.Values.SelectMany(path => path.Operations?.Values.AsEnumerable() ?? []))
        {
            operation.Security ??= [new OpenApiSecurityRequirement()];
        }
    }
}
