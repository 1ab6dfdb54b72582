using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics.Corpus;

/// <summary>How the code that blocks is entered (issue 37 item 4's shapes).</summary>
public enum Entry
{
    /// <summary>A controller action calling a constructor-injected interface service.</summary>
    Controller,

    /// <summary>The same, with [controller] and [action] tokens in its attribute routes.</summary>
    ControllerTokens,

    /// <summary>A minimal-API lambda mapped on the app.</summary>
    MinimalLambda,

    /// <summary>A minimal-API method group.</summary>
    MethodGroup,

    /// <summary>A minimal-API lambda mapped on a route group inside an extension method.</summary>
    RouteGroup,

    /// <summary>A middleware class around every request: its InvokeAsync returns next's task, or (by seed) is async and awaits it.</summary>
    Middleware,

    /// <summary>A BackgroundService blocking pool threads with no request on their stacks.</summary>
    Background,

    /// <summary>A controller with no attribute route, reached by the conventional route "{controller=Home}/{action=Index}/{id?}", calling a constructor-injected interface service.</summary>
    Conventional,

    /// <summary>A Razor Page's OnGet handler (its @page template under its folder).</summary>
    RazorPage,

    /// <summary>
    /// A minimal-API lambda mapped on a route group inside an extension method of a class library the app references (the
    /// chain and the decoys in the library too); the app hands it its group as an extension call or a static call.
    /// </summary>
    LibraryRouteGroup,

    /// <summary>A minimal-API lambda mapped on the app behind an endpoint filter of its own (AddEndpointFilter: an async lambda awaiting next).</summary>
    FilteredLambda,

    /// <summary>A middleware lambda around every request, <c>app.Use(async (context, next) => { ...; await next(context); })</c>.</summary>
    MiddlewareLambda,

    /// <summary>
    /// A global MVC action filter (<c>AddControllers(o => o.Filters.Add&lt;XFilter&gt;())</c>) whose synchronous
    /// OnActionExecuting makes the wait, or calls a constructor-injected interface service that does, before a controller
    /// action that does not block (issue 37, the cold services of 2026-11-29 evening).
    /// </summary>
    ActionFilter,

    /// <summary>
    /// An endpoint filter class of the app's own (<c>.AddEndpointFilter&lt;XFilter&gt;()</c>) whose InvokeAsync makes the wait
    /// before it passes the request on (async and awaiting next, or by seed returning next's task), in front of a
    /// minimal-API lambda that does not block.
    /// </summary>
    BlockingEndpointFilter,

    /// <summary>
    /// A controller calling a constructor-injected repository interface whose implementation inherits a generic base
    /// class, <c>RepositoryBase&lt;TEntity&gt;</c>, whose generic <c>Get&lt;TKey&gt;</c> makes the wait (or calls the chain that does).
    /// </summary>
    GenericRepository,
}

/// <summary>What the code blocks on (issue 37 item 4's primitives).</summary>
public enum Wait
{
    Result,
    Wait,
    GetResult,
    TaskRunResult,
    WaitAll,
    HttpSend,
    Sleep,
    Lock,
    Semaphore,
    StreamRead,

    /// <summary>A synchronous read of an anonymous pipe whose writer (a thread of its own, as a child process's output would be) answers after the delay.</summary>
    PipeRead,

    /// <summary>
    /// A synchronous File.ReadAllBytes of a FIFO (mkfifo) whose writer answers after the delay: a file read that blocks
    /// as one on a slow or network mount does, with the same frames (File, RandomAccess, a read syscall); a file on the
    /// local disk does not block long enough to starve anything.
    /// </summary>
    FileRead,
}

/// <summary>One generated service's dimensions: its entry, its wait, how many calls below the entry the wait is, and whether those methods ask the JIT to inline them.</summary>
public sealed record ServiceShape(int Index, Entry Entry, Wait Wait, int Depth, bool Inlined)
{
    public string Name => $"Svc{Index:00}{Entry}{Wait}D{Depth}{(Inlined ? "I" : "")}";
}

/// <summary>What a right diagnosis says: the method that blocks (source words), the file and line of its blocking call, the route (null: none, a background service), and the primitives that name the wait rightly.</summary>
public sealed record ExpectedCallSite(string Method, string File, int Line, string? Route, IReadOnlyList<string> Primitives)
{
    /// <summary>
    /// The call is in middleware, which runs for every request: a right diagnosis says so (<see cref="BlockingCall.EveryRequest"/>),
    /// with <see cref="Route"/> the loaded request's, rather than calling it the code of the loaded route's handler.
    /// </summary>
    public bool EveryRequest { get; init; }

    /// <summary>
    /// The line before <see cref="Line"/> where the threads also wait, when they do (a stream read's: the synchronous
    /// HttpClient.Send that opens the stream waits for a connection SocketsHttpHandler opens on the starved pool's
    /// threads), with the primitive that names that wait; null when only <see cref="Line"/> waits.
    /// </summary>
    public (int Line, string Primitive)? AlsoWaits { get; init; }
}

