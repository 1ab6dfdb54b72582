using System.Text.Json.Nodes;
using ConcurrencySandbox.Validation;
using Microsoft.OpenApi;
using Swashbuckle.AspNetCore.SwaggerGen;

namespace ConcurrencySandbox.Api.Swagger;

/// <summary>Documents a declared JSON body: an object with exactly the declared properties, their ranges, and an example.</summary>
internal sealed class JsonBodyOperationFilter : IOperationFilter
{
    public void Apply(OpenApiOperation operation, OperationFilterContext context)
    {
        var body = context.ApiDescription.ActionDescriptor.EndpointMetadata.OfType<JsonBodyMetadata>().SingleOrDefault();
        if (body is null)
        {
            return;
        }

        var schemaName = $"{operation.OperationId}Body";
        context.SchemaRepository.AddDefinition(schemaName, new OpenApiSchema
        {
            Type = JsonSchemaType.Object,
            Description = "Send any of the properties; those left out stay as they are.",
            AdditionalPropertiesAllowed = false,
            Properties = body.Properties.ToDictionary(
                property => property.Name,
                property => (IOpenApiSchema)QueryParameterOperationFilter.SchemaOf(property, $"{property.Description} Allowed: {property.AllowedRange}.")),
        });
        operation.RequestBody = new OpenApiRequestBody
        {
            Required = true,
            Content = new Dictionary<string, OpenApiMediaType>
            {
                ["application/json"] = new()
                {
                    Schema = new OpenApiSchemaReference(schemaName, context.Document),
                    Example = JsonNode.Parse(body.Example),
                },
            },
        };
    }
}
