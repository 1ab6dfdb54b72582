using System.Net;
using System.Text;
using ConcurrencySandbox.Api.Admin;
using ConcurrencySandbox.Api.Control;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Tests.Hosting;
using Microsoft.AspNetCore.Mvc;

namespace ConcurrencySandbox.Tests.Control;

/// <summary>
/// A web page in the user's browser must not change the sandbox: a state-changing call with a foreign Origin is
/// refused on both ports, even from loopback with no admin key; the sandbox's own pages may, and only they get CORS
/// headers. The pool limits a test changes are put back after it.
/// </summary>
[Collection(ProcessWideCollection.Name)]
public sealed class CrossOriginTests(SandboxServerFixture shared) : RestoresThreadPoolLimits, IClassFixture<SandboxServerFixture>
{
    private const string Foreign = "http://attacker.invalid";

    public static TheoryData<string> Ports => ["api", "control"];

    [Theory]
    [MemberData(nameof(Ports))]
    public async Task APutFromAForeignOriginIsRefused403AndChangesNothing(string port)
    {
        using var request = new HttpRequestMessage(HttpMethod.Put, ControlRoutes.ThreadPool)
        {
            Content = new StringContent("""{"maxWorkerThreads":2,"maxIoThreads":2}""", Encoding.UTF8, "application/json"),
        };
        request.Headers.Add("Origin", Foreign);

        using var client = Client(port);
        using var response = await client.SendAsync(request);

        var problem = await response.ReadProblemAsync<ProblemDetails>(HttpStatusCode.Forbidden);
        Assert.Contains(Foreign, problem.Detail, StringComparison.Ordinal);
        Assert.Equal(Original, ThreadPoolLimits.Read());
        Assert.False(response.Headers.Contains("Access-Control-Allow-Origin"));
    }

    [Theory]
    [MemberData(nameof(Ports))]
    public async Task APreflightFromAForeignOriginIsRefusedAndFromTheSwaggerPageAllowedForThatOriginOnly(string port)
    {
        var swaggerPage = shared.Server.BaseAddress.GetLeftPart(UriPartial.Authority);

        using var client = Client(port);
        using var foreign = await client.SendAsync(Preflight(Foreign));
        using var own = await client.SendAsync(Preflight(swaggerPage));

        Assert.Equal(HttpStatusCode.Forbidden, foreign.StatusCode);
        Assert.Equal("application/problem+json", foreign.Content.Headers.ContentType?.MediaType);
        Assert.Equal(HttpStatusCode.NoContent, own.StatusCode);
        Assert.Equal(swaggerPage, own.Headers.GetValues("Access-Control-Allow-Origin").Single());
        Assert.Contains("PUT", own.Headers.GetValues("Access-Control-Allow-Methods").Single(), StringComparison.Ordinal);
        Assert.Contains(AdminKeyFilter.HeaderName, own.Headers.GetValues("Access-Control-Allow-Headers").Single(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheSwaggerPageOnTheApiPortMayResetThePoolThroughTheControlPort()
    {
        var swaggerPage = shared.Server.BaseAddress.GetLeftPart(UriPartial.Authority);
        using var request = new HttpRequestMessage(HttpMethod.Post, ControlRoutes.ThreadPoolReset);
        request.Headers.Add("Origin", swaggerPage);

        using var client = Client("control");
        using var response = await client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(swaggerPage, response.Headers.GetValues("Access-Control-Allow-Origin").Single());
    }

    [Theory]
    [MemberData(nameof(Ports))]
    public async Task AReadFromAForeignOriginRunsButGetsNoCorsHeaderSoTheBrowserHidesIt(string port)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, ControlRoutes.ThreadPool);
        request.Headers.Add("Origin", Foreign);

        using var client = Client(port);
        using var response = await client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.False(response.Headers.Contains("Access-Control-Allow-Origin"));
    }

    [Fact]
    public async Task APageServedUnderANameThatIsNotLocalhostOrAnAddressIsNotItsOwnOrigin()
    {
        // DNS rebinding: a page at http://attacker.invalid:<port> whose name now resolves to 127.0.0.1 sends Host = Origin.
        var port = shared.Server.ControlAddress.Port;
        using var request = new HttpRequestMessage(HttpMethod.Post, ControlRoutes.ThreadPoolReset);
        request.Headers.Add("Origin", $"{Foreign}:{port}");
        request.Headers.Host = $"attacker.invalid:{port}";

        using var client = Client("control");
        using var response = await client.SendAsync(request);

        Assert.Equal(HttpStatusCode.Forbidden, response.StatusCode);
    }

    private static HttpRequestMessage Preflight(string origin)
    {
        var request = new HttpRequestMessage(HttpMethod.Options, ControlRoutes.ThreadPool);
        request.Headers.Add("Origin", origin);
        request.Headers.Add("Access-Control-Request-Method", "PUT");
        return request;
    }

    private HttpClient Client(string port) => new() { BaseAddress = port == "api" ? shared.Server.BaseAddress : shared.Server.ControlAddress };
}
