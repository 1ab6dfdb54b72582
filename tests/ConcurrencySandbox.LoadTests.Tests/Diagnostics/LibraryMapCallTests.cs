using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Tests.Diagnostics.Corpus;
using Microsoft.CodeAnalysis;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Minimal APIs mapped in an extension method of another assembly (a class library the app references, as real services
/// split their endpoints out): the route groups the app hands that method are read from the app's sources, so the
/// library's endpoints get their whole route, and the code the loaded path runs is the library's handler, not every
/// endpoint's. Services generated here from a seed, each compiled as two modules with their PDBs.
/// </summary>
public sealed class LibraryMapCallTests : IDisposable
{
    /// <summary>How the app hands its group to the library's extension method.</summary>
    public enum GroupShape
    {
        /// <summary><c>app.MapGroup("/api").MapOrders();</c></summary>
        OnAGroup,

        /// <summary><c>app.MapGroup("/api").MapGroup("/v1").MapOrders();</c></summary>
        OnNestedGroups,

        /// <summary><c>var api = app.MapGroup("/api"); api.MapOrders();</c></summary>
        OnAGroupVariable,

        /// <summary><c>OrdersEndpoints.MapOrders(app.MapGroup("/api"));</c></summary>
        CalledAsAStaticMethod,
    }

    private static readonly string[] Prefixes = ["/api", "/v2", "/shop", "/internal"];

    private readonly string _folder = Directory.CreateTempSubdirectory("library-map-").FullName;

    /// <summary>Every group shape, with a lambda and with a method group as the handler, then seeded mixes.</summary>
    public static TheoryData<int> Seeds() => [1, 2, 3, 4, 5, 6, 7, 8];

    [Theory]
    [MemberData(nameof(Seeds))]
    public void TheLibrarysEndpointGetsThePrefixOfTheGroupsTheAppHandsIt(int seed)
    {
        var service = Build(seed);
        using var app = ModuleSource.Open(service.App)!;
        using var library = ModuleSource.Open(service.Library)!;
        var code = new ApplicationCode([app, library]);

        var served = new ServedCode(code, service.Path);

        Assert.Contains($"{service.Route} -> {service.Handler}", Endpoints.Read(code).Select(e => $"{e.Route} -> {e.Handler.Name}"));
        Assert.Equal(service.Route, served.ServingRoute);
        Assert.Same(library, Assert.Single(served.Serving).Handler.Module);
    }

    /// <summary>
    /// No frame of the application on the stack (the JIT inlined the library's handler into ASP.NET Core's compiled
    /// request delegate): the one method the loaded endpoint runs that sleeps is named, with the route, and the app's
    /// decoy endpoint that sleeps too is not listed beside it.
    /// </summary>
    [Theory]
    [MemberData(nameof(Seeds))]
    public void WithNoApplicationFrameTheLibrarysMethodIsNamedWithItsRoute(int seed)
    {
        var service = Build(seed);
        var stack = new ThreadStack(1,
        [
            "System.Threading.Thread.SleepInternal", "System.Threading.Thread.Sleep", "dynamicClass.lambda_method7",
            "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke", "System.Threading.ThreadPoolWorkQueue.Dispatch",
        ]);
        using var resolver = new CallSiteResolver(service.Path);

        var call = resolver.ResolveInlinedAway(stack, [service.App, service.Library])!;

        Assert.False(call.Unsure, call.Method);
        Assert.Equal(service.Method, call.Method);
        Assert.Equal(BlockingPrimitive.Sleep, call.Primitive);
        Assert.Equal(service.Route, call.Route);
        Assert.Equal("Work.cs", Path.GetFileName(call.Line?.File));
    }

    /// <summary>A generated pair: the app's and the library's assemblies, the path the load requests, the route and handler that serve it, the method that sleeps.</summary>
    private sealed record Built(string App, string Library, string Path, string Route, string Handler, string Method);

    private Built Build(int seed)
    {
        var random = new Random(seed);
        var shape = seed <= 4 ? (GroupShape)(seed - 1) : (GroupShape)random.Next(4);
        var methodGroup = seed <= 4 ? seed % 2 == 0 : random.Next(2) == 0;
        var resource = ServiceGenerator.Resources[random.Next(ServiceGenerator.Resources.Length)];
        var type = char.ToUpperInvariant(resource[0]) + resource[1..];
        var verb = ServiceGenerator.Verbs[random.Next(ServiceGenerator.Verbs.Length)];
        var prefix = Prefixes[random.Next(Prefixes.Length)];
        var (mapping, groups) = shape switch
        {
            GroupShape.OnAGroup => ($"app.MapGroup(\"{prefix}\").Map{type}();", prefix),
            GroupShape.OnNestedGroups => ($"app.MapGroup(\"{prefix}\").MapGroup(\"/v1\").Map{type}();", $"{prefix}/v1"),
            GroupShape.OnAGroupVariable => ($"var api = app.MapGroup(\"{prefix}\");\napi.Map{type}();", prefix),
            _ => ($"{type}Endpoints.Map{type}(app.MapGroup(\"{prefix}\"));", prefix),
        };
        var handler = methodGroup ? $"{type}Work.{verb}" : $"(int id) => {type}Work.{verb}(id)";
        var folder = Directory.CreateDirectory(System.IO.Path.Combine(_folder, $"seed{seed}")).FullName;
        var endpoints = System.IO.Path.Combine(folder, "Endpoints.cs");
        File.WriteAllText(endpoints, $$"""
            using Microsoft.AspNetCore.Builder;
            using Microsoft.AspNetCore.Http;
            using Microsoft.AspNetCore.Routing;

            namespace Shop.Endpoints;

            public static class {{type}}Endpoints
            {
                public static RouteGroupBuilder Map{{type}}(this IEndpointRouteBuilder app)
                {
                    var group = app.MapGroup("/{{resource}}");
                    group.MapGet("/{id:int}", {{handler}});
                    return group;
                }
            }
            """);
        var work = System.IO.Path.Combine(folder, "Work.cs");
        File.WriteAllText(work, $$"""
            namespace Shop.Endpoints;

            public static class {{type}}Work
            {
                public static int {{verb}}(int id)
                {
                    System.Threading.Thread.Sleep(200);
                    return id;
                }
            }
            """);
        var program = System.IO.Path.Combine(folder, "Program.cs");
        File.WriteAllText(program, $$"""
            using Microsoft.AspNetCore.Builder;
            using Microsoft.AspNetCore.Http;
            using Shop.Endpoints;

            var app = WebApplication.CreateBuilder(args).Build();
            {{mapping}}
            app.MapGet("/decoy/{id:int}", (int id) => Decoys.Warm(id));
            app.Run();

            public static class Decoys
            {
                public static int Warm(int id)
                {
                    System.Threading.Thread.Sleep(id);
                    return id;
                }
            }
            """);
        var library = System.IO.Path.Combine(folder, "Shop.Endpoints.dll");
        ServedCodeTests.Compile([endpoints, work], library, OutputKind.DynamicallyLinkedLibrary);
        var app = System.IO.Path.Combine(folder, "Shop.dll");
        ServedCodeTests.Compile([program], app, OutputKind.ConsoleApplication, library);
        return new Built(app, library, $"{groups}/{resource}/1", $"GET {groups}/{resource}/{{id:int}}",
            methodGroup ? $"{type}Work.{verb}" : $"the lambda in {type}Endpoints.Map{type}", $"{type}Work.{verb}");
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
