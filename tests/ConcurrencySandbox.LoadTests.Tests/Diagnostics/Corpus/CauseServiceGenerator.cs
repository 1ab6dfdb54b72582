using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics.Corpus;

/// <summary>What breaks a generated cause service (issue 38 item 6): work that runs on a core and waits on nothing, or a dependency that is slow.</summary>
public enum Cause
{
    /// <summary>SHA-256 rounds, a few ms of a core per request, no wait of any kind.</summary>
    Cpu,

    /// <summary>A text built by string concatenation in a loop: a few MB of garbage per request.</summary>
    Allocation,

    /// <summary>An awaited call through IHttpClientFactory to an upstream that serves 2 requests at a time.</summary>
    Upstream,

    /// <summary>SHA-256 rounds, then the awaited upstream call: two causes, either is a right first.</summary>
    CpuAndUpstream,

    /// <summary>A catastrophically backtracking Regex (nested quantifiers) on a name that almost matches: a core's work, most of it in the Regex engine below the method (issue 38, the cold service Vetting).</summary>
    CpuRegex,

    /// <summary>LINQ over a large list per request: a copy of 200,000 records and a projection of a quarter of them, a few MB a request, much of it on the large-object heap (issue 38, the cold service Rollup).</summary>
    AllocationLinq,

    /// <summary>The awaited upstream call through a named client whose DelegatingHandler retries the upstream's 503s (one call in 7) (issue 38, the cold service Shipping).</summary>
    UpstreamRetry,

    /// <summary>
    /// An awaited "database" that is not HTTP (2 connections, 50 ms a query): the upstream, which no HTTP call names (issue 38,
    /// the cold service Vault's shape); or, as it is simulated inside the process and holds no TCP connection, a wait inside the service.
    /// </summary>
    Database,

    /// <summary>
    /// Five checks of about equal CPU (a sort, primes, SHA-256 rounds, a dictionary, square roots), each a method of its
    /// own: the CPU with no one method dominating, and native code (the crypto library's, below SHA256.HashData, which
    /// allocates each hash) that is no allocator's (issue 38, the cold service Spread).
    /// </summary>
    CpuSpread,
}

/// <summary>One generated cause service's dimensions: its entry (the handler shapes that serve a request), its cause, how many calls below the entry the work is, and whether those methods ask the JIT to inline them.</summary>
public sealed record CauseShape(int Index, Entry Entry, Cause Cause, int Depth, bool Inlined)
{
    public string Name => $"Cause{Index:00}{Entry}{Cause}D{Depth}{(Inlined ? "I" : "")}";
}

/// <summary>
/// What a right finding says: one of <paramref name="Accepted"/> ranked first, each a cause as the report words it
/// ("CPU", "GC", "the upstream") with its place: the method that does the work (source words, as the report names it)
/// or the end of the call's name (the path template, "/upstream/quotes/{id}": the host's port is the run's); no place
/// for a dependency that is not HTTP, which no call names.
/// </summary>
public sealed record ExpectedCause(IReadOnlyList<(string Cause, string? Place)> Accepted, string File, int Line);

/// <summary>A generated cause service: its shape, its source files by name, the path the load requests, and what a right finding says.</summary>
public sealed record GeneratedCauseService(CauseShape Shape, IReadOnlyDictionary<string, string> Files, string RequestPath, ExpectedCause Expected);

/// <summary>
/// Composes small ASP.NET Core services that break by a cause other than blocking, from a seed: an entry (a controller
/// with an injected interface service, a minimal-API lambda, a method group, a lambda on a route group), a cause, a
/// depth of 0-3 async calls below the entry, with or without AggressiveInlining, and names drawn from the blocking
/// corpus's lists. Nothing in them blocks: a diagnosis that says "pool starvation", "make it async" or "raise the pool's
/// minimum" for one of them is the worst error (issue 38 item 1).
/// </summary>
public static class CauseServiceGenerator
{
    /// <summary>The entries that serve a request with a handler the generator can make async.</summary>
    public static readonly Entry[] Entries = [Entry.Controller, Entry.MinimalLambda, Entry.MethodGroup, Entry.RouteGroup];

