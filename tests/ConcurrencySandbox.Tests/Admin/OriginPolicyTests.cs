using ConcurrencySandbox.Api.Admin;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;

namespace ConcurrencySandbox.Tests.Admin;

/// <summary>
/// The cross-origin check on its own, against an API on 127.0.0.1:5000 and a control plane on 127.0.0.1:5001: an own
/// origin is http, one of those ports, and a loopback name (localhost, 127.0.0.1, [::1] in any spelling), or exactly
/// the request's Host when that is localhost or an address. Every other page is foreign, however close.
/// </summary>
public sealed class OriginPolicyTests
{
    private const string ApiHost = "127.0.0.1:5000";

    private static OriginPolicy Policy(string api = "http://127.0.0.1:5000")
    {
        var policy = new OriginPolicy(new ListeningServer(api));
        policy.AddControlPlane("http://127.0.0.1:5001");
        return policy;
    }

    [Theory]
    [InlineData("http://127.0.0.1:5000", ApiHost)]
    [InlineData("http://localhost:5000", ApiHost)]
    [InlineData("http://LocalHost:5001", ApiHost)]
    [InlineData("http://[::1]:5001", ApiHost)]
    [InlineData("http://[0:0:0:0:0:0:0:1]:5000", ApiHost)]
    // A page served through a published container port (8080 outside, 5000 inside) calling that same port.
    [InlineData("http://127.0.0.1:8080", "127.0.0.1:8080")]
    [InlineData("http://localhost:8080", "localhost:8080")]
    [InlineData("http://[::1]:8080", "[::1]:8080")]
    public void TheSandboxsOwnPagesMayChangeIt(string origin, string host)
    {
        var policy = Policy();

        Assert.True(policy.Allows("POST", origin, host));
        Assert.Equal(origin, policy.AllowedOrigin(origin, host));
    }

    [Theory]
    // The same loopback host on a port the sandbox does not serve: any other local web server's page.
    [InlineData("http://127.0.0.1:5002", ApiHost)]
    [InlineData("http://localhost:5002", "localhost:5000")]
    [InlineData("http://[::1]:4999", ApiHost)]
    [InlineData("http://[0:0:0:0:0:0:0:1]:5002", ApiHost)]
    [InlineData("http://127.0.0.1", ApiHost)]
    [InlineData("http://127.0.0.1:8081", "127.0.0.1:8080")]
    // Another scheme on an own host and port.
    [InlineData("https://127.0.0.1:5000", ApiHost)]
    [InlineData("https://localhost:5001", "localhost:5001")]
    [InlineData("https://127.0.0.1:8080", "127.0.0.1:8080")]
    // A DNS name that resolves to loopback (localtest.me, *.nip.io), named in the Host too in a rebinding attack.
    [InlineData("http://localtest.me:5000", ApiHost)]
    [InlineData("http://localtest.me:5000", "localtest.me:5000")]
    [InlineData("http://127.0.0.1.nip.io:5001", "127.0.0.1.nip.io:5001")]
    // What a sandboxed frame or a file:// page sends, and anything that is not a bare origin.
    [InlineData("null", ApiHost)]
    [InlineData("http://127.0.0.1:5000/page", ApiHost)]
    [InlineData("127.0.0.1:5000", ApiHost)]
    public void AnyOtherPageIsRefusedAndGetsNoCorsHeader(string origin, string host)
    {
        var policy = Policy();

        Assert.False(policy.Allows("POST", origin, host));
        Assert.False(policy.Allows("PUT", origin, host));
        Assert.Null(policy.AllowedOrigin(origin, host));
    }

    [Theory]
    [InlineData("http://+:5000")]
    [InlineData("http://0.0.0.0:5000")]
    [InlineData("http://[::]:5000")]
    public void AnAnyAddressBindStandsForLoopbackOnItsOwnPortOnly(string api)
    {
        var policy = Policy(api);

        Assert.True(policy.Allows("POST", "http://localhost:5000", "sandbox.internal:5000"));
        Assert.True(policy.Allows("POST", "http://[::1]:5000", "sandbox.internal:5000"));
        Assert.False(policy.Allows("POST", "http://localhost:5002", "sandbox.internal:5000"));
        Assert.False(policy.Allows("POST", "http://sandbox.internal:5000", "sandbox.internal:5000"));
    }

    [Fact]
    public void WithoutAnOriginHeaderACallIsAScriptsAndRunsWithoutCorsHeaders()
    {
        var policy = Policy();

        Assert.True(policy.Allows("POST", null, ApiHost));
        Assert.Null(policy.AllowedOrigin(null, ApiHost));
    }

    [Fact]
    public void AForeignPageMayReadButGetsNoCorsHeaderSoItsBrowserHidesTheAnswer()
    {
        var policy = Policy();

        Assert.True(policy.Allows("GET", "http://127.0.0.1:5002", ApiHost));
        Assert.True(policy.Allows("HEAD", "http://127.0.0.1:5002", ApiHost));
        Assert.Null(policy.AllowedOrigin("http://127.0.0.1:5002", ApiHost));
    }

    /// <summary>A server that only says where it listens.</summary>
    private sealed class ListeningServer : IServer
    {
        public ListeningServer(string address)
        {
            var addresses = new ServerAddressesFeature();
            addresses.Addresses.Add(address);
            Features.Set<IServerAddressesFeature>(addresses);
        }

        public IFeatureCollection Features { get; } = new FeatureCollection();

        public Task StartAsync<TContext>(IHttpApplication<TContext> application, CancellationToken cancellationToken)
            where TContext : notnull => throw new NotSupportedException("the policy only reads the addresses");

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public void Dispose()
        {
        }
    }
}
