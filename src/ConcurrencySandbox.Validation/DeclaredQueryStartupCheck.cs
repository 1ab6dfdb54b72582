using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;

namespace ConcurrencySandbox.Validation;

/// <summary>
/// Builds every endpoint when the host starts, after the pipeline is configured and before the server listens, so
/// each <see cref="DeclaredQueryFilter"/> checks its <see cref="DeclaredQuery{TSelf}"/> record against its declarations
/// then: a record that disagrees stops the app at start-up rather than failing its first request.
/// </summary>
internal sealed class DeclaredQueryStartupCheck(EndpointDataSource endpoints) : IStartupFilter
{
    public Action<IApplicationBuilder> Configure(Action<IApplicationBuilder> next) => app =>
    {
        next(app);
        _ = endpoints.Endpoints;
    };
}

public static class DeclaredQueryRegistration
{
    /// <summary>Checks every endpoint's declared query record when the app starts (<see cref="DeclaredQueryStartupCheck"/>).</summary>
    public static IServiceCollection AddDeclaredQueryCheck(this IServiceCollection services) =>
        services.AddTransient<IStartupFilter, DeclaredQueryStartupCheck>();
}
