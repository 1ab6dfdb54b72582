using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;

namespace ConcurrencySandbox.Validation;

/// <summary>
/// Endpoint metadata listing the query parameters an endpoint declares: Swagger documents them, <see cref="DeclaredQueryFilter"/>
/// checks them. Declarations whose ranges come from configuration are read from a service of the slice's own the first
/// time the app asks (when it starts, through <see cref="DeclaredQueryStartupCheck"/>), so mapping reads no options.
/// </summary>
public sealed class QueryParameterMetadata
{
    private readonly Func<IServiceProvider, IReadOnlyList<QueryParameter>> _declare;
    private IReadOnlyList<QueryParameter>? _parameters;

    /// <summary>Declarations fixed in code.</summary>
    public QueryParameterMetadata(IReadOnlyList<QueryParameter> parameters)
    {
        _parameters = parameters;
        _declare = _ => parameters;
    }

    /// <summary>Declarations read from the app's services (a slice's limits), once.</summary>
    public QueryParameterMetadata(Func<IServiceProvider, IReadOnlyList<QueryParameter>> declare) => _declare = declare;

    /// <summary>The declarations, in the order the endpoint's <see cref="DeclaredQuery{TSelf}"/> record lists its members.</summary>
    public IReadOnlyList<QueryParameter> Parameters(IServiceProvider services) => _parameters ??= _declare(services);
}

public static class QueryParameterEndpointExtensions
{
    /// <summary>
    /// Declares the query parameters, in the order the handler's <see cref="DeclaredQuery{TSelf}"/> record lists the
    /// members they fill (by name: <see cref="QueryParameter.MemberName"/>): Swagger documents their type, range, default
    /// and meaning, and <see cref="DeclaredQueryFilter"/> answers a bad value with a 400 before the handler runs.
    /// </summary>
    public static RouteHandlerBuilder WithQueryParameters(this RouteHandlerBuilder builder, params QueryParameter[] parameters) =>
        builder.WithDeclarations(new QueryParameterMetadata(parameters));

    /// <summary>
    /// Declares the query parameters that <paramref name="select"/> takes from <typeparamref name="TDeclarations"/>, a
    /// service the slice's AddX registers (its ranges come from the slice's options), read when the app starts.
    /// </summary>
    public static RouteHandlerBuilder WithQueryParameters<TDeclarations>(this RouteHandlerBuilder builder, Func<TDeclarations, IReadOnlyList<QueryParameter>> select)
        where TDeclarations : notnull =>
        builder.WithDeclarations(new QueryParameterMetadata(services => select(services.GetRequiredService<TDeclarations>())));

    private static RouteHandlerBuilder WithDeclarations(this RouteHandlerBuilder builder, QueryParameterMetadata metadata) =>
        builder.WithMetadata(metadata)
            .ProducesValidationProblem()
            .AddEndpointFilterFactory((context, next) => DeclaredQueryFilter.Create(context, metadata, next));
}
