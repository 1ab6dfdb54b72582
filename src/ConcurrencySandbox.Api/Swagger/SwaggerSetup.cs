using Microsoft.OpenApi;

namespace ConcurrencySandbox.Api.Swagger;

/// <summary>Swagger UI at /swagger, the document at /swagger/v1/swagger.json, and / redirecting to the UI.</summary>
internal static class SwaggerSetup
{
    public static WebApplicationBuilder AddSwagger(this WebApplicationBuilder builder)
    {
        builder.Services.AddEndpointsApiExplorer();
        builder.Services.AddSwaggerGen(options =>
        {
            options.SwaggerDoc("v1", new OpenApiInfo
            {
                Title = "ConcurrencySandbox",
                Version = "v1",
                Description = "Measure what concurrency choices cost on this machine: inline vs Task.Run, spinning vs sleeping vs awaiting. " +
                    "Every timing is taken in the server with a Stopwatch; compare and sweep run both forms side by side in one process. " +
                    "Fan-out (seed 003) calls a slow third party under four strategies; the thread pool can be read and tuned at run time (seed 000); telemetry shows the runtime's own counters.",
            });
            options.OperationFilter<QueryParameterOperationFilter>();
            options.AddSecurityDefinition(AdminKeyOperationFilter.SchemeName, AdminKeyOperationFilter.Scheme);
            options.OperationFilter<AdminKeyOperationFilter>();
            options.IncludeXmlComments(Path.Combine(AppContext.BaseDirectory, $"{typeof(SwaggerSetup).Assembly.GetName().Name}.xml"));
        });
        return builder;
    }

    public static WebApplication UseSwaggerDocs(this WebApplication app)
    {
        app.UseSwagger();
        app.UseSwaggerUI(options => options.DocumentTitle = "ConcurrencySandbox");
        app.MapGet("/", () => TypedResults.Redirect("/swagger")).ExcludeFromDescription();
        return app;
    }
}