    /// <summary>The report's words for each cause.</summary>
    public const string CpuCause = "CPU";
    public const string GcCause = "GC";
    public const string UpstreamCause = "the upstream";

    /// <summary>The causes of the first grid; those after them (from <see cref="Cause.CpuRegex"/>) come in a second grid, so a seed's first services stay what they were before those were added.</summary>
    private static readonly Cause[] FirstCauses = [Cause.Cpu, Cause.Allocation, Cause.Upstream, Cause.CpuAndUpstream];

    /// <summary>
    /// <paramref name="count"/> services from <paramref name="seed"/>: the entry x cause grid in a seeded order (every pair
    /// once before any repeats; the causes added later after the first grid's, in an order of their own), each with a
    /// seeded depth, inlining and names.
    /// </summary>
    public static IReadOnlyList<GeneratedCauseService> Compose(int seed, int count)
    {
        var random = new Random(seed);
        var later = new Random(seed + 38);
        List<(Entry Entry, Cause Cause)> Grid(IEnumerable<Cause> causes, Random order) => [.. Entries.SelectMany(e => causes.Select(c => (Entry: e, Cause: c))).OrderBy(_ => order.Next())];
        var grid = Grid(FirstCauses, random);
        grid.AddRange(Grid(Enum.GetValues<Cause>().Except(FirstCauses), later));
        return [.. Enumerable.Range(0, count).Select(i => Generate(new CauseShape(i, grid[i % grid.Count].Entry, grid[i % grid.Count].Cause, random.Next(4), random.Next(2) == 0), random))];
    }

    /// <summary>The work's statements, one a line; the index of the one the finding names (the loop that spends the core or allocates, or the upstream call).</summary>
    private static (string[] Lines, int Named) Work(Cause cause, string resource) => cause switch
    {
        Cause.Cpu => (["var digest = BitConverter.GetBytes(id);", "for (var round = 0; round < Work.Rounds; round++) { digest = System.Security.Cryptography.SHA256.HashData(digest); }", "id += digest[0] & 0;"], 1),
        Cause.Allocation => (["var text = \"\";", "for (var piece = 0; piece < Work.Pieces; piece++) { text += $\"line {id,8} {piece,6}: {piece * 31 % 977,8} units\\n\"; }", "id += text.Length & 0;"], 1),
        Cause.Upstream => ([$"id += (await Upstream.Factory!.CreateClient(Upstream.Name).GetStringAsync($\"upstream/{resource}/{{id}}\")).Length & 0;"], 0),
        Cause.CpuAndUpstream =>
        ([
            "var digest = BitConverter.GetBytes(id);", "for (var round = 0; round < Work.Rounds; round++) { digest = System.Security.Cryptography.SHA256.HashData(digest); }",
            $"id += (await Upstream.Factory!.CreateClient(Upstream.Name).GetStringAsync($\"upstream/{resource}/{{id}}\")).Length & digest[0] & 0;",
        ], 1),
        Cause.CpuRegex => (["var plausible = Names.Pattern.IsMatch(Names.AlmostAName);", "id += (plausible ? 1 : 0) & 0;"], 0),
        Cause.AllocationLinq => (["var copy = Ledger.Sales.ToList();", "var picked = copy.Where(s => s.Region == id % 4).Select(s => new { s.Product, Revenue = s.Quantity * s.Price }).ToList();", "id += picked.Count & 0;"], 0),
        Cause.UpstreamRetry => ([$"id += (await Upstream.Factory!.CreateClient(Upstream.RetryingName).GetStringAsync($\"upstream/{resource}/{{id}}\")).Length & 0;"], 0),
        Cause.Database => (["id += await Database.QueryAsync(id) & 0;"], 0),
        Cause.CpuSpread => (["id += (Checks.Sort(id) + Checks.Primes(id) + Checks.Hash(id) + Checks.Lookup(id) + Checks.Roots(id)) & 0;"], 0),
        _ => throw new ArgumentOutOfRangeException(nameof(cause)),
    };

