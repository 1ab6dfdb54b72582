using System.Globalization;
using System.Text.Json.Nodes;
using ConcurrencySandbox.Api.Validation;
using Microsoft.OpenApi;
using Swashbuckle.AspNetCore.SwaggerGen;

namespace ConcurrencySandbox.Api.Swagger;

/// <summary>Documents each declared query parameter with its type, range, default and description.</summary>
internal sealed class QueryParameterOperationFilter : IOperationFilter
{
    public void Apply(OpenApiOperation operation, OperationFilterContext context)
    {
        var declared = context.ApiDescription.ActionDescriptor.EndpointMetadata.OfType<QueryParameterMetadata>().SelectMany(m => m.Parameters);
        foreach (var parameter in declared)
        {
            operation.Parameters ??= [];
            operation.Parameters.Add(new OpenApiParameter
            {
                Name = parameter.Name,
                In = ParameterLocation.Query,
                Required = parameter.DefaultText is null,
                Description = $"{parameter.Description} Allowed: {parameter.AllowedRange}." +
                    (parameter.DefaultText is { } d ? $" Default: {d}." : string.Empty),
                Schema = SchemaOf(parameter),
            });
        }
    }

    private static OpenApiSchema SchemaOf(QueryParameter parameter) => parameter switch
    {
        IntegerParameter p => new OpenApiSchema
        {
            Type = JsonSchemaType.Integer,
            Format = "int64",
            Minimum = p.Min.ToString(CultureInfo.InvariantCulture),
            Maximum = p.Max.ToString(CultureInfo.InvariantCulture),
            Default = p.Default is { } d ? JsonValue.Create(d) : null,
        },
        NumberParameter p => new OpenApiSchema
        {
            Type = JsonSchemaType.Number,
            Format = "double",
            Minimum = p.Min.ToString(CultureInfo.InvariantCulture),
            Maximum = p.Max.ToString(CultureInfo.InvariantCulture),
            Default = p.Default is { } d ? JsonValue.Create(d) : null,
        },
        ChoiceParameter p => new OpenApiSchema
        {
            Type = JsonSchemaType.String,
            Enum = p.Choices.Select(c => (JsonNode)JsonValue.Create(c)).ToList(),
            Default = p.Default is { } d ? JsonValue.Create(d) : null,
        },
        _ => throw new ArgumentOutOfRangeException(nameof(parameter), parameter.GetType().Name, "Unknown parameter kind."),
    };
}
