using System.Reflection.PortableExecutable;
using System.Text;
using ConcurrencySandbox.LoadTests.Diagnostics;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Emit;
using Microsoft.CodeAnalysis.Text;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// The call site from what the runner knows (issue 37 items 1 and 3), on an application compiled here with Roslyn (its
/// module and portable PDB on disk, its source beside them) in the shapes the issue met: a controller with a
/// constructor-injected interface service and [controller]/[action] tokens, next to a DI factory lambda that makes the
/// same blocking call at start-up only; a client method the JIT inlined into a LINQ lambda, under a route group handed
/// to an extension method.
/// </summary>
public sealed class ServedCodeTests : IDisposable
{
    private const string Source = """
        using System;
        using System.Linq;
        using System.Net.Http;
        using System.Threading.Tasks;
        using Microsoft.AspNetCore.Builder;
        using Microsoft.AspNetCore.Http;
        using Microsoft.AspNetCore.Mvc;
        using Microsoft.AspNetCore.Routing;
        using Microsoft.Extensions.DependencyInjection;

        // What Razor compiles of Pages/Parcels/Track.cshtml ("@page "{id:int}"", "@model TrackModel"), written by hand.
        [assembly: Microsoft.AspNetCore.Razor.Hosting.RazorCompiledItem(typeof(Pages_Parcels_Track), "mvc.1.0.razor-page", "/Pages/Parcels/Track.cshtml")]

        var builder = WebApplication.CreateBuilder(args);
        builder.Services.AddSingleton<IQuotes>(_ => new Quotes(Seed.WarmAsync().Result));
        builder.Services.AddScoped<IRates, Rates>();
        builder.Services.AddControllers();
        var app = builder.Build();
        app.MapControllers();
        app.MapGroup("/api").MapInvoices();
        app.MapGet("/reports/{id:int}", (int id) => id);
        app.MapGet("/reports/{name}", (string name) => name.Length);
        app.MapControllerRoute(name: "default", pattern: "{controller=Home}/{action=Index}/{id?}");
        app.Run();

        [Microsoft.AspNetCore.Razor.Hosting.RazorCompiledItemMetadata("RouteTemplate", "{id:int}")]
        public sealed class Pages_Parcels_Track : Microsoft.AspNetCore.Mvc.RazorPages.Page
        {
            public TrackModel Model => null!;

            public override Task ExecuteAsync() => Task.CompletedTask;
        }

        public sealed class TrackModel : Microsoft.AspNetCore.Mvc.RazorPages.PageModel
        {
            public int OnGet(int id) => id;
        }

        // Conventionally routed: no attribute route.
        public sealed class ShelvesController : ControllerBase
        {
            [HttpGet]
            public int Count(int id) => id;
        }

        public sealed class HomeController : ControllerBase
        {
            public int Index() => 0;
        }

        // Two implementations of each: IRates's registered (AddScoped above), IFees's not.
        public interface IRates
        {
            int Rate(int id);
        }

        public sealed class Rates : IRates
        {
            public int Rate(int id) => Task.Delay(1).ContinueWith(_ => id).Result;
        }

        public sealed class CachedRates : IRates
        {
            public int Rate(int id) => Task.Delay(2).ContinueWith(_ => id).Result;
        }

        [ApiController]
        [Route("api/rates")]
        public sealed class RatesController(IRates rates) : ControllerBase
        {
            [HttpGet("{id:int}")]
            public int Get(int id) => rates.Rate(id);
        }

        public interface IFees
        {
            int Fee(int id);
        }

        public sealed class FlatFees : IFees
        {
            public int Fee(int id) => Task.Delay(1).ContinueWith(_ => id).Result;
        }

        public sealed class TieredFees : IFees
        {
            public int Fee(int id) => Task.Delay(2).ContinueWith(_ => id).Result;
        }

        [ApiController]
        [Route("api/fees")]
        public sealed class FeesController(IFees fees) : ControllerBase
        {
            [HttpGet("{id:int}")]
            public int Get(int id) => fees.Fee(id);
        }

        public static class Seed
        {
            public static async Task<int> WarmAsync()
            {
                await Task.Delay(1);
                return 1;
            }
        }

        public interface IQuotes
        {
            int Quote(int id);
        }

        public sealed class Quotes(int seed) : IQuotes
        {
            public int Quote(int id) => FetchAsync(id).Result + seed;

            private static async Task<int> FetchAsync(int id)
            {
                await Task.Delay(5);
                return id;
            }
        }

        [ApiController]
        [Route("api/[controller]")]
        public sealed class QuotesController(IQuotes quotes) : ControllerBase
        {
            [HttpGet("[action]/{id:int}")]
            public int Latest(int id) => quotes.Quote(id);
        }

        public static class InvoiceEndpoints
        {
            public static RouteGroupBuilder MapInvoices(this IEndpointRouteBuilder app)
            {
                var group = app.MapGroup("invoices");
                group.MapGet("/{id:int}", (int id) => InvoiceBuilder.Build(id));
                return group;
            }
        }

        public static class InvoiceBuilder
        {
            public static int Build(int id) => Enumerable.Range(id, 2).Select(line => Client.Lookup(line)).Sum();
        }

        public static class Client
        {
            private static readonly HttpClient Http = new();

            public static int Lookup(int line)
            {
                using var response = Http.Send(new HttpRequestMessage(HttpMethod.Get, "http://127.0.0.1:9/"));
                return line;
            }
        }
        """;

