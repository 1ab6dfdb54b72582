using System.Net;
using System.Security.Cryptography;
using System.Text;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.Admin;

/// <summary>Marks an endpoint as needing the admin key, so Swagger shows the Authorize lock on it.</summary>
public sealed class AdminKeyRequiredMetadata;

/// <summary>Lets a call through when it carries the configured admin key, or, with no key configured, when it comes from loopback.</summary>
public sealed class AdminKeyFilter(IOptions<AdminOptions> options) : IEndpointFilter
{
    public const string HeaderName = "X-Admin-Key";

    public ValueTask<object?> InvokeAsync(EndpointFilterInvocationContext context, EndpointFilterDelegate next)
    {
        var http = context.HttpContext;
        var refusal = Refusal(options.Value.Key, http.Request.Headers[HeaderName].ToString(), http.Connection.RemoteIpAddress);
        return refusal is null ? next(context) : ValueTask.FromResult<object?>(refusal);
    }

    /// <summary>The problem to answer with, or null to let the call through.</summary>
    public static ProblemHttpResult? Refusal(string? configuredKey, string sentKey, IPAddress? remote)
    {
        if (string.IsNullOrEmpty(configuredKey))
        {
            return remote is not null && IPAddress.IsLoopback(remote)
                ? null
                : Problem(StatusCodes.Status403Forbidden, $"No admin key is configured (Admin:Key, env Admin__Key), so this endpoint accepts loopback callers only; {remote} is not loopback.");
        }

        if (sentKey.Length == 0)
        {
            return Problem(StatusCodes.Status401Unauthorized, $"This endpoint changes the whole process: send the admin key in the {HeaderName} header.");
        }

        var matches = CryptographicOperations.FixedTimeEquals(Encoding.UTF8.GetBytes(sentKey), Encoding.UTF8.GetBytes(configuredKey));
        return matches ? null : Problem(StatusCodes.Status403Forbidden, $"The {HeaderName} header does not match the configured admin key.");
    }

    private static ProblemHttpResult Problem(int status, string detail) => TypedResults.Problem(detail, statusCode: status);
}

public static class AdminKeyEndpointExtensions
{
    public static WebApplicationBuilder AddAdminKey(this WebApplicationBuilder builder)
    {
        builder.Services.AddOptions<AdminOptions>().Bind(builder.Configuration.GetSection(AdminOptions.SectionName));
        builder.Services.AddSingleton<OriginPolicy>();
        return builder;
    }

    /// <summary>Requires the admin key (or loopback when none is configured) and documents it in Swagger.</summary>
    public static RouteHandlerBuilder RequireAdminKey(this RouteHandlerBuilder builder) =>
        builder.AddEndpointFilter<AdminKeyFilter>()
            .WithMetadata(new AdminKeyRequiredMetadata())
            .ProducesProblem(StatusCodes.Status401Unauthorized)
            .ProducesProblem(StatusCodes.Status403Forbidden);
}