/// <summary>A generated service: its shape, its source files by name, the path the load requests, and what a right diagnosis says.</summary>
public sealed record GeneratedService(ServiceShape Shape, IReadOnlyDictionary<string, string> Files, string RequestPath, ExpectedCallSite Expected);

/// <summary>
/// Composes small ASP.NET Core services from the dimensions of issue 37 item 4, with a seed, so the benchmark's shapes
/// are not the ones anybody hand-picked: an entry (controller with an injected interface service, attribute-route tokens,
/// minimal-API lambda, method group, route group, middleware, background service, an MVC action filter, an endpoint filter
/// class, a generic base repository, ...), a wait, a depth of 0-3 calls below
/// the entry, with or without AggressiveInlining on those calls, and names drawn from lists. Every service also holds
/// decoys that make the same blocking call but never run under the load (a DI factory run at start-up, an endpoint the
/// load does not request): a diagnosis that names one of them is wrong.
/// </summary>
public static class ServiceGenerator
{
    private const int DelayMs = 200;
    private const int HeldMs = 50;
    private const int BackgroundWorkers = 8;

    internal static readonly string[] Resources = ["orders", "invoices", "quotes", "parcels", "tickets", "accounts", "shipments", "payments", "refunds", "bookings"];
    internal static readonly string[] Verbs = ["Price", "Load", "Fetch", "Check", "Resolve", "Compute", "Lookup", "Reserve", "Rate", "Settle", "Verify", "Gather"];
    private static readonly string[] Actions = ["Details", "Summary", "Status", "Lines"];

    /// <summary>
    /// <paramref name="count"/> services from <paramref name="seed"/>: the entry x wait grid in a seeded order (every
    /// pair once before any repeats), each with a seeded depth, inlining and names.
    /// </summary>
    public static IReadOnlyList<GeneratedService> Compose(int seed, int count)
    {
        var random = new Random(seed);
        var grid = Enum.GetValues<Entry>().SelectMany(e => Enum.GetValues<Wait>().Select(w => (Entry: e, Wait: w))).OrderBy(_ => random.Next()).ToList();
        return [.. Enumerable.Range(0, count).Select(i => Generate(new ServiceShape(i, grid[i % grid.Count].Entry, grid[i % grid.Count].Wait, random.Next(4), random.Next(2) == 0), random))];
    }

    /// <summary>The primitives the diagnosis may rightly name for a wait (a stream read shows the socket read below it).</summary>
    public static IReadOnlyList<string> Primitives(Wait wait) => wait switch
    {
        Wait.Result or Wait.TaskRunResult => [BlockingPrimitive.Result],
        Wait.Wait => [BlockingPrimitive.Wait],
        Wait.GetResult => [BlockingPrimitive.GetResult],
        Wait.WaitAll => [BlockingPrimitive.WaitAll],
        Wait.HttpSend => [BlockingPrimitive.HttpSend],
        Wait.Sleep => [BlockingPrimitive.Sleep],
        Wait.Lock => [BlockingPrimitive.Lock],
        Wait.Semaphore => [BlockingPrimitive.Semaphore],
        Wait.StreamRead => [BlockingPrimitive.StreamRead, BlockingPrimitive.SocketIo],
        // ReadExactly on the pipe, or the pipe's read below it when the JIT inlined ReadExactly's frames.
        Wait.PipeRead => [BlockingPrimitive.StreamRead, BlockingPrimitive.PipeRead],
        Wait.FileRead => [BlockingPrimitive.FileIo],
        _ => throw new ArgumentOutOfRangeException(nameof(wait)),
    };

    /// <summary>The statement that blocks, on one line (a lock's or a semaphore's with the work it guards).</summary>
    private static string Blocking(Wait wait) => wait switch
    {
        Wait.Result => "var value = Slow.DelayAsync(id).Result;",
        Wait.Wait => "Slow.DelayAsync(id).Wait();",
        Wait.GetResult => "var value = Slow.DelayAsync(id).GetAwaiter().GetResult();",
        Wait.TaskRunResult => "var value = Task.Run(() => Slow.DelayAsync(id)).Result;",
        Wait.WaitAll => "Task.WaitAll(Slow.DelayAsync(id), Slow.DelayAsync(id + 1));",
        Wait.HttpSend => "using var response = Upstream.Http.Send(new HttpRequestMessage(HttpMethod.Get, Upstream.Slow));",
        Wait.Sleep => "Thread.Sleep(Slow.DelayMs);",
        Wait.Lock => "lock (Slow.Gate) { Thread.Sleep(Slow.HeldMs); }",
        Wait.Semaphore => "Slow.Permits.Wait(); try { Thread.Sleep(Slow.HeldMs); } finally { Slow.Permits.Release(); }",
        Wait.StreamRead => "response.Content.ReadAsStream().ReadExactly(new byte[2]);",
        Wait.PipeRead => "using (var pipe = Local.Pipe()) { pipe.ReadExactly(new byte[2]); }",
        Wait.FileRead => "var bytes = File.ReadAllBytes(Local.Fifo());",
        _ => throw new ArgumentOutOfRangeException(nameof(wait)),
    };

