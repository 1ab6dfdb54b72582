using System.Globalization;
using System.Net;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.Api.Admin;

/// <summary>
/// Which web pages may call the sandbox from a browser: only its own (the Swagger UI on the API port, the control
/// plane's own port). A browser names the calling page in the Origin header; a state-changing call (anything but
/// GET and HEAD) from any other origin is refused with 403 before it runs, even from loopback, because with no admin
/// key a loopback caller may change the pool, and a page in the user's browser is a loopback caller. Own origins:
/// every address the API and the control plane listen on (a loopback or any-address bind stands for localhost,
/// 127.0.0.1 and [::1]), and the request's own Host when it is localhost or an IP address (a page served through a
/// published container port calling that same port; a DNS name there could be a rebinding attack). Answers to own
/// origins carry Access-Control-Allow-Origin with that origin (never *).
/// </summary>
public sealed class OriginPolicy(IServer server)
{
    public const string AllowedMethods = "GET, PUT, POST, OPTIONS";
    public static readonly string AllowedHeaders = $"Content-Type, {AdminKeyFilter.HeaderName}";

    private string? _controlAddress;

    /// <summary>Called by the control listener once it is bound.</summary>
    public void AddControlPlane(string address) => _controlAddress = address;

    /// <summary>True when a request may run: no Origin (not a browser page), an own origin, or a method that changes nothing.</summary>
    public bool Allows(string method, string? origin, string? host) =>
        origin is null || HttpMethods.IsGet(method) || HttpMethods.IsHead(method) || IsOwn(origin, host);

    /// <summary>The origin to name in Access-Control-Allow-Origin, or null to send no CORS headers.</summary>
    public string? AllowedOrigin(string? origin, string? host) => origin is not null && IsOwn(origin, host) ? origin : null;

    public static ProblemHttpResult Refusal(string method, string origin) => TypedResults.Problem(
        $"{method} from a web page at '{origin}' is refused: only the sandbox's own pages (its Swagger UI, its control plane) may change it from a browser. " +
        "Call it from a script or curl (they send no Origin header), or open the Swagger UI the API serves.",
        statusCode: StatusCodes.Status403Forbidden,
        title: "Cross-origin request refused.");

    private bool IsOwn(string origin, string? host)
    {
        if (!Uri.TryCreate(origin, UriKind.Absolute, out var page) || page.Scheme != Uri.UriSchemeHttp || page.PathAndQuery != "/")
        {
            return false;
        }

        if (host is not null && Uri.TryCreate($"http://{host}", UriKind.Absolute, out var target)
            && (target.IsLoopback || target.HostNameType is UriHostNameType.IPv4 or UriHostNameType.IPv6)
            && Uri.Compare(page, target, UriComponents.SchemeAndServer, UriFormat.Unescaped, StringComparison.OrdinalIgnoreCase) == 0)
        {
            return true;
        }

        return OwnAddresses().Any(own => own.Port == page.Port && Names(own).Contains(page.Host, StringComparer.OrdinalIgnoreCase));
    }

    private IEnumerable<Uri> OwnAddresses()
    {
        var addresses = server.Features.Get<IServerAddressesFeature>()?.Addresses ?? [];
        foreach (var address in addresses.Append(_controlAddress))
        {
            // Kestrel spells "any address" as + or *, which Uri does not parse.
            if (address is not null && Uri.TryCreate(address.Replace("://+", "://0.0.0.0", StringComparison.Ordinal).Replace("://*", "://0.0.0.0", StringComparison.Ordinal), UriKind.Absolute, out var uri))
            {
                yield return uri;
            }
        }
    }

    private static IEnumerable<string> Names(Uri own)
    {
        yield return own.Host;
        var any = IPAddress.TryParse(own.Host.Trim('[', ']'), out var ip) && (ip.Equals(IPAddress.Any) || ip.Equals(IPAddress.IPv6Any));
        if (own.IsLoopback || any)
        {
            yield return "localhost";
            yield return IPAddress.Loopback.ToString();
            yield return string.Create(CultureInfo.InvariantCulture, $"[{IPAddress.IPv6Loopback}]");
        }
    }
}

public static class OriginPolicyMiddleware
{
    /// <summary>Refuses foreign state-changing calls and answers preflights on the API port (Kestrel).</summary>
    public static WebApplication UseOriginPolicy(this WebApplication app)
    {
        var policy = app.Services.GetRequiredService<OriginPolicy>();
        app.Use(async (context, next) =>
        {
            var request = context.Request;
            string? origin = request.Headers.Origin.Count > 0 ? request.Headers.Origin.ToString() : null;
            if (!policy.Allows(request.Method, origin, request.Host.Value))
            {
                await OriginPolicy.Refusal(request.Method, origin!).ExecuteAsync(context);
                return;
            }

            if (policy.AllowedOrigin(origin, request.Host.Value) is { } allowed)
            {
                context.Response.Headers.AccessControlAllowOrigin = allowed;
                context.Response.Headers.Vary = "Origin";
                if (HttpMethods.IsOptions(request.Method))
                {
                    context.Response.Headers.AccessControlAllowMethods = OriginPolicy.AllowedMethods;
                    context.Response.Headers.AccessControlAllowHeaders = OriginPolicy.AllowedHeaders;
                    context.Response.StatusCode = StatusCodes.Status204NoContent;
                    return;
                }
            }

            await next(context);
        });
        return app;
    }
}