    // What a pool thread serving a request shows below the developer's code.
    private static readonly string[] Pipeline =
    [
        "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke", "System.Threading.ThreadPoolWorkQueue.Dispatch", "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart",
    ];

    private readonly string _folder = Directory.CreateTempSubdirectory("served-code-").FullName;
    private readonly string _assembly;
    private readonly string _source;

    public ServedCodeTests()
    {
        _source = Path.Combine(_folder, "Program.cs");
        File.WriteAllText(_source, Source);
        _assembly = Path.Combine(_folder, "Shop.dll");
        Compile([_source], _assembly);
    }

    [Fact]
    public void TheEndpointsAreReadFromAttributesWithTheirTokensAndFromMapCallsOnGroupsHandedToExtensionMethods()
    {
        using var module = ModuleSource.Open(_assembly)!;

        var routes = Endpoints.Read(new ApplicationCode([module])).Select(e => $"{e.Route} -> {e.Handler.Name}").ToList();

        Assert.Contains("GET /api/Quotes/Latest/{id:int} -> QuotesController.Latest", routes);
        Assert.Contains("GET /api/invoices/{id:int} -> the lambda in InvoiceEndpoints.MapInvoices", routes);
    }

    /// <summary>Issue 37 item 1's other shapes: a Razor page's handler at its folder and @page template, and controllers reached by a conventional route (its defaults giving Home/Index "/" too).</summary>
    [Fact]
    public void RazorPagesHandlersAndConventionallyRoutedActionsAreEndpointsToo()
    {
        using var module = ModuleSource.Open(_assembly)!;

        var endpoints = Endpoints.Read(new ApplicationCode([module]));
        var routes = endpoints.Select(e => $"{e.Route} -> {e.Handler.Name}").ToList();

        Assert.Contains("GET /Parcels/Track/{id:int} -> TrackModel.OnGet", routes);
        Assert.Contains("GET /Shelves/Count/{id?} -> ShelvesController.Count", routes);
        Assert.Contains("* /Home/Index/{id?} -> HomeController.Index", routes);
        Assert.Contains("* / -> HomeController.Index", routes);
        Assert.Equal("GET /Shelves/Count/{id?}", Assert.Single(Endpoints.Serving(endpoints, "/shelves/count/4")).Route);
        Assert.Equal("{controller=Home}/{action=Index}/{id?}", Assert.Single(Endpoints.Serving(endpoints, "/shelves/count/4")).Pattern);
        Assert.Equal("GET /Parcels/Track/{id:int}", Assert.Single(Endpoints.Serving(endpoints, "/parcels/track/9")).Route);
    }