    // A stream read's response comes first: its headers at once, its body after the delay.
    private static string? BeforeBlocking(Wait wait) => wait == Wait.StreamRead
        ? "using var response = Upstream.Http.Send(new HttpRequestMessage(HttpMethod.Get, Upstream.Streamed), HttpCompletionOption.ResponseHeadersRead);"
        : null;

    private static GeneratedService Generate(ServiceShape shape, Random random)
    {
        var resource = Resources[random.Next(Resources.Length)];
        var type = char.ToUpperInvariant(resource[0]) + resource[1..];
        var verbs = Verbs.OrderBy(_ => random.Next()).Take(shape.Depth).ToList();
        var action = Actions[random.Next(Actions.Length)];
        var files = new Dictionary<string, string>();
        var controller = shape.Entry is Entry.Controller or Entry.ControllerTokens or Entry.Conventional or Entry.ActionFilter;
        var mvc = controller || shape.Entry == Entry.GenericRepository;
        // The chain of calls below the entry: in the injected service for a controller, else in a static class.
        var chainType = controller ? $"{type}Service" : $"{type}Work";
        var chain = Chain(shape, chainType, verbs, controller);
        files["Chain.cs"] = chain.Text;
        files["Support.cs"] = Support(shape.Wait);

        // The entry: its file, the method that blocks when the depth is 0, its route and the path the load requests.
        var entryCall = shape.Depth == 0 ? null : controller ? $"service.{verbs[0]}(id)" : $"{chainType}.{verbs[0]}(id)";
        string? route;
        string path;
        string entryFile;
        string entryMethod;
        int entryLine;
        var program = new SourceWriter();
        program.Line("var builder = WebApplication.CreateBuilder(args);");
        program.Line("builder.Logging.SetMinimumLevel(LogLevel.Warning);");
        if (mvc)
        {
            program.Line(shape.Entry == Entry.ActionFilter ? $"builder.Services.AddControllers(options => options.Filters.Add<{type}Filter>());" : "builder.Services.AddControllers();");
        }
        if (controller)
        {
            program.Line($"builder.Services.AddSingleton<I{chainType}, {chainType}>();");
        }
        if (shape.Entry == Entry.GenericRepository)
        {
            program.Line($"builder.Services.AddScoped<I{type}Repository, {type}Repository>();");
        }
        if (shape.Entry == Entry.Background)
        {
            program.Line($"builder.Services.AddHostedService<{type}Worker>();");
        }
        if (shape.Entry == Entry.RazorPage)
        {
            program.Line("builder.Services.AddRazorPages();");
        }
        program.Line("// Decoys: a DI factory that runs once at start-up and an endpoint the load never requests, both making the same blocking call.");
        program.Line("builder.Services.AddSingleton(_ => new StartupCheck(Decoys.Warm(1)));");
        program.Line("var app = builder.Build();");
        program.Line("_ = app.Services.GetRequiredService<StartupCheck>();");
        if (shape.Entry == Entry.Middleware)
        {
            program.Line($"app.UseMiddleware<{type}Middleware>();");
        }
        // The loopback upstream's own requests pass through the middleware too: they must not wait on themselves.
        const string skipUpstream = "if (context.Request.Path.StartsWithSegments(\"/upstream\"))";
        const string idOfPath = "var id = context.Request.Path.Value!.Length;";

        if (shape.Entry == Entry.Conventional)
        {
            program.Line("app.MapControllerRoute(\"default\", \"{controller=Home}/{action=Index}/{id?}\");");
        }
        else if (mvc)
        {
            program.Line("app.MapControllers();");
        }
        if (shape.Entry == Entry.RazorPage)
        {
            program.Line("app.MapRazorPages();");
        }
        switch (shape.Entry)
        {
            case Entry.Controller or Entry.ControllerTokens:
                var tokens = shape.Entry == Entry.ControllerTokens;
                var source = new SourceWriter();
                source.Line("using Microsoft.AspNetCore.Mvc;");
                source.Line("");
                source.Line("[ApiController]");
                source.Line(tokens ? "[Route(\"api/[controller]\")]" : $"[Route(\"{resource}\")]");
                source.Line($"public sealed class {type}Controller(I{chainType} service) : ControllerBase");
                source.Line("{");
                source.Line(tokens ? "    [HttpGet(\"[action]/{id:int}\")]" : "    [HttpGet(\"{id:int}\")]");
                var actionName = tokens ? action : "Get";
                entryLine = Body(source, $"    public int {actionName}(int id)", entryCall, shape.Wait, "    ");
                source.Line("}");
                files[$"{type}Controller.cs"] = source.Text;
                entryFile = $"{type}Controller.cs";
                entryMethod = $"{type}Controller.{actionName}";
                route = tokens ? $"GET /api/{type}/{action}/{{id:int}}" : $"GET /{resource}/{{id:int}}";
                path = tokens ? $"/api/{type}/{action}/1" : $"/{resource}/1";
                break;
            case Entry.Conventional:
                var conventional = new SourceWriter();
                conventional.Line("using Microsoft.AspNetCore.Mvc;");
                conventional.Line("");
                conventional.Line($"public sealed class {type}Controller(I{chainType} service) : ControllerBase");
                conventional.Line("{");
                conventional.Line("    [HttpGet]");
                entryLine = Body(conventional, $"    public int {action}(int id)", entryCall, shape.Wait, "    ");
                conventional.Line("}");
                files[$"{type}Controller.cs"] = conventional.Text;
                entryFile = $"{type}Controller.cs";
                entryMethod = $"{type}Controller.{action}";
                route = $"GET /{type}/{action}/{{id?}}";
                path = $"/{type}/{action}/1";
                break;
            case Entry.RazorPage:
                files[$"Pages/{type}/{action}.cshtml"] = $"@page \"{{id:int}}\"\n@model {type}{action}Model\n";
                var page = new SourceWriter();
                page.Line("using Microsoft.AspNetCore.Mvc;");
                page.Line("using Microsoft.AspNetCore.Mvc.RazorPages;");
                page.Line("");
                page.Line($"public sealed class {type}{action}Model : PageModel");
                page.Line("{");
                entryLine = Body(page, "    public IActionResult OnGet(int id)", entryCall, shape.Wait, "    ", last: "return Content(id.ToString(System.Globalization.CultureInfo.InvariantCulture));");
                page.Line("}");
                files[$"Pages/{type}/{action}.cshtml.cs"] = page.Text;
                entryFile = $"{action}.cshtml.cs";
                entryMethod = $"{type}{action}Model.OnGet";
                route = $"GET /{type}/{action}/{{id:int}}";
                path = $"/{type}/{action}/1";
                break;
            case Entry.ActionFilter:
                files[$"{type}Controller.cs"] = PassingController(type, resource, "", "id");
                var actionFilter = new SourceWriter();
                actionFilter.Line("using Microsoft.AspNetCore.Mvc.Filters;");
                actionFilter.Line("");
                actionFilter.Line($"public sealed class {type}Filter(I{chainType} service) : IActionFilter");
                actionFilter.Line("{");
                entryLine = Body(actionFilter, "    public void OnActionExecuting(ActionExecutingContext context)", entryCall, shape.Wait, "    ",
                    last: "context.HttpContext.Items[\"checked\"] = id;", id: "var id = context.HttpContext.Request.Path.Value!.Length;");
                actionFilter.Line("");
                actionFilter.Line("    public void OnActionExecuted(ActionExecutedContext context)");
                actionFilter.Line("    {");
                actionFilter.Line("    }");
                actionFilter.Line("}");
                files[$"{type}Filter.cs"] = actionFilter.Text;
                entryFile = $"{type}Filter.cs";
                entryMethod = $"{type}Filter.OnActionExecuting";
                route = $"GET /{resource}/{{id:int}}";
                path = $"/{resource}/1";
                break;
            case Entry.BlockingEndpointFilter:
                program.Line($"app.MapGet(\"/{resource}/{{id:int}}\", (int id) => id)");
                program.Line($"    .AddEndpointFilter<{type}Filter>();");
                var endpointFilter = new SourceWriter();
                endpointFilter.Line($"public sealed class {type}Filter : IEndpointFilter");
                endpointFilter.Line("{");
                const string filterId = "var id = context.HttpContext.Request.Path.Value!.Length;";
                entryLine = random.Next(2) == 0
                    ? Body(endpointFilter, "    public ValueTask<object?> InvokeAsync(EndpointFilterInvocationContext context, EndpointFilterDelegate next)", entryCall, shape.Wait, "    ",
                        last: "return next(context);", id: filterId)
                    : Body(endpointFilter, "    public async ValueTask<object?> InvokeAsync(EndpointFilterInvocationContext context, EndpointFilterDelegate next)", entryCall, shape.Wait, "    ",
                        last: "return await next(context);", id: filterId);
                endpointFilter.Line("}");
                files[$"{type}Filter.cs"] = endpointFilter.Text;
                entryFile = $"{type}Filter.cs";
                entryMethod = $"{type}Filter.InvokeAsync";
                route = $"GET /{resource}/{{id:int}}";
                path = $"/{resource}/1";
                break;
            case Entry.GenericRepository:
                files[$"{type}Controller.cs"] = PassingController(type, resource, $"(I{type}Repository repository)", "repository.Get(id).Id");
                var repository = new SourceWriter();
                repository.Line("public abstract class RepositoryBase<TEntity> where TEntity : new()");
                repository.Line("{");
                entryLine = Body(repository, "    public TEntity Get<TKey>(TKey key) where TKey : notnull", entryCall, shape.Wait, "    ",
                    last: "return new TEntity();", id: "var id = key.GetHashCode();");
                repository.Line("}");
                repository.Line("");
                repository.Line($"public sealed class {type}Record");
                repository.Line("{");
                repository.Line("    public int Id { get; set; }");
                repository.Line("}");
                repository.Line("");
                repository.Line($"public interface I{type}Repository");
                repository.Line("{");
                repository.Line($"    {type}Record Get<TKey>(TKey key) where TKey : notnull;");
                repository.Line("}");
                repository.Line("");
                repository.Line($"public sealed class {type}Repository : RepositoryBase<{type}Record>, I{type}Repository;");
                files["Repository.cs"] = repository.Text;
                entryFile = "Repository.cs";
                entryMethod = "RepositoryBase.Get";
                route = $"GET /{resource}/{{id:int}}";
                path = $"/{resource}/1";
                break;
            case Entry.MinimalLambda or Entry.FilteredLambda:
                entryLine = Body(program, $"app.MapGet(\"/{resource}/{{id:int}}\", (int id) =>", entryCall, shape.Wait, "",
                    shape.Entry == Entry.FilteredLambda ? ")\n    .AddEndpointFilter(async (context, next) => await next(context));" : ");");
                entryFile = "Program.cs";
                entryMethod = "the lambda in Program (top-level statements)";
                route = $"GET /{resource}/{{id:int}}";
                path = $"/{resource}/1";
                break;
            case Entry.MethodGroup:
                program.Line($"app.MapGet(\"/{resource}/{{id:int}}\", {type}Handlers.Get);");
                var handlers = new SourceWriter();
                handlers.Line($"public static class {type}Handlers");
                handlers.Line("{");
                entryLine = Body(handlers, "    public static int Get(int id)", entryCall, shape.Wait, "    ");
                handlers.Line("}");
                files[$"{type}Handlers.cs"] = handlers.Text;
                entryFile = $"{type}Handlers.cs";
                entryMethod = $"{type}Handlers.Get";
                route = $"GET /{resource}/{{id:int}}";
                path = $"/{resource}/1";
                break;
            case Entry.RouteGroup or Entry.LibraryRouteGroup:
                program.Line(shape.Entry == Entry.LibraryRouteGroup && random.Next(2) == 0 ? $"{type}Endpoints.Map{type}(app.MapGroup(\"/api\"));" : $"app.MapGroup(\"/api\").Map{type}();");
                var endpoints = new SourceWriter();
                endpoints.Line($"public static class {type}Endpoints");
                endpoints.Line("{");
                endpoints.Line($"    public static RouteGroupBuilder Map{type}(this IEndpointRouteBuilder app)");
                endpoints.Line("    {");
                endpoints.Line($"        var group = app.MapGroup(\"/{resource}\");");
                entryLine = Body(endpoints, "        group.MapGet(\"/{id:int}\", (int id) =>", entryCall, shape.Wait, "        ", ");");
                endpoints.Line("        return group;");
                endpoints.Line("    }");
                endpoints.Line("}");
                files[$"{type}Endpoints.cs"] = endpoints.Text;
                entryFile = $"{type}Endpoints.cs";
                entryMethod = $"the lambda in {type}Endpoints.Map{type}";
                route = $"GET /api/{resource}/{{id:int}}";
                path = $"/api/{resource}/1";
                break;
            case Entry.Middleware:
                program.Line($"app.MapGet(\"/{resource}/{{id:int}}\", (int id) => id);");
                var middleware = new SourceWriter();
                middleware.Line($"public sealed class {type}Middleware(RequestDelegate next)");
                middleware.Line("{");
                entryLine = random.Next(2) == 0
                    ? Body(middleware, "    public Task InvokeAsync(HttpContext context)", entryCall, shape.Wait, "    ", last: "return next(context);",
                        id: $"{skipUpstream} return next(context);\n        {idOfPath}")
                    : Body(middleware, "    public async Task InvokeAsync(HttpContext context)", entryCall, shape.Wait, "    ", last: "await next(context);",
                        id: $"{skipUpstream}\n        {{\n            await next(context);\n            return;\n        }}\n        {idOfPath}");
                middleware.Line("}");
                files[$"{type}Middleware.cs"] = middleware.Text;
                entryFile = $"{type}Middleware.cs";
                entryMethod = $"{type}Middleware.InvokeAsync";
                route = $"GET /{resource}/{{id:int}}";
                path = $"/{resource}/1";
                break;
            case Entry.MiddlewareLambda:
                entryLine = Body(program, "app.Use(async (context, next) =>", entryCall, shape.Wait, "", ");", last: "await next(context);",
                    id: $"{skipUpstream}\n    {{\n        await next(context);\n        return;\n    }}\n    {idOfPath}");
                program.Line($"app.MapGet(\"/{resource}/{{id:int}}\", (int id) => id);");
                entryFile = "Program.cs";
                entryMethod = "the lambda in Program (top-level statements)";
                route = $"GET /{resource}/{{id:int}}";
                path = $"/{resource}/1";
                break;
            default:
                program.Line($"app.MapGet(\"/{resource}/{{id:int}}\", (int id) => id);");
                var worker = new SourceWriter();
                worker.Line("using Microsoft.AspNetCore.Hosting.Server;");
                worker.Line("using Microsoft.AspNetCore.Hosting.Server.Features;");
                worker.Line("");
                worker.Line($"public sealed class {type}Worker(IHostApplicationLifetime lifetime, IServer server) : BackgroundService");
                worker.Line("{");
                worker.Line("    protected override Task ExecuteAsync(CancellationToken stoppingToken)");
                worker.Line("    {");
                worker.Line("        // Once the server listens: the loopback upstream's address is known then.");
                worker.Line("        lifetime.ApplicationStarted.Register(() =>");
                worker.Line("        {");
                worker.Line("            Upstream.Address ??= new Uri(server.Features.Get<IServerAddressesFeature>()!.Addresses.First() + \"/\");");
                worker.Line($"            for (var i = 0; i < {BackgroundWorkers}; i++)");
                worker.Line("            {");
                worker.Line("                ThreadPool.QueueUserWorkItem(_ => Drain(stoppingToken));");
                worker.Line("            }");
                worker.Line("        });");
                worker.Line("        return Task.CompletedTask;");
                worker.Line("    }");
                worker.Line("");
                worker.Line("    private static void Drain(CancellationToken stoppingToken)");
                worker.Line("    {");
                worker.Line("        var id = 1;");
                worker.Line("        while (!stoppingToken.IsCancellationRequested)");
                worker.Line("        {");
                if (entryCall is not null)
                {
                    entryLine = worker.Line($"            {entryCall};");
                }
                else
                {
                    if (BeforeBlocking(shape.Wait) is { } before)
                    {
                        worker.Line($"            {before}");
                    }
                    entryLine = worker.Line($"            {Blocking(shape.Wait)}");
                }
                worker.Line("        }");
                worker.Line("    }");
                worker.Line("}");
                files[$"{type}Worker.cs"] = worker.Text;
                entryFile = $"{type}Worker.cs";
                entryMethod = $"{type}Worker.Drain";
                route = null;
                path = $"/{resource}/1";
                break;
        }
        program.Line("app.MapGet(\"/upstream/slow\", async () => { await Task.Delay(Slow.DelayMs); return \"ok\"; });");
        program.Line("app.MapGet(\"/decoy/{id:int}\", (int id) => Decoys.Warm(id));");
        program.Line($"app.Lifetime.ApplicationStarted.Register(() => {{ Upstream.Address = new Uri(app.Urls.First() + \"/\"); Console.WriteLine($\"{shape.Name} ready: {{string.Join(' ', app.Urls)}} pid {{Environment.ProcessId}}\"); }});");
        program.Line("app.Run();");
        program.Line("");
        program.Line("internal sealed record StartupCheck(int Value);");
        files["Decoys.cs"] = Decoys(shape.Wait);
        if (shape.Entry == Entry.LibraryRouteGroup)
        {
            files = InLibrary(shape.Name, files);
        }
        files["Program.cs"] = program.Text;

        var expected = (shape.Depth == 0
            ? new ExpectedCallSite(entryMethod, entryFile, entryLine, route, Primitives(shape.Wait))
            : new ExpectedCallSite(chain.Method, "Chain.cs", chain.Line, route, Primitives(shape.Wait))) with
            {
                EveryRequest = shape.Entry is Entry.Middleware or Entry.MiddlewareLambda,
                // BeforeBlocking's Send is the line right above the read.
                AlsoWaits = BeforeBlocking(shape.Wait) is null ? null : (shape.Depth == 0 ? entryLine - 1 : chain.Line - 1, BlockingPrimitive.HttpSend),
            };
        return new GeneratedService(shape, files, path, expected);
    }