    private static GeneratedCauseService Generate(CauseShape shape, Random random)
    {
        var resource = ServiceGenerator.Resources[random.Next(ServiceGenerator.Resources.Length)];
        var type = char.ToUpperInvariant(resource[0]) + resource[1..];
        var verbs = ServiceGenerator.Verbs.OrderBy(_ => random.Next()).Take(shape.Depth).ToList();
        var controller = shape.Entry == Entry.Controller;
        var chainType = controller ? $"{type}Service" : $"{type}Work";
        var (workLines, named) = Work(shape.Cause, resource);
        var files = new Dictionary<string, string>();
        var chain = ServiceGenerator.Chain(chainType, verbs, controller, shape.Inlined, async: true, (writer, header) => Body(writer, header, null, workLines, named, "    "));
        files["Chain.cs"] = chain.Text;
        files["Support.cs"] = Support;
        var entryCall = shape.Depth == 0 ? null : controller ? $"await service.{verbs[0]}(id)" : $"await {chainType}.{verbs[0]}(id)";

        var program = new ServiceGenerator.SourceWriter();
        program.Line("var builder = WebApplication.CreateBuilder(args);");
        program.Line("builder.Logging.SetMinimumLevel(LogLevel.Warning);");
        program.Line("builder.Services.AddHttpClient(Upstream.Name, http => http.BaseAddress = Upstream.Address);");
        if (shape.Cause == Cause.UpstreamRetry)
        {
            program.Line("builder.Services.AddTransient<RetryOnBusy>();");
            program.Line("builder.Services.AddHttpClient(Upstream.RetryingName, http => http.BaseAddress = Upstream.Address).AddHttpMessageHandler<RetryOnBusy>();");
        }
        if (controller)
        {
            program.Line("builder.Services.AddControllers();");
            program.Line($"builder.Services.AddSingleton<I{chainType}, {chainType}>();");
        }
        program.Line("var app = builder.Build();");
        program.Line("Upstream.Factory = app.Services.GetRequiredService<IHttpClientFactory>();");
        if (controller)
        {
            program.Line("app.MapControllers();");
        }
        string entryFile;
        string entryMethod;
        int entryLine;
        string path;
        switch (shape.Entry)
        {
            case Entry.Controller:
                var source = new ServiceGenerator.SourceWriter();
                source.Line("using Microsoft.AspNetCore.Mvc;");
                source.Line("");
                source.Line("[ApiController]");
                source.Line($"[Route(\"{resource}\")]");
                source.Line($"public sealed class {type}Controller(I{chainType} service) : ControllerBase");
                source.Line("{");
                source.Line("    [HttpGet(\"{id:int}\")]");
                entryLine = Body(source, "    public async Task<int> Get(int id)", entryCall, workLines, named, "    ");
                source.Line("}");
                files[$"{type}Controller.cs"] = source.Text;
                (entryFile, entryMethod, path) = ($"{type}Controller.cs", $"{type}Controller.Get", $"/{resource}/1");
                break;
            case Entry.MinimalLambda:
                entryLine = Body(program, $"app.MapGet(\"/{resource}/{{id:int}}\", async (int id) =>", entryCall, workLines, named, "", ");");
                (entryFile, entryMethod, path) = ("Program.cs", "the lambda in Program (top-level statements)", $"/{resource}/1");
                break;
            case Entry.MethodGroup:
                program.Line($"app.MapGet(\"/{resource}/{{id:int}}\", {type}Handlers.Get);");
                var handlers = new ServiceGenerator.SourceWriter();
                handlers.Line($"public static class {type}Handlers");
                handlers.Line("{");
                entryLine = Body(handlers, "    public static async Task<int> Get(int id)", entryCall, workLines, named, "    ");
                handlers.Line("}");
                files[$"{type}Handlers.cs"] = handlers.Text;
                (entryFile, entryMethod, path) = ($"{type}Handlers.cs", $"{type}Handlers.Get", $"/{resource}/1");
                break;
            default:
                program.Line($"app.MapGroup(\"/api\").Map{type}();");
                var endpoints = new ServiceGenerator.SourceWriter();
                endpoints.Line($"public static class {type}Endpoints");
                endpoints.Line("{");
                endpoints.Line($"    public static RouteGroupBuilder Map{type}(this IEndpointRouteBuilder app)");
                endpoints.Line("    {");
                endpoints.Line($"        var group = app.MapGroup(\"/{resource}\");");
                entryLine = Body(endpoints, "        group.MapGet(\"/{id:int}\", async (int id) =>", entryCall, workLines, named, "        ", ");");
                endpoints.Line("        return group;");
                endpoints.Line("    }");
                endpoints.Line("}");
                files[$"{type}Endpoints.cs"] = endpoints.Text;
                (entryFile, entryMethod, path) = ($"{type}Endpoints.cs", $"the lambda in {type}Endpoints.Map{type}", $"/api/{resource}/1");
                break;
        }
        // The slow dependency: the same process's loopback route, 2 requests at a time, 50 ms each (awaited: it holds no
        // thread); behind a retrying client, busy (503 at once) for one call in 7.
        program.Line(shape.Cause == Cause.UpstreamRetry
            ? $"app.MapGet(\"/upstream/{resource}/{{id:int}}\", async (int id) => {{ if (Upstream.Busy()) {{ return Results.StatusCode(503); }} await Upstream.Slots.WaitAsync(); try {{ await Task.Delay(Upstream.DelayMs); return Results.Ok(id); }} finally {{ Upstream.Slots.Release(); }} }});"
            : $"app.MapGet(\"/upstream/{resource}/{{id:int}}\", async (int id) => {{ await Upstream.Slots.WaitAsync(); try {{ await Task.Delay(Upstream.DelayMs); return id; }} finally {{ Upstream.Slots.Release(); }} }});");
        program.Line($"app.Lifetime.ApplicationStarted.Register(() => {{ Upstream.Address = new Uri(app.Urls.First() + \"/\"); Console.WriteLine($\"{shape.Name} ready: {{string.Join(' ', app.Urls)}} pid {{Environment.ProcessId}}\"); }});");
        program.Line("app.Run();");
        files["Program.cs"] = program.Text;

        var (method, file, line) = shape.Depth == 0 ? (entryMethod, entryFile, entryLine) : (chain.Method, "Chain.cs", chain.Line);
        var call = $"/upstream/{resource}/{{id}}";
        IReadOnlyList<(string, string?)> accepted = shape.Cause switch
        {
            Cause.Cpu or Cause.CpuRegex => [(CpuCause, method)],
            Cause.Allocation or Cause.AllocationLinq => [(GcCause, method)],
            Cause.Upstream or Cause.UpstreamRetry => [(UpstreamCause, call)],
            // Simulated inside the process (a semaphore and a delay), it holds no TCP connection: a wait inside the service is right too.
            Cause.Database => [(UpstreamCause, null), (CapacityFinding.WaitInside, null)],
            Cause.CpuSpread => [(CpuCause, null)],
            _ => [(CpuCause, method), (UpstreamCause, call)],
        };
        return new GeneratedCauseService(shape, files, path, new ExpectedCause(accepted, file, line));
    }