    /// <summary>
    /// The controller: no frame of the application on the stack, and a DI factory lambda in the start-up code makes
    /// the same .Result call. Only the code the loaded endpoint runs is searched: the injected service's method is named,
    /// with its path up to the action and the route; the factory, which never ran under the load, is not even listed.
    /// </summary>
    [Fact]
    public void WithNoApplicationFrameTheMethodTheLoadedEndpointRunsIsNamedNotTheStartUpFactory()
    {
        var stack = new ThreadStack(1, ["System.Threading.Tasks.Task.InternalWait", "System.Threading.Tasks.Task`1[System.Int32].get_Result", "dynamicClass.lambda_method3", .. Pipeline]);
        using var resolver = new CallSiteResolver("/api/quotes/latest/7");

        var call = resolver.ResolveInlinedAway(stack, [_assembly])!;

        Assert.Equal("Quotes.Quote", call.Method);
        Assert.False(call.Unsure, call.Method);
        Assert.Equal(BlockingPrimitive.Result, call.Primitive);
        Assert.Equal("GET /api/Quotes/Latest/{id:int}", call.Route);
        Assert.Contains("FetchAsync(id).Result", LineText(call.Line));
        Assert.Equal("QuotesController.Latest", call.CalledFrom[^1].Method);
        Assert.DoesNotContain("the lambda in Program", call.Describe());
    }

    /// <summary>
    /// The InvoiceBuilder: the client method that blocks was inlined into the LINQ lambda, whose frame is the
    /// leaf-most of the application. The method that makes the call is named with its line, then its path up to the
    /// handler, and the route includes the group's prefix its extension method's caller gave.
    /// </summary>
    [Fact]
    public void AMethodInlinedIntoALambdaIsNamedWithItsPathUpToTheHandlerAndTheGroupsRoute()
    {
        using var module = ModuleSource.Open(_assembly)!;
        int Token(string name) => module.Methods().Single(t => module.MethodName(t) == name);
        var linqLambda = Token("InvoiceBuilder+<>c.<Build>b__0_0");
        var handler = Token("InvoiceEndpoints+<>c.<MapInvoices>b__0_0");
        var build = Token("InvoiceBuilder.Build");
        var stack = new ThreadStack(1,
        [
            "System.Net.Http.HttpClient.Send", "InvoiceBuilder+<>c.<Build>b__0_0", "System.Linq.Enumerable+RangeSelectIterator`1[System.Int32].Sum",
            "InvoiceBuilder.Build", "InvoiceEndpoints+<>c.<MapInvoices>b__0_0", "dynamicClass.lambda_method5", .. Pipeline,
        ])
        {
            Locations = [null, new FrameLocation(_assembly, linqLambda, 0), null, new FrameLocation(_assembly, build, 0), new FrameLocation(_assembly, handler, 0)],
        };
        using var resolver = new CallSiteResolver("/api/invoices/3");

        var call = resolver.Resolve(stack, 1, [_assembly]);

        Assert.Equal("Client.Lookup", call.Method);
        Assert.Equal("the lambda in InvoiceBuilder.Build", call.InlinedInto);
        Assert.Equal(BlockingPrimitive.HttpSend, call.Primitive);
        Assert.Contains("Http.Send(", LineText(call.Line));
        Assert.Equal(["the lambda in InvoiceBuilder.Build", "InvoiceBuilder.Build", "the lambda in InvoiceEndpoints.MapInvoices"], call.CalledFrom.Select(s => s.Method));
        Assert.All(call.CalledFrom, s => Assert.NotNull(s.Line));
        Assert.Equal("GET /api/invoices/{id:int}", call.Route);
        Assert.Contains("Client.Lookup (Program.cs:", call.Describe());
        Assert.Contains(", called from the lambda in InvoiceBuilder.Build (Program.cs:", call.Describe());
    }

    /// <summary>
    /// Issue 37 item 1: two implementations of an injected interface. The one the start-up code registers
    /// (AddScoped&lt;IRates, Rates&gt;, read from its IL) is named; with no registration to read (IFees), both are
    /// listed and the note says why.
    /// </summary>
    [Fact]
    public void OfTwoImplementationsTheOneDiRegistersIsNamedAndBothOnlyWhenNoRegistrationIsRead()
    {
        var stack = new ThreadStack(1, ["System.Threading.Tasks.Task.InternalWait", "System.Threading.Tasks.Task`1[System.Int32].get_Result", "dynamicClass.lambda_method3", .. Pipeline]);
        using var rates = new CallSiteResolver("/api/rates/7");
        using var fees = new CallSiteResolver("/api/fees/7");

        var registered = rates.ResolveInlinedAway(stack, [_assembly])!;
        var unregistered = fees.ResolveInlinedAway(stack, [_assembly])!;

        Assert.Equal("Rates.Rate", registered.Method);
        Assert.False(registered.Unsure, registered.Note);
        Assert.Equal(2, unregistered.Candidates);
        Assert.Equal(["FlatFees.Fee", "TieredFees.Fee"], unregistered.Listed.Select(c => c.Method).Order());
        Assert.Contains("no DI registration of IFees", unregistered.Note);
    }

