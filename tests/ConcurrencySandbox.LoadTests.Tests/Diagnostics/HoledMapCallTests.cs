using ConcurrencySandbox.LoadTests.Diagnostics;
using Microsoft.CodeAnalysis.CSharp;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Map calls whose template is an interpolated string and whose handler is a local variable (the sandbox API's
/// <c>Delegate run = mode == RunMode.Sync ? ... : ...; group.MapGet($"/{modeName}", run)</c>), on services generated
/// here from a seed: the template is read as a pattern with holes the runtime's route (or the path) fills, the handler
/// as every lambda or method group assigned to the variable, and a Task.Run work item that blocks a pool thread outside
/// the request is tied to the route of the request whose handler queued it.
/// </summary>
public sealed class HoledMapCallTests : IDisposable
{
    /// <summary>Where the holes are: one (a literal group), two (an interpolated group and template), two in one template, one inside a segment.</summary>
    public enum TemplateShape
    {
        OneHole,
        TwoHoles,
        TwoHolesOneTemplate,
        HoleInSegment,
    }

    /// <summary>How the handler variable is assigned: a conditional of lambdas, an if/else of lambdas, a conditional of delegates made from method groups, one method group.</summary>
    public enum HandlerShape
    {
        ConditionalLambdas,
        IfElseLambdas,
        ConditionalMethodGroups,
        MethodGroup,
    }

    private static readonly string[] Units = ["sleep", "spin", "disk", "queue"];
    private static readonly string[] QueuedModes = ["taskrun", "queued", "pooled", "offload"];

    private readonly string _folder = Directory.CreateTempSubdirectory("holed-map-").FullName;

    /// <summary>Seeded combinations of the two shapes: every template shape and every handler shape at least once.</summary>
    public static TheoryData<int> Seeds() => [1, 2, 3, 4, 5, 6, 7, 8];

    [Theory]
    [MemberData(nameof(Seeds))]
    public void TheHoledTemplateAndEveryHandlerTheVariableHoldsAreRead(int seed)
    {
        var service = Generate(seed);

        var calls = Endpoints.MapCalls([CSharpSyntaxTree.ParseText(service.Source)]).Where(c => c.Template is { } t && RouteTemplates.HasHoles(t)).ToList();

        Assert.Equal(service.Handlers.Order(StringComparer.Ordinal), calls.Select(c => c.Handler.ToString()).Order(StringComparer.Ordinal));
        var template = Assert.Single(calls.Select(c => c.Template!).Distinct());
        Assert.Equal(service.Holes, template.Count(c => c == RouteTemplates.Hole));
        Assert.Equal(service.Route, RouteTemplates.Fill(template, service.Route, pattern: true));
        Assert.Equal(service.Route, RouteTemplates.Fill(template, $"{service.Route}?ms=200", pattern: false));
        Assert.Null(RouteTemplates.Fill(template, "/elsewhere/x/y", pattern: true));
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public void AQueuedWorkItemOutsideTheRequestGetsTheRouteOfTheRequestThatQueuedIt(int seed)
    {
        var service = Generate(seed);
        var source = Path.Combine(_folder, $"Program{seed}.cs");
        File.WriteAllText(source, service.Source);
        var assembly = Path.Combine(_folder, $"Loops{seed}.dll");
        ServedCodeTests.Compile([source], assembly);
        using var module = ModuleSource.Open(assembly)!;
        var code = new ApplicationCode([module]);
        var route = $"GET {service.Route}";
        var runtimeRoutes = new Dictionary<string, long> { [route] = 40, ["GET /healthz"] = 3 };

        var withRuntime = new ServedCode(code, $"{service.Route}?ms=200", runtimeRoutes);
        var pathAlone = new ServedCode(code, $"{service.Route}?ms=200");

        Assert.Equal(route, withRuntime.ServingRoute);
        Assert.Equal($"ASP.NET Core's metrics confirm the route {route}", withRuntime.RouteCheck);
        Assert.Equal(service.Handlers.Count, withRuntime.Serving.Count);
        Assert.Equal(route, pathAlone.ServingRoute);

        // A pool thread running the Task.Run lambda of Work.Queued, parked in Thread.Sleep: no request on its stack.
        string Name(string part) => module.MethodName(module.Methods().Single(t => module.MethodName(t).Contains(part, StringComparison.Ordinal)));
        int Token(string name) => module.Methods().Single(t => module.MethodName(t) == name);
        var (inline, work) = (Name("Work.Inline"), Name("<Queued>b__"));
        var stack = new ThreadStack(1,
        [
            "System.Threading.Thread.Sleep", inline, work, "System.Threading.Tasks.Task`1[System.Int32].InnerInvoke",
            "System.Threading.ThreadPoolWorkQueue.Dispatch", "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart",
        ])
        {
            Locations = [null, new FrameLocation(assembly, Token(inline), 0), new FrameLocation(assembly, Token(work), 0)],
        };
        using var resolver = new CallSiteResolver($"{service.Route}?ms=200", runtimeRoutes);

        var call = resolver.Resolve(stack, 1, [assembly]);

        Assert.Equal("Work.Inline", call.Method);
        Assert.Equal(BlockingPrimitive.Sleep, call.Primitive);
        Assert.Equal(route, call.Route);
        Assert.True(call.Queued);
        Assert.Contains($"work queued by {route}", call.Describe());
        Assert.DoesNotContain("no route", call.Note ?? "");
    }

    /// <summary>A path both a holed template and one with a literal segment where the other has a hole match goes to the literal one, as ASP.NET Core's routing would.</summary>
    [Fact]
    public void ALiteralSegmentIsPreferredToAHole()
    {
        var hole = RouteTemplates.Hole;
        var twoHoles = RouteTemplates.MatchHoled($"/api/{hole}/{hole}", "/api/sleep/compare")!.Value;
        var literal = RouteTemplates.MatchHoled($"/api/{hole}/compare", "/api/sleep/compare")!.Value;

        Assert.Equal("/api/sleep/compare", twoHoles.Template);
        Assert.True(RouteTemplates.Compare(literal.Ranks, twoHoles.Ranks) < 0);
        Assert.True(RouteTemplates.Compare(RouteTemplates.Match("/api/sleep/{id:int}", "/api/sleep/1")!, RouteTemplates.MatchHoled($"/api/{hole}/1", "/api/sleep/1")!.Value.Ranks) < 0);
    }

    /// <summary>A generated service: its source, the handler expressions the Map call can get, the holes of its template, and the route of its queued mode for one unit.</summary>
    private sealed record Generated(string Source, IReadOnlyList<string> Handlers, int Holes, string Route);

    /// <summary>The service of a seed: the first four seeds give each template shape with each handler shape's turn; the rest are drawn from the seed.</summary>
    private static Generated Generate(int seed)
    {
        var random = new Random(seed);
        var templateShape = seed <= 4 ? (TemplateShape)(seed - 1) : (TemplateShape)random.Next(4);
        var handlerShape = seed <= 4 ? (HandlerShape)((seed + 1) % 4) : (HandlerShape)random.Next(4);
        var unit = Units[random.Next(Units.Length)];
        var queued = QueuedModes[random.Next(QueuedModes.Length)];
        var (group, template, holes, route) = templateShape switch
        {
            TemplateShape.OneHole => ("endpoints.MapGroup(\"/api/loops\")", "$\"/{mode}\"", 1, $"/api/loops/{queued}"),
            TemplateShape.TwoHoles => ("endpoints.MapGroup($\"/api/{unit}\")", "$\"/{mode}\"", 2, $"/api/{unit}/{queued}"),
            TemplateShape.TwoHolesOneTemplate => ("endpoints", "$\"/api/{unit}/{mode}\"", 2, $"/api/{unit}/{queued}"),
            _ => ("endpoints.MapGroup($\"/api/{unit}\")", "$\"/run-{mode}\"", 2, $"/api/{unit}/run-{queued}"),
        };
        const string inlineLambda = "(int ms) => Work.Inline(ms)", queuedLambda = "(int ms) => Work.Queued(ms)";
        var (assignment, handlers) = handlerShape switch
        {
            HandlerShape.ConditionalLambdas => ($"Delegate run = mode == \"sync\" ? {inlineLambda} : {queuedLambda};", new[] { inlineLambda, queuedLambda }),
            HandlerShape.IfElseLambdas => ($"Delegate run;\n                if (mode == \"sync\")\n                {{\n                    run = {inlineLambda};\n                }}\n                else\n                {{\n                    run = {queuedLambda};\n                }}", [inlineLambda, queuedLambda]),
            HandlerShape.ConditionalMethodGroups => ("Delegate run = mode == \"sync\" ? new Func<int, int>(Work.Inline) : new Func<int, Task<int>>(Work.Queued);", ["Work.Inline", "Work.Queued"]),
            _ => ("Func<int, Task<int>> run = Work.Queued;", ["Work.Queued"]),
        };
        var source = $$"""
            using System;
            using System.Threading;
            using System.Threading.Tasks;
            using Microsoft.AspNetCore.Builder;
            using Microsoft.AspNetCore.Http;
            using Microsoft.AspNetCore.Routing;

            var app = WebApplication.CreateBuilder(args).Build();
            app.MapGet("/healthz", () => "ok");
            app.MapLoops();
            app.Run();

            public static class LoopEndpoints
            {
                private static readonly string[] Units = ["{{unit}}", "other"];
                private static readonly string[] Modes = ["sync", "{{queued}}"];

                public static void MapLoops(this IEndpointRouteBuilder endpoints)
                {
                    foreach (var unit in Units)
                    {
                        var group = {{group}};
                        foreach (var mode in Modes)
                        {
                            {{assignment}}
                            group.MapGet({{template}}, run);
                        }
                    }
                }
            }

            public static class Work
            {
                public static int Inline(int ms)
                {
                    Thread.Sleep(ms);
                    return ms;
                }

                public static async Task<int> Queued(int ms) => await Task.Run(() => Inline(ms));
            }
            """;
        return new Generated(source, handlers, holes, route);
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
