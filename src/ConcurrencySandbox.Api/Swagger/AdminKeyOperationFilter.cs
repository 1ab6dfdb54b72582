using ConcurrencySandbox.Api.Admin;
using Microsoft.OpenApi;
using Swashbuckle.AspNetCore.SwaggerGen;

namespace ConcurrencySandbox.Api.Swagger;

/// <summary>Puts the Authorize lock (the admin key scheme) on the endpoints that require the admin key.</summary>
internal sealed class AdminKeyOperationFilter : IOperationFilter
{
    public const string SchemeName = "AdminKey";

    public static OpenApiSecurityScheme Scheme { get; } = new()
    {
        Type = SecuritySchemeType.ApiKey,
        In = ParameterLocation.Header,
        Name = AdminKeyFilter.HeaderName,
        Description = "The admin key (Admin:Key, env Admin__Key) for the endpoints that change the whole process. " +
            "When no key is configured those endpoints accept loopback callers only.",
    };

    public void Apply(OpenApiOperation operation, OperationFilterContext context)
    {
        if (!context.ApiDescription.ActionDescriptor.EndpointMetadata.OfType<AdminKeyRequiredMetadata>().Any())
        {
            return;
        }

        operation.Security ??= [];
        operation.Security.Add(new OpenApiSecurityRequirement { [new OpenApiSecuritySchemeReference(SchemeName, context.Document)] = [] });
    }
}
