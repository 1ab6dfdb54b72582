using System.Globalization;
using System.Text.Json.Nodes;
using ConcurrencySandbox.Validation;
using Microsoft.OpenApi;
using Swashbuckle.AspNetCore.SwaggerGen;

namespace ConcurrencySandbox.Api.Swagger;

/// <summary>Documents each declared query parameter with its type, range, default and description.</summary>
internal sealed class QueryParameterOperationFilter(IServiceProvider services) : IOperationFilter
{
    public void Apply(OpenApiOperation operation, OperationFilterContext context)
    {
        var declared = context.ApiDescription.ActionDescriptor.EndpointMetadata.OfType<QueryParameterMetadata>().SelectMany(m => m.Parameters(services));
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
                Schema = SchemaOf(parameter, description: null),
            });
        }
    }

    /// <summary>The schema of any declared value (query parameter or body property): type, range, default.</summary>
    public static OpenApiSchema SchemaOf(QueryParameter parameter, string? description) => parameter switch
    {
        IntegerParameter p => Range(JsonSchemaType.Integer, "int64", p.Min, p.Max, p.Default is { } d ? JsonValue.Create(d) : null, description),
        NumberParameter p => Range(JsonSchemaType.Number, "double", p.Min, p.Max, p.Default is { } d ? JsonValue.Create(d) : null, description),
        ChoiceParameter p => new OpenApiSchema
        {
            Type = JsonSchemaType.String,
            Enum = p.Choices.Select(c => (JsonNode)JsonValue.Create(c)).ToList(),
            Default = p.Default is { } d ? JsonValue.Create(d) : null,
            Description = description,
        },
        _ => throw new ArgumentOutOfRangeException(nameof(parameter), parameter.GetType().Name, "Unknown parameter kind."),
    };

    private static OpenApiSchema Range<T>(JsonSchemaType type, string format, T min, T max, JsonNode? defaultValue, string? description)
        where T : IFormattable => new()
    {
        Type = type,
        Format = format,
        Minimum = min.ToString(null, CultureInfo.InvariantCulture),
        Maximum = max.ToString(null, CultureInfo.InvariantCulture),
        Default = defaultValue,
        Description = description,
    };
}
