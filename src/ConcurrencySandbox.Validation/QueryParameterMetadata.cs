using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

namespace ConcurrencySandbox.Validation;

/// <summary>Endpoint metadata listing the query parameters an endpoint declares: Swagger documents them, <see cref="DeclaredQueryFilter"/> checks them.</summary>
public sealed record QueryParameterMetadata(IReadOnlyList<QueryParameter> Parameters);

public static class QueryParameterEndpointExtensions
{
    /// <summary>
    /// Declares the query parameters, in the order the handler's <see cref="DeclaredQuery{TSelf}"/> record takes them:
    /// Swagger documents their type, range, default and meaning, and <see cref="DeclaredQueryFilter"/> answers a bad
    /// value with a 400 before the handler runs.
    /// </summary>
    public static RouteHandlerBuilder WithQueryParameters(this RouteHandlerBuilder builder, params QueryParameter[] parameters) =>
        builder.WithMetadata(new QueryParameterMetadata(parameters))
            .ProducesValidationProblem()
            .AddEndpointFilterFactory((context, next) => DeclaredQueryFilter.Create(context.MethodInfo, parameters, next));
}