    /// <summary>A controller whose action makes no wait of its own: it returns <paramref name="result"/>, its constructor taking <paramref name="parameters"/>.</summary>
    private static string PassingController(string type, string resource, string parameters, string result) => $$"""
        using Microsoft.AspNetCore.Mvc;

        [ApiController]
        [Route("{{resource}}")]
        public sealed class {{type}}Controller{{parameters}} : ControllerBase
        {
            [HttpGet("{id:int}")]
            public int Get(int id) => {{result}};
        }
        """;

    /// <summary>
    /// Every file moved to a class library beside the service (keys under "../NameLib/", its project among them), which
    /// the service's project references (<see cref="DiagnosisBenchmark"/> writes a reference to each project it is given).
    /// </summary>
    private static Dictionary<string, string> InLibrary(string name, IReadOnlyDictionary<string, string> files)
    {
        var library = $"../{name}Lib/";
        var moved = files.ToDictionary(f => library + f.Key, f => f.Value);
        moved[$"{library}{name}Lib.csproj"] = DiagnosisBenchmark.Project("Microsoft.NET.Sdk",
        [
            "<FrameworkReference Include=\"Microsoft.AspNetCore.App\" />", "<Using Include=\"Microsoft.AspNetCore.Builder\" />",
            "<Using Include=\"Microsoft.AspNetCore.Http\" />", "<Using Include=\"Microsoft.AspNetCore.Routing\" />",
        ]);
        return moved;
    }

