using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Tests.Diagnostics.Corpus;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// The application's own code that only passes the request on (an endpoint filter, a middleware awaiting next) is the
/// leaf-most frame of the application on the stack when the JIT inlined the handler into the delegate ASP.NET Core
/// compiled for it: that frame's statement makes no blocking call, so the call is searched in what the loaded endpoint
/// runs, and the handler's method is named with its route, never the filter's or the middleware's await line. Services
/// generated here from a seed, compiled with their PDB.
/// </summary>
public sealed class PassThroughFrameTests : IDisposable
{
    /// <summary>What passes the request on above the handler.</summary>
    public enum PassThrough
    {
        /// <summary><c>.AddEndpointFilter(async (context, next) => await next(context))</c></summary>
        FilterLambda,

        /// <summary><c>.AddEndpointFilter&lt;AuditFilter&gt;()</c>, an IEndpointFilter class.</summary>
        FilterClass,

        /// <summary><c>app.Use(async (context, next) => await next(context))</c></summary>
        MiddlewareLambda,

        /// <summary><c>app.UseMiddleware&lt;AuditMiddleware&gt;()</c></summary>
        MiddlewareClass,
    }

    private readonly string _folder = Directory.CreateTempSubdirectory("pass-through-").FullName;

    /// <summary>Every pass-through, with the wait in the handler and one call below it, then seeded mixes.</summary>
    public static TheoryData<int> Seeds() => [1, 2, 3, 4, 5, 6, 7, 8];

    [Theory]
    [MemberData(nameof(Seeds))]
    public void TheHandlerInlinedBelowAPassThroughFrameIsNamedNotThePassThrough(int seed)
    {
        var service = Build(seed);
        using var module = ModuleSource.Open(service.Assembly)!;
        var passing = module.Methods().Single(t => module.MethodName(t) == service.PassThroughFrame);
        // Where the pass-through's thread is: its call of next.
        var next = module.Calls(passing).First(c => c.Callee.EndsWith("Delegate.Invoke", StringComparison.Ordinal)).ILOffset;
        var stack = new ThreadStack(1,
        [
            "System.Threading.Thread.SleepInternal", "System.Threading.Thread.Sleep", "dynamicClass.lambda_method12", service.Below,
            service.PassThroughFrame, "System.Runtime.CompilerServices.AsyncMethodBuilderCore.Start", "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke",
            "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol+<ProcessRequests>d__238`1[System.__Canon].MoveNext", "System.Threading.ThreadPoolWorkQueue.Dispatch",
        ])
        {
            Locations = [null, null, null, null, new FrameLocation(service.Assembly, passing, next)],
        };
        using var resolver = new CallSiteResolver(service.Path);

        var call = resolver.Resolve(stack, 4, [service.Assembly]);

        Assert.Equal(service.Method, call.Method);
        Assert.False(call.Unsure, call.Method);
        Assert.Equal(BlockingPrimitive.Sleep, call.Primitive);
        Assert.Equal(service.Route, call.Route);
        Assert.Contains("Thread.Sleep(", File.ReadAllLines(service.Source)[call.Line!.Line - 1], StringComparison.Ordinal);
    }

    /// <summary>A generated service: its assembly and source, the path loaded, the route and the method that sleeps, the pass-through's frame (its state machine's MoveNext) and the framework frame below it.</summary>
    private sealed record Built(string Assembly, string Source, string Path, string Route, string Method, string PassThroughFrame, string Below);

    private Built Build(int seed)
    {
        var random = new Random(seed);
        var shape = seed <= 4 ? (PassThrough)(seed - 1) : (PassThrough)random.Next(4);
        var depth = seed <= 4 ? seed % 2 : random.Next(2);
        var resource = ServiceGenerator.Resources[random.Next(ServiceGenerator.Resources.Length)];
        var type = char.ToUpperInvariant(resource[0]) + resource[1..];
        var verb = ServiceGenerator.Verbs[random.Next(ServiceGenerator.Verbs.Length)];
        var filter = shape switch
        {
            PassThrough.FilterLambda => "\n    .AddEndpointFilter(async (context, next) => await next(context))",
            PassThrough.FilterClass => "\n    .AddEndpointFilter<AuditFilter>()",
            _ => "",
        };
        var middleware = shape switch
        {
            PassThrough.MiddlewareLambda => "app.Use(async (context, next) => await next(context));",
            PassThrough.MiddlewareClass => "app.UseMiddleware<AuditMiddleware>();",
            _ => "",
        };
        var body = depth == 0 ? "System.Threading.Thread.Sleep(200);" : $"{type}Work.{verb}(id);";
        var source = System.IO.Path.Combine(_folder, $"Program{seed}.cs");
        File.WriteAllText(source, $$"""
            using System.Threading.Tasks;
            using Microsoft.AspNetCore.Builder;
            using Microsoft.AspNetCore.Http;

            var app = WebApplication.CreateBuilder(args).Build();
            {{middleware}}
            app.MapGet("/{{resource}}/{id:int}", (int id) =>
            {
                {{body}}
                return id;
            }){{filter}};
            app.MapGet("/decoy/{id:int}", (int id) => Decoys.Warm(id));
            app.Run();

            public static class {{type}}Work
            {
                public static void {{verb}}(int id) => System.Threading.Thread.Sleep(200 + id);
            }

            public static class Decoys
            {
                public static int Warm(int id)
                {
                    System.Threading.Thread.Sleep(id);
                    return id;
                }
            }

            public sealed class AuditFilter : IEndpointFilter
            {
                public async ValueTask<object?> InvokeAsync(EndpointFilterInvocationContext context, EndpointFilterDelegate next) => await next(context);
            }

            public sealed class AuditMiddleware(RequestDelegate next)
            {
                public async Task InvokeAsync(HttpContext context) => await next(context);
            }
            """);
        var assembly = System.IO.Path.Combine(_folder, $"Shop{seed}.dll");
        ServedCodeTests.Compile([source], assembly);
        using var module = ModuleSource.Open(assembly)!;
        // The pass-through's own frame is its state machine's MoveNext (the handler lambda is not async).
        var owner = shape switch
        {
            PassThrough.FilterClass => "AuditFilter+<InvokeAsync>d__",
            PassThrough.MiddlewareClass => "AuditMiddleware+<InvokeAsync>d__",
            _ => "Program+<>c+<",
        };
        var frame = module.Methods().Select(module.MethodName).Single(n => n.StartsWith(owner, StringComparison.Ordinal) && n.EndsWith(".MoveNext", StringComparison.Ordinal));
        var below = shape is PassThrough.FilterLambda or PassThrough.FilterClass
            ? "Microsoft.AspNetCore.Http.RequestDelegateFactory+<>c__DisplayClass100_0.<CreateFilteredInvocation>b__0"
            : "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke";
        return new Built(assembly, source, $"/{resource}/1", $"GET /{resource}/{{id:int}}",
            depth == 0 ? "the lambda in Program (top-level statements)" : $"{type}Work.{verb}", frame, below);
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
