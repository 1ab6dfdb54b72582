using Microsoft.AspNetCore.Http;

namespace ConcurrencySandbox.Validation;

/// <summary>
/// The one check of an endpoint's declared query parameters, added by
/// <see cref="QueryParameterEndpointExtensions.WithQueryParameters"/>: it reads the raw query through
/// <see cref="QueryReader"/>, the reader the control plane uses too, and answers every bad value in one 400
/// application/problem+json naming each parameter with its allowed range; the handler runs only on a valid query.
/// Rules that span parameters (a sweep's from above its to, a total above its limit) stay with the handler,
/// which sees valid values only.
/// </summary>
public sealed class DeclaredQueryFilter(IReadOnlyList<QueryParameter> parameters) : IEndpointFilter
{
    /// <summary>Where a <see cref="DeclaredQuery{TSelf}"/> record's binding leaves its reading of the query for this filter.</summary>
    internal static readonly object ReadingKey = new();

    public ValueTask<object?> InvokeAsync(EndpointFilterInvocationContext context, EndpointFilterDelegate next)
    {
        // A typed record was bound from every declaration already; an endpoint without one is read here.
        var query = context.HttpContext.Items.TryGetValue(ReadingKey, out var reading) && reading is QueryReader bound ? bound : ReadAll(context.HttpContext.Request.QueryString);
        return query.IsValid ? next(context) : ValueTask.FromResult<object?>(query.Problem());
    }

    private QueryReader ReadAll(QueryString raw)
    {
        var query = new QueryReader(raw);
        foreach (var parameter in parameters)
        {
            query.Read(parameter);
        }

        return query;
    }

    /// <summary>
    /// Builds the filter for a handler when its endpoint is built (at start-up, <see cref="DeclaredQueryStartupCheck"/>),
    /// checking that its <see cref="DeclaredQuery{TSelf}"/> record takes the declared parameters, so a mismatch stops the
    /// app rather than one request.
    /// </summary>
    internal static EndpointFilterDelegate Create(EndpointFilterFactoryContext context, QueryParameterMetadata metadata, EndpointFilterDelegate next)
    {
        var parameters = metadata.Parameters(context.ApplicationServices);
        foreach (var record in context.MethodInfo.GetParameters().Select(p => p.ParameterType).Where(IsDeclaredQuery))
        {
            if (DeclaredQueryBinding.Mismatch(record, parameters) is { } mismatch)
            {
                throw new InvalidOperationException(mismatch);
            }

            DeclaredQueryBinding.Prepare(record);
        }

        var filter = new DeclaredQueryFilter(parameters);
        return invocation => filter.InvokeAsync(invocation, next);
    }

    private static bool IsDeclaredQuery(Type type)
    {
        for (var current = type.BaseType; current is not null; current = current.BaseType)
        {
            if (current.IsGenericType && current.GetGenericTypeDefinition() == typeof(DeclaredQuery<>))
            {
                return true;
            }
        }

        return false;
    }
}