    /// <summary>
    /// A method's body: a call to the chain's first method, or (depth 0) the blocking statement; returns the line of
    /// that call or statement. <paramref name="header"/> opens it; <paramref name="id"/> (statements that declare it)
    /// comes first, <paramref name="last"/> closes it; a lambda's closes with <paramref name="close"/>.
    /// </summary>
    private static int Body(SourceWriter writer, string header, string? call, Wait wait, string indent, string close = "", string last = "return id;", string? id = null)
    {
        writer.Line(header);
        writer.Line($"{indent}{{");
        if (id is not null)
        {
            writer.Line($"{indent}    {id}");
        }
        int line;
        if (call is not null)
        {
            line = writer.Line($"{indent}    var result = {call};");
        }
        else
        {
            if (BeforeBlocking(wait) is { } before)
            {
                writer.Line($"{indent}    {before}");
            }
            line = writer.Line($"{indent}    {Blocking(wait)}");
        }
        writer.Line($"{indent}    {last}");
        writer.Line($"{indent}}}{close}");
        return line;
    }

    /// <summary>The calls below the entry, the last one blocking: the method that blocks, its line, and the file's text.</summary>
    private static (string Text, string Method, int Line) Chain(ServiceShape shape, string chainType, IReadOnlyList<string> verbs, bool injected) =>
        Chain(chainType, verbs, injected, shape.Inlined, async: false, (writer, header) =>
        {
            writer.Line(header);
            writer.Line("    {");
            if (BeforeBlocking(shape.Wait) is { } before)
            {
                writer.Line($"        {before}");
            }
            var line = writer.Line($"        {Blocking(shape.Wait)}");
            writer.Line("        return id;");
            writer.Line("    }");
            return line;
        });

