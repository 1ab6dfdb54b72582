using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>A minimal-API route read from the source around its Map call, with the prefix of the group it is mapped on.</summary>
public sealed class MapRouteTests
{
    // The sandbox's fan-out endpoint, as src/ConcurrencySandbox.Api/FanOut/FanOutEndpoints.cs maps it: a group in the same chain.
    private const string Chained = """
            {
                endpoints.MapGroup("/api/fanout").WithApiTag(Tag)
                    .MapGet("", (FanOutQuery query, FanOutRunner runner) => FanOutAsync(query, runner))
                    .WithName("FanOut");
            """;

    // Groups assigned to the variable the Map call is made on, and a Map call on the app itself.
    private const string Assigned = """
                var api = app.MapGroup("/api")
                    .MapGroup("receive/");
                app.MapGet("/healthz", () => "ok");
                api.MapGet("{strategy}", Receive);
            """;

    // A prefix that is not a literal: no route rather than half of one.
    private const string Interpolated = """
                var group = endpoints.MapGroup($"/api/{unit.Name}");
                group.MapGet("/sync", Sync);
            """;

    // A group variable of the method above is not the one a later method's parameter of the same name holds.
    private const string AnotherMethod = """
            {
                var group = endpoints.MapGroup("/api/other");
                group.MapGet("/a", A);
            }

            private static void MapB(RouteGroupBuilder group)
            {
                group.MapGet("/b", B);
            """;

    [Theory]
    [InlineData(Chained, 2, "GET /api/fanout")]
    [InlineData(Assigned, 3, "GET /api/receive/{strategy}")]
    [InlineData(Assigned, 2, "GET /healthz")]
    [InlineData(Interpolated, 1, null)]
    [InlineData(AnotherMethod, 2, "GET /api/other/a")]
    [InlineData(AnotherMethod, 7, "GET /b")]
    public void TheRouteIsTheMapCallsWithTheGroupsItIsMappedOn(string source, int line, string? route) =>
        Assert.Equal(route, CallSiteResolver.MapRouteAt(source.Split('\n'), line));
}
