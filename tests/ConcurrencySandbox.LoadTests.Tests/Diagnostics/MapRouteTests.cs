using ConcurrencySandbox.LoadTests.Diagnostics;
using Microsoft.CodeAnalysis.CSharp;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Minimal-API routes read from the sources as Roslyn syntax trees: each Map call with the prefixes of the groups it is
/// mapped on, followed through variables and through the parameters of the methods that map them; and which template
/// serves a path, as ASP.NET Core's routing prefers.
/// </summary>
public sealed class MapRouteTests
{
    private const string Source = """
        var builder = WebApplication.CreateBuilder(args);
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        var app = builder.Build();
        // Groups assigned to the variable the Map call is made on, and a Map call on the app itself.
        var api = app.MapGroup("/api")
            .MapGroup("receive/");
        app.MapGet("/healthz", () => "ok");
        api.MapGet("{strategy}", Receive);
        // A group handed to an extension method that maps on it.
        app.MapGroup("/shop").MapOrders();
        app.MapMethods("/legacy", new[] { "get", "post" }, () => "old");

        static class FanOutEndpoints
        {
            private const string Prefix = "orders";

            public static void MapFanOut(this IEndpointRouteBuilder endpoints)
            {
                // A group in the same chain, the Map call on the next line.
                endpoints.MapGroup("/api/fanout").WithTags("FanOut")
                    .MapGet("", (FanOutQuery query, FanOutRunner runner) => FanOutAsync(query, runner))
                    .WithName("FanOut");
                // An interpolated prefix: a template with a hole, which the runtime's route or the path fills.
                var group = endpoints.MapGroup($"/api/{unit.Name}");
                group.MapGet("/sync", Sync);
                // A prefix that is neither a literal nor an interpolated string: no route rather than half of one.
                endpoints.MapGroup(Prefixes.Next()).MapGet("/c", C);
            }

            public static void MapOrders(this IEndpointRouteBuilder app)
            {
                var orders = app.MapGroup(Prefix);
                orders.MapGet("{id:int}", Get);
            }

            // A group variable of the method above is not the one this method's parameter of the same name holds.
            private static void MapB(RouteGroupBuilder group)
            {
                group.MapGet("/b", B);
            }
        }
        """;

    [Fact]
    public void TheRouteIsTheMapCallsWithTheGroupsItIsMappedOn()
    {
        var routes = Endpoints.MapCalls([CSharpSyntaxTree.ParseText(Source)]).Select(m => $"{m.Verb} {m.Template ?? "(no route)"}").ToList();

        Assert.Equal(
            ["GET /healthz", "GET /api/receive/{strategy}", "GET /legacy", "POST /legacy", "GET /api/fanout", $"GET /api/{RouteTemplates.Hole}/sync", "GET (no route)", "GET /shop/orders/{id:int}", "GET /b"],
            routes);
    }

    [Theory]
    [InlineData("/orders/1", "/orders/{id:int}")]
    [InlineData("/orders/recent", "/orders/recent")]
    [InlineData("/orders/abc?x=1", "/orders/{name}")]
    [InlineData("/files/a/b/c", "/files/{*path}")]
    [InlineData("/Orders/1/lines", "/orders/{id}/lines")]
    public void ThePathIsServedByTheMostSpecificTemplateThatMatchesIt(string path, string served)
    {
        string[] templates = ["/orders/{name}", "/orders/{id:int}", "/orders/recent", "/files/{*path}", "/orders/{id}/lines", "/orders"];

        var best = templates
            .Select(t => (Template: t, Rank: RouteTemplates.Match(t, path)))
            .Where(m => m.Rank is not null)
            .Aggregate((a, b) => RouteTemplates.Compare(a.Rank!, b.Rank!) <= 0 ? a : b);

        Assert.Equal(served, best.Template);
    }
}