    /// <summary>
    /// A chain of calls below an entry, in an injected service (an interface with the first method) or a static class,
    /// each calling the next (awaiting it when <paramref name="async"/>); <paramref name="last"/> writes the last one's
    /// body under its header and returns the line that does the work. Returns the file's text, that method and line.
    /// </summary>
    internal static (string Text, string Method, int Line) Chain(string chainType, IReadOnlyList<string> verbs, bool injected, bool inlined, bool async, Func<SourceWriter, string, int> last)
    {
        var (returns, awaits) = async ? ("async Task<int>", "await ") : ("int", "");
        var writer = new SourceWriter();
        writer.Line("using System.Runtime.CompilerServices;");
        writer.Line("");
        if (injected)
        {
            writer.Line($"public interface I{chainType}");
            writer.Line("{");
            writer.Line($"    {(async ? "Task<int>" : "int")} {verbs.FirstOrDefault() ?? "Unused"}(int id);");
            writer.Line("}");
            writer.Line("");
            writer.Line($"public sealed class {chainType} : I{chainType}");
        }
        else
        {
            writer.Line($"public static class {chainType}");
        }
        writer.Line("{");
        var modifier = injected ? "" : "static ";
        var workLine = 0;
        if (injected && verbs.Count == 0)
        {
            writer.Line(async ? "    public Task<int> Unused(int id) => Task.FromResult(id);" : "    public int Unused(int id) => id;");
        }
        for (var i = 0; i < verbs.Count; i++)
        {
            if (inlined)
            {
                writer.Line("    [MethodImpl(MethodImplOptions.AggressiveInlining)]");
            }
            var access = i == 0 ? "public" : "private";
            if (i < verbs.Count - 1)
            {
                writer.Line($"    {access} {modifier}{returns} {verbs[i]}(int id) => {awaits}{verbs[i + 1]}(id) + 1;");
                continue;
            }
            workLine = last(writer, $"    {access} {modifier}{returns} {verbs[i]}(int id)");
        }
        writer.Line("}");
        return (writer.Text, verbs.Count > 0 ? $"{chainType}.{verbs[^1]}" : "", workLine);
    }

