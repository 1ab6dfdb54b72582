using Microsoft.AspNetCore.Builder;

namespace ConcurrencySandbox.Validation;

/// <summary>Endpoint metadata listing the query parameters a handler reads through <see cref="QueryReader"/>.</summary>
public sealed record QueryParameterMetadata(IReadOnlyList<QueryParameter> Parameters);

public static class QueryParameterEndpointExtensions
{
    /// <summary>Declares the query parameters so Swagger documents their type, range, default and meaning.</summary>
    public static RouteHandlerBuilder WithQueryParameters(this RouteHandlerBuilder builder, params QueryParameter[] parameters) =>
        builder.WithMetadata(new QueryParameterMetadata(parameters));
}
