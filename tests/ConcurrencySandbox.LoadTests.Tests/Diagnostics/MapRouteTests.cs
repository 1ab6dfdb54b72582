using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>A minimal-API route read from the source around its Map call, with the prefix of the group it is mapped on.</summary>
public sealed class MapRouteTests
{
    [Fact]
    public void AGroupInTheSameChainPrefixesTheRoute()
    {
        // The sandbox's fan-out endpoint, as src/ConcurrencySandbox.Api/FanOut/FanOutEndpoints.cs maps it.
        string[] lines =
        [
            "    {",
            "        endpoints.MapGroup(\"/api/fanout\").WithApiTag(Tag)",
            "            .MapGet(\"\", (FanOutQuery query, FanOutRunner runner) => FanOutAsync(query, runner))",
            "            .WithName(\"FanOut\");",
        ];

        Assert.Equal("GET /api/fanout", CallSiteResolver.MapRouteAt(lines, 2));
    }

    [Fact]
    public void AGroupAssignedToTheVariableTheMapCallIsMadeOnPrefixesTheRoute()
    {
        string[] lines =
        [
            "        var api = app.MapGroup(\"/api\")",
            "            .MapGroup(\"receive/\");",
            "        app.MapGet(\"/healthz\", () => \"ok\");",
            "        api.MapGet(\"{strategy}\", Receive);",
        ];

        Assert.Equal("GET /api/receive/{strategy}", CallSiteResolver.MapRouteAt(lines, 3));
        Assert.Equal("GET /healthz", CallSiteResolver.MapRouteAt(lines, 2));
    }

    [Fact]
    public void AGroupWhosePrefixIsNotALiteralGivesNoRouteRatherThanHalfOfOne()
    {
        string[] lines =
        [
            "        var group = endpoints.MapGroup($\"/api/{unit.Name}\");",
            "        group.MapGet(\"/sync\", Sync);",
        ];

        Assert.Null(CallSiteResolver.MapRouteAt(lines, 1));
    }
}