    /// <summary>An async method's body: an awaited call to the chain's first method, or (depth 0) the work; returns the line of that call or the work's named line.</summary>
    private static int Body(ServiceGenerator.SourceWriter writer, string header, string? call, string[] work, int named, string indent, string close = "")
    {
        writer.Line(header);
        writer.Line($"{indent}{{");
        int line;
        if (call is not null)
        {
            line = writer.Line($"{indent}    id += {call} & 0;");
        }
        else
        {
            line = work.Select((statement, i) => (Line: writer.Line($"{indent}    {statement}"), i)).Single(x => x.i == named).Line;
        }
        // An async method with no await of its own (the CPU and allocation work at depth 0) still yields once, as an async handler would.
        writer.Line($"{indent}    await Task.Yield();");
        writer.Line($"{indent}    return id;");
        writer.Line($"{indent}}}{close}");
        return line;
    }

    /// <summary>
    /// The work's sizes and data (the Regex and its almost-matching name, the ledger LINQ reads, the five checks) and the slow dependencies:
    /// a named client from IHttpClientFactory to the service's own loopback route (and one that retries its 503s), and a
    /// "database" that is not HTTP.
    /// </summary>
    private const string Support = """
        public static class Work
        {
            // About 2 ms of a core per request (as the CpuHash target), and about 4 MB of strings (as the Allocating target).
            public const int Rounds = 4000;
            public const int Pieces = 300;
        }

        public static class Upstream
        {
            public const string Name = "upstream";
            public const int DelayMs = 50;
            public static readonly SemaphoreSlim Slots = new(2);
            public static IHttpClientFactory? Factory { get; set; }
            public static Uri? Address { get; set; }
            public const string RetryingName = "retrying";
            private static int _calls;
            public static bool Busy() => Interlocked.Increment(ref _calls) % 7 == 0;
        }

        // The upstream answers 503 when busy: try again up to three times, a little later each time.
        public sealed class RetryOnBusy : DelegatingHandler
        {
            protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
            {
                for (var attempt = 1; ; attempt++)
                {
                    var response = await base.SendAsync(request, cancellationToken);
                    if (response.StatusCode != System.Net.HttpStatusCode.ServiceUnavailable || attempt == 4)
                    {
                        return response;
                    }
                    response.Dispose();
                    await Task.Delay(20 * attempt, cancellationToken);
                }
            }
        }

        public static class Names
        {
            // Words of letters separated by single spaces or hyphens; nested quantifiers backtrack on a name that almost matches.
            public static readonly System.Text.RegularExpressions.Regex Pattern = new(@"^([a-zA-Z]+[\s-]?)+$");
            public const string AlmostAName = "Maximilianjones!";
        }

        public sealed record Sale(int Region, int Product, int Quantity, decimal Price);

        public static class Ledger
        {
            public static readonly List<Sale> Sales = [.. Enumerable.Range(0, 200_000).Select(i => new Sale(i % 4, i % 40, 1 + (i % 19), 0.5m * (i % 200)))];
        }

        // Five checks of about equal CPU, 0.2-0.3 ms each on a quiet core (2026-11-29): none of them half of a request's.
        public static class Checks
        {
            public static int Sort(int id) { var values = new int[3000]; var random = new Random(id); for (var i = 0; i < values.Length; i++) { values[i] = random.Next(); } Array.Sort(values); return values[0] & 0; }
            public static int Primes(int id) { var found = 0; for (var n = 2; n < 9000; n++) { var prime = true; for (var d = 2; d * d <= n; d++) { if (n % d == 0) { prime = false; break; } } found += prime ? 1 : 0; } return found & 0; }
            public static int Hash(int id) { var digest = BitConverter.GetBytes(id); for (var round = 0; round < 200; round++) { digest = System.Security.Cryptography.SHA256.HashData(digest); } return digest[0] & 0; }
            public static int Lookup(int id) { var counts = new Dictionary<int, int>(); for (var i = 0; i < 10000; i++) { counts[(i * 7919) % 1500] = counts.GetValueOrDefault((i * 7919) % 1500) + 1; } return counts.Count & 0; }
            public static int Roots(int id) { var sum = 0.0; for (var i = 1; i < 250000; i++) { sum += Math.Sqrt(i + id); } return (int)sum & 0; }
        }

        // A database reached over its own protocol (not HTTP): 2 connections, 50 ms a query.
        public static class Database
        {
            private static readonly SemaphoreSlim Connections = new(2);

            public static async Task<int> QueryAsync(int id)
            {
                await Connections.WaitAsync();
                try
                {
                    await Task.Delay(Upstream.DelayMs);
                    return id;
                }
                finally
                {
                    Connections.Release();
                }
            }
        }
        """;
}