    /// <summary>The waits' shared pieces: the async delay, the gate, the permits, the loopback upstream, the local pipe and FIFO.</summary>
    private static string Support(Wait wait) => $$"""
        public static class Slow
        {
            public const int DelayMs = {{DelayMs}};
            public const int HeldMs = {{HeldMs}};
            public static readonly object Gate = new();
            public static readonly SemaphoreSlim Permits = new(1, 1);

            public static async Task<int> DelayAsync(int id)
            {
                await Task.Delay(DelayMs);
                return id;
            }
        }

        public static class Upstream
        {
            public static readonly HttpClient Http = new();

            // Its headers at once and its body after the delay, from threads of its own: the pool the service starves
            // does not hold up the headers, so a stream read waits for the body, not the send for the headers.
            public static readonly Uri Streamed = StartStreamed();

            public static Uri? Address { get; set; }
            public static Uri Slow => new(Address!, "upstream/slow");

            private static Uri StartStreamed()
            {
                var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
                listener.Start();
                new Thread(() =>
                {
                    while (true)
                    {
                        var client = listener.AcceptTcpClient();
                        new Thread(() => Answer(client)) { IsBackground = true }.Start();
                    }
                }) { IsBackground = true }.Start();
                return new Uri($"http://127.0.0.1:{((System.Net.IPEndPoint)listener.LocalEndpoint).Port}/streamed");
            }

            // Kept alive, each request answered in turn: a connection is opened once per user, not per request (a new one
            // is opened by SocketsHttpHandler on the pool's threads, which a starved pool holds up: the Send then waits).
            private static void Answer(System.Net.Sockets.TcpClient client)
            {
                using (client)
                {
                    var stream = client.GetStream();
                    var request = "";
                    var buffer = new byte[4096];
                    while (true)
                    {
                        var end = request.IndexOf("\r\n\r\n", StringComparison.Ordinal);
                        if (end >= 0)
                        {
                            request = request[(end + 4)..];
                            stream.Write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"u8);
                            Thread.Sleep(global::Slow.DelayMs);
                            stream.Write("ok"u8);
                            continue;
                        }
                        var read = stream.Read(buffer);
                        if (read == 0)
                        {
                            return;
                        }
                        request += System.Text.Encoding.ASCII.GetString(buffer, 0, read);
                    }
                }
            }
        }

        // A local producer answering after the delay from a thread of its own, as a child process or a sidecar does: the
        // pool the service starves does not hold it up, so a read waits for the delay alone.
        public static class Local
        {
            public static System.IO.Pipes.AnonymousPipeServerStream Pipe()
            {
                var pipe = new System.IO.Pipes.AnonymousPipeServerStream(System.IO.Pipes.PipeDirection.In);
                var writer = pipe.ClientSafePipeHandle;
                Answer(() => new System.IO.Pipes.AnonymousPipeClientStream(System.IO.Pipes.PipeDirection.Out, writer));
                return pipe;
            }

            // A new FIFO per read, unlinked once written: its reader's open waits for the writer's, its read for the bytes.
            public static string Fifo()
            {
                var path = Path.Combine(Path.GetTempPath(), $"fifo-{Environment.ProcessId}-{Guid.NewGuid():N}");
                if (mkfifo(path, 0x180) != 0)
                {
                    throw new IOException($"mkfifo {path}: errno {System.Runtime.InteropServices.Marshal.GetLastPInvokeError()}");
                }
                Answer(() => new FileStream(path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite), () => File.Delete(path));
                return path;
            }

            private static void Answer(Func<Stream> open, Action? done = null) => new Thread(() =>
            {
                using (var stream = open())
                {
                    Thread.Sleep(global::Slow.DelayMs);
                    stream.Write("ok"u8);
                }
                done?.Invoke();
            }) { IsBackground = true }.Start();

            [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
            private static extern int mkfifo(string path, uint mode);
        }
        """;

    /// <summary>The same blocking call in code that never runs under the load.</summary>
    private static string Decoys(Wait wait)
    {
        var before = BeforeBlocking(wait) is { } b ? $"{b}\n        " : "";
        // At start-up the upstream is not serving yet: the decoy's network waits are not made then.
        var network = wait is Wait.HttpSend or Wait.StreamRead;
        return $$"""
            public static class Decoys
            {
                public static int Warm(int id)
                {
                    if ({{(network ? "Upstream.Address is null" : "id < 0")}})
                    {
                        return id;
                    }
                    {{before}}{{Blocking(wait)}}
                    return id;
                }
            }
            """;
    }

    /// <summary>Lines of a source file, counting them so the generator knows where each statement is.</summary>
    internal sealed class SourceWriter
    {
        private readonly List<string> _lines = [];

        /// <summary>Adds a line (or several, split at newlines); returns the 1-based number of the last.</summary>
        public int Line(string text)
        {
            _lines.AddRange(text.Split('\n'));
            return _lines.Count;
        }

        public string Text => string.Join('\n', _lines) + "\n";
    }
}
