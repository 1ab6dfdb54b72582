using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Validation;
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
                    "Fan-out (seed 003) calls a slow third party under four strategies; the thread pool can be read and tuned at run time (seed 000); telemetry shows the runtime's own counters.\n\n" +
                    "**Start here:** GET /healthz, then /api/compute/compare?cycles=1000000 (seed 004's row), then /api/fanout with strategy=async and strategy=threadpool (seed 003), " +
                    "and watch /api/telemetry while you load it. When the pool starves, the API port answers late; pick the control plane server below " +
                    "(it runs on threads of its own) to read the pool and rescue it with PUT /api/threadpool {\"minWorkerThreads\": 400} (seed 000's fix).",
            });
            // Written by its own converter as an object of instrument name: value, whatever instruments the slices declare.
            options.MapType<SandboxTelemetry>(() => new OpenApiSchema
            {
                Type = JsonSchemaType.Object,
                AdditionalProperties = new OpenApiSchema { Type = JsonSchemaType.Integer, Format = "int64" },
                Description = "Each instrument of the ConcurrencySandbox meter by its name, for example sandbox.work.units.active, with its value now.",
            });
            options.OperationFilter<QueryParameterOperationFilter>();
            options.OperationFilter<JsonBodyOperationFilter>();
            options.OperationFilter<TextAlternativesOperationFilter>();
            options.AddSecurityDefinition(AdminKeyOperationFilter.SchemeName, AdminKeyOperationFilter.Scheme);
            options.OperationFilter<AdminKeyOperationFilter>();
            options.DocumentFilter<TagsDocumentFilter>();
            // The API's doc comments and the contracts' (the answers it serves).
            foreach (var assembly in new[] { typeof(SwaggerSetup).Assembly, typeof(RuntimeSnapshot).Assembly })
            {
                options.IncludeXmlComments(Path.Combine(AppContext.BaseDirectory, $"{assembly.GetName().Name}.xml"));
            }
        });
        return builder;
    }

    /// <summary>Serves the document (listing the API port and every <see cref="IDocumentServer"/>, such as the control plane) and the UI.</summary>
    public static WebApplication UseSwaggerDocs(this WebApplication app)
    {
        app.UseSwagger(options => options.PreSerializeFilters.Add((document, request) => document.Servers =
        [
            new OpenApiServer { Url = $"{request.Scheme}://{request.Host}", Description = "The API (experiments and control endpoints); needs free ThreadPool threads to answer." },
            .. request.HttpContext.RequestServices.GetServices<IDocumentServer>().Select(server => new OpenApiServer { Url = server.Url, Description = server.Description }),
        ]));
        app.UseSwaggerUI(options =>
        {
            options.DocumentTitle = "ConcurrencySandbox";
            options.EnableDeepLinking();
        });
        return app;
    }

    /// <summary>Sends a visitor of / to the Swagger UI.</summary>
    public static IEndpointRouteBuilder MapSwaggerHome(this IEndpointRouteBuilder endpoints)
    {
        endpoints.MapGet("/", () => TypedResults.Redirect("/swagger")).ExcludeFromDescription();
        return endpoints;
    }
}

/// <summary>Another server the document lists beside the API port, registered by the feature that runs it (the control plane).</summary>
public interface IDocumentServer
{
    string Url { get; }

    string Description { get; }
}