    /// <summary>
    /// Issue 37 item 1: the route ASP.NET Core's metrics report for the load (http.route) confirms the metadata's, or,
    /// when they disagree, is trusted and said; without it the metadata's stands alone.
    /// </summary>
    [Fact]
    public void TheRuntimesRouteConfirmsTheMetadatasOrIsTrustedWhenTheyDisagree()
    {
        using var module = ModuleSource.Open(_assembly)!;
        var code = new ApplicationCode([module]);

        // Attribute routes come without their leading slash in http.route; the service's other traffic has routes of its own.
        var confirmed = new ServedCode(code, "/api/quotes/latest/7", new Dictionary<string, long> { ["GET api/Quotes/Latest/{id:int}"] = 40, ["GET /api/invoices/{id:int}"] = 90 });
        var disagreed = new ServedCode(code, "/reports/5", new Dictionary<string, long> { ["GET /reports/{name}"] = 40 });
        var alone = new ServedCode(code, "/reports/5");

        Assert.Equal("GET /api/Quotes/Latest/{id:int}", confirmed.ServingRoute);
        Assert.Equal("ASP.NET Core's metrics confirm the route GET /api/Quotes/Latest/{id:int}", confirmed.RouteCheck);
        Assert.Equal("GET /reports/{name}", Assert.Single(disagreed.Serving).Route);
        Assert.Equal("ASP.NET Core's metrics say /reports/5 was served by GET /reports/{name}; the metadata gave GET /reports/{id:int}: the runtime's route is trusted", disagreed.RouteCheck);
        Assert.Equal("GET /reports/{id:int}", alone.ServingRoute);
        Assert.Null(alone.RouteCheck);
    }

    private static string LineText(SourceLine? line)
    {
        Assert.NotNull(line);
        return File.ReadAllLines(line.File)[line.Line - 1];
    }

    /// <summary>
    /// The sources compiled as a Release web app (or a class library, <paramref name="kind"/>) against the shared frameworks
    /// this test runs on and the <paramref name="libraries"/> compiled before it, with a portable PDB beside it.
    /// </summary>
    internal static void Compile(IReadOnlyList<string> sources, string assembly, OutputKind kind = OutputKind.ConsoleApplication, params string[] libraries)
    {
        var core = Path.GetDirectoryName(typeof(object).Assembly.Location)!;
        var version = Path.GetFileName(core);
        var web = Path.Combine(core, "..", "..", "Microsoft.AspNetCore.App");
        var aspnet = Directory.Exists(Path.Combine(web, version)) ? Path.Combine(web, version) : Directory.GetDirectories(web).Order().Last();
        var references = Directory.GetFiles(core, "*.dll").Concat(Directory.GetFiles(aspnet, "*.dll")).Where(IsManaged).Concat(libraries).Select(p => MetadataReference.CreateFromFile(p));
        var trees = sources.Select(source => CSharpSyntaxTree.ParseText(SourceText.From(File.ReadAllText(source), Encoding.UTF8), new CSharpParseOptions(LanguageVersion.Preview), path: source));
        var compilation = CSharpCompilation.Create(Path.GetFileNameWithoutExtension(assembly), trees, references,
            new CSharpCompilationOptions(kind, optimizationLevel: OptimizationLevel.Release, nullableContextOptions: NullableContextOptions.Enable));
        var pdb = Path.ChangeExtension(assembly, ".pdb");
        using var dll = File.Create(assembly);
        using var symbols = File.Create(pdb);
        var emitted = compilation.Emit(dll, symbols, options: new EmitOptions(debugInformationFormat: DebugInformationFormat.PortablePdb, pdbFilePath: pdb));
        Assert.True(emitted.Success, string.Join('\n', emitted.Diagnostics.Where(d => d.Severity == DiagnosticSeverity.Error)));
    }

    private static bool IsManaged(string path)
    {
        using var pe = new PEReader(File.OpenRead(path));
        return pe.HasMetadata;
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
