using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace ConcurrencySandbox.WebHosting;

/// <summary>The start-up both web apps (the API and the third-party stub) share, so they cannot drift apart.</summary>
public static class WebStartup
{
    /// <summary>
    /// A builder that listens on <paramref name="defaultUrl"/> unless --urls, ASPNETCORE_URLS, ASPNETCORE_HTTP_PORTS or
    /// ASPNETCORE_HTTPS_PORTS says otherwise, answers errors as problem details, checks every service's dependencies
    /// when the app is built and every endpoint's declared query record when it starts.
    /// </summary>
    /// <param name="args">Command-line arguments, including configuration such as --urls.</param>
    public static WebApplicationBuilder CreateBuilder(string[] args, string defaultUrl)
    {
        var builder = WebApplication.CreateBuilder(args);
        var configured = new[] { "urls", "http_ports", "https_ports" }.Any(key => !string.IsNullOrEmpty(builder.Configuration[key]));
        if (!configured)
        {
            builder.WebHost.UseUrls(defaultUrl);
        }

        // A feature whose services need another's that was not added fails here, not on the request that first needs it.
        builder.Host.UseDefaultServiceProvider(options =>
        {
            options.ValidateOnBuild = true;
            options.ValidateScopes = true;
        });
        builder.Services.AddProblemDetails();
        builder.Services.AddDeclaredQueryCheck();
        return builder;
    }

    /// <summary>Runs <paramref name="announce"/> with the addresses the server listens on, once it does (the ready line scripts wait for).</summary>
    public static void WhenListening(this WebApplication app, Action<IReadOnlyCollection<string>> announce) =>
        app.Lifetime.ApplicationStarted.Register(() =>
            announce([.. app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()?.Addresses ?? []]));
}
