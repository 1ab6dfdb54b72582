using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics.Corpus;

/// <summary>How a diagnosis scored against what the generator knows.</summary>
public enum Verdict
{
    /// <summary>The method that blocks, the file:line of its blocking call, the route and the primitive, all right.</summary>
    Right,

    /// <summary>Unsure, and the right method (at the right line) among those it lists.</summary>
    Ambiguous,

    /// <summary>It named no call site in user code: nothing wrong was said, nothing right either.</summary>
    NotNamed,

    /// <summary>A wrong method, line, route or primitive, or a list without the right method.</summary>
    Wrong,
}

/// <summary>One service's diagnosis: its name, its shape (null for a fixed service), the verdict, and what was named against what was expected.</summary>
public sealed record Scored(string Name, ServiceShape? Shape, Verdict Verdict, string Named, string Expected);

/// <summary>One cause service's findings scored: its name and shape, the verdict, the findings as ranked against what was expected.</summary>
public sealed record ScoredCause(string Name, CauseShape Shape, Verdict Verdict, string Named, string Expected);

/// <summary>A service of the repository's own (the sample service, a tests/Targets service), scored as the generated ones are: its built assembly, the path the load requests, what a right diagnosis says.</summary>
public sealed record FixedService(string Name, string Assembly, string RequestPath, ExpectedCallSite Expected)
{
    /// <summary>
    /// The sample service, the three blocking targets of tests/Targets and the sandbox API's blocking endpoints, each
    /// expected at the line of its source that holds <c>code</c> (read from the repository, so a moved line moves the
    /// expectation). The API's routes are built from variables (<c>MapGroup($"/api/{unit.Name}")</c>), so the route a
    /// right answer gives is the one ASP.NET Core's metrics report (<c>routeCheck</c>). Each API endpoint's answer, from
    /// its code: sleep/sync's request thread waits in WorkLoops.Sleep's WaitOne (a Thread.Sleep that wakes on
    /// cancellation); sleep/taskrun's two Task.Run work items wait there too, for the request that queued and awaits them;
    /// the fan-out's threadpool and sync-over-async strategies block the request's thread in CallBatch.WaitBlocking until
    /// every queued call ended, and those calls need the pool threads the waiting requests hold, so that wait, not the
    /// queued call's own (.Result, FanOutRunner.cs), is what to change first (the dedicated and async strategies await
    /// there instead); contention/lock's waiters queue in MonitorLockVariant.EnterAsync's Monitor.TryEnter.
    /// </summary>
    public static IReadOnlyList<FixedService> All()
    {
        var root = FolderLayeringTests.RepositoryRoot();
        FixedService Of(string name, string assembly, string path, string method, string source, string code, string route, string primitive)
        {
            var line = Array.FindIndex(File.ReadAllLines(Path.Combine(root, source)), l => l.Contains(code, StringComparison.Ordinal)) + 1;
            return new FixedService(name, assembly, path, new ExpectedCallSite(method, Path.GetFileName(source), line, route, [primitive]));
        }
        string Target(string name) => Path.Combine(AppContext.BaseDirectory, "targets", name, $"{name}.dll");
        // The API as the runner's build copies it next to the tests (api/), and the sources of its blocking calls.
        var api = Path.Combine(AppContext.BaseDirectory, "api", "ConcurrencySandbox.Api.dll");
        const string workLoops = "src/ConcurrencySandbox.Experiments/Work/WorkLoops.cs", sleepWait = "cancellationToken.WaitHandle.WaitOne(TimeSpan.FromMilliseconds(milliseconds))";
        const string callBatch = "src/ConcurrencySandbox.Experiments/FanOut/CallBatch.cs", batchWait = "WaitHandle.WaitAny(";
        return
        [
            Of("SampleService", Path.Combine(AppContext.BaseDirectory, "sample", "ConcurrencySandbox.SampleService.dll"), "orders/1?delayMs=500",
                "Orders.Get", "src/ConcurrencySandbox.SampleService/Orders.cs", "PriceAsync(id, delay).Result", "GET /orders/{id:int}", BlockingPrimitive.Result),
            Of("InlinedHelper", Target("InlinedHelper"), "orders/1", "Blocking.DoBlocking", "tests/Targets/InlinedHelper/Program.cs", "DoAsync(id).Result", "GET /orders/{id:int}", BlockingPrimitive.Result),
            Of("ControllerLinq", Target("ControllerLinq"), "orders/1", "CatalogClient.Lookup", "tests/Targets/ControllerLinq/CatalogClient.cs", "_http.Send(", "GET /orders/{id:int}", BlockingPrimitive.HttpSend),
            Of("LockSleep", Target("LockSleep"), "inventory/1", "Inventory.Reserve", "tests/Targets/LockSleep/Program.cs", "lock (Gate)", "GET /inventory/{id:int}", BlockingPrimitive.Lock),
            Of("ApiSleepSync", api, "api/sleep/sync?milliseconds=200", "WorkLoops.Sleep", workLoops, sleepWait, "GET /api/sleep/sync", BlockingPrimitive.WaitHandle),
            Of("ApiSleepTaskRun", api, "api/sleep/taskrun?milliseconds=200", "WorkLoops.Sleep", workLoops, sleepWait, "GET /api/sleep/taskrun", BlockingPrimitive.WaitHandle),
            Of("ApiFanOutThreadPool", api, "api/fanout?strategy=threadpool&calls=4&delayMs=200", "CallBatch.WaitBlocking", callBatch, batchWait, "GET /api/fanout", BlockingPrimitive.WaitHandle),
            Of("ApiFanOutSyncOverAsync", api, "api/fanout?strategy=sync-over-async&calls=4&delayMs=200", "CallBatch.WaitBlocking", callBatch, batchWait, "GET /api/fanout", BlockingPrimitive.WaitHandle),
            Of("ApiContentionLock", api, "api/contention/lock?holdMs=20", "MonitorLockVariant.EnterAsync", "src/ConcurrencySandbox.Experiments/Contention/ContentionVariant.cs", "Monitor.TryEnter(_gate", "GET /api/contention/lock", BlockingPrimitive.Lock),
        ];
    }
}

/// <summary>
/// The accuracy benchmark (issue 37 item 5): writes the generated services as projects under one folder, builds them
/// with one <c>dotnet build</c> of a generated solution (offline: the web SDK's packs need no package), then for each one
/// starts it, runs <c>run --url</c> on it as a new user would (<see cref="RunUrlDiagnosis"/>) and scores the top call
/// site against what the generator knows.
/// </summary>
public static class DiagnosisBenchmark
{
    private static readonly TimeSpan BuildTimeout = TimeSpan.FromMinutes(20);

    /// <summary>Builds, runs and scores <paramref name="services"/>; the corpus is deleted after, unless <paramref name="keep"/> names a folder to build it in and leave it.</summary>
    public static async Task<IReadOnlyList<Scored>> RunAsync(IReadOnlyList<GeneratedService> services, Action<string> log, string? keep = null)
    {
        var scored = new List<Scored>();
        await InCorpusAsync([.. services.Select(s => (s.Shape.Name, s.Files))], log, keep, async assembly =>
        {
            foreach (var service in services)
            {
                await using var process = await SampleServiceProcess.StartAssemblyAsync(assembly(service.Shape.Name));
                scored.Add(await DiagnoseAsync(process, service.RequestPath, service.Shape.Name, service.Shape, service.Expected, log));
            }
        });
        return scored;
    }

    /// <summary>
    /// Builds the cause services, then for each: starts it, runs <c>run --url --find-capacity</c> on it as a new user would
    /// (<see cref="RunUrlDiagnosis.FindCapacityAsync"/>, narrowing each break in <paramref name="bisectSteps"/> steps) and
    /// scores its ranked findings (<see cref="ScoreCause"/>).
    /// </summary>
    public static async Task<IReadOnlyList<ScoredCause>> RunCausesAsync(IReadOnlyList<GeneratedCauseService> services, Action<string> log, string? keep, int bisectSteps)
    {
        var scored = new List<ScoredCause>();
        await InCorpusAsync([.. services.Select(s => (s.Shape.Name, s.Files))], log, keep, async assembly =>
        {
            foreach (var service in services)
            {
                await using var process = await SampleServiceProcess.StartAssemblyAsync(assembly(service.Shape.Name));
                var summary = await RunUrlDiagnosis.FindCapacityAsync(process, service.RequestPath, bisectSteps: bisectSteps);
                var score = ScoreCause(service, summary.Capacity?.Findings ?? [], summary.Headline);
                log(string.Create(CultureInfo.InvariantCulture, $"{score.Name}: {score.Verdict}: {score.Named}; expected {score.Expected}; held {summary.Capacity?.Held}, broke at {summary.Capacity?.BrokeAt}"));
                // What each finding rested on, and the GC of every step: the evidence a wrong ranking is judged by.
                foreach (var finding in summary.Capacity?.Findings ?? [])
                {
                    log($"  {finding.Cause}: {finding.Evidence}");
                }
                foreach (var step in summary.Capacity?.Steps ?? [])
                {
                    log(string.Create(CultureInfo.InvariantCulture, $"  step {step.Load:0.#} ({step.Ramp}): p99 {step.P99Ms:0.#} ms, GC paused {100 * step.Gc?.PauseShare:0.#} %, {step.Gc?.AllocatedBytesPerRequest / 1e6:0.##} MB allocated per request{(step.BrokeBecause is null ? "" : ", broke")}"));
                }
                scored.Add(score);
            }
        });
        return scored;
    }

    /// <summary>Writes and builds the projects under one folder, runs <paramref name="run"/> with each one's assembly by name, and deletes the folder after unless <paramref name="keep"/> names it.</summary>
    private static async Task InCorpusAsync(IReadOnlyList<(string Name, IReadOnlyDictionary<string, string> Files)> projects, Action<string> log, string? keep, Func<Func<string, string>, Task> run)
    {
        var root = keep is null ? Directory.CreateTempSubdirectory("sandbox-corpus-").FullName : Directory.CreateDirectory(keep).FullName;
        try
        {
            await WriteAsync(root, projects);
            var built = Stopwatch.StartNew();
            await BuildAsync(root);
            log(string.Create(CultureInfo.InvariantCulture, $"built {projects.Count} services in {built.Elapsed.TotalSeconds:0} s"));
            await run(name => Path.Combine(root, name, "bin", "Release", "net10.0", $"{name}.dll"));
        }
        finally
        {
            if (keep is null)
            {
                Directory.Delete(root, recursive: true);
            }
        }
    }

    /// <summary>
    /// The verdict for a cause service's ranked findings: right when the first is one of the expected causes with its
    /// method (CPU, GC: the place begins with it) or its call (the upstream: the place ends with the path template) named,
    /// or, for a dependency that is not HTTP, the upstream with no call named (for CPU spread over methods, the CPU with none); not named when the first is an expected
    /// cause with no place; wrong otherwise (a call named for a dependency that makes none too), and wrong before anything else when
    /// the report says "pool starvation" first or tells the user to make the code async or raise the pool's minimum
    /// (nothing in these services blocks: following that advice makes CPU-bound code worse, issue 38 item 1).
    /// </summary>
    public static ScoredCause ScoreCause(GeneratedCauseService service, IReadOnlyList<SummaryFinding> findings, string? headline)
    {
        var expected = service.Expected;
        var expectedText = string.Join(" or ", expected.Accepted.Select(a => $"{a.Cause} at {a.Place}")) + $" ({expected.File}:{expected.Line})";
        var named = findings.Count == 0 ? "no finding" : string.Join("; ", findings.Select(f => $"{f.Cause} at {f.Place ?? "no place"} ({100 * f.Weight:0} %)"));
        ScoredCause Scored(Verdict verdict, string why = "") => new(service.Shape.Name, service.Shape, verdict, named + why, expectedText);
        if (findings.FirstOrDefault()?.Cause == StarvationCause || headline?.Contains(AsyncAdvice, StringComparison.Ordinal) == true || headline?.Contains(MinimumAdvice, StringComparison.Ordinal) == true)
        {
            return Scored(Verdict.Wrong, " [told to become async or raise the pool's minimum: the worst error]");
        }
        if (findings.FirstOrDefault() is not { } first || expected.Accepted.Where(a => a.Cause == first.Cause).ToList() is not { Count: > 0 } causes)
        {
            return Scored(findings.Count == 0 ? Verdict.NotNamed : Verdict.Wrong);
        }
        if (first.Place is not { } place)
        {
            // A cause with no one place (a dependency that is not HTTP, the CPU spread over methods): said, not named, is right.
            return causes.Any(a => a.Place is null) ? Scored(Verdict.Right) : Scored(Verdict.NotNamed, " [the right cause, with no method or call]");
        }
        bool Names((string Cause, string? Place) a) => a.Place is { } expectedPlace && (a.Cause == CauseServiceGenerator.UpstreamCause
            ? place.EndsWith(expectedPlace, StringComparison.Ordinal)
            : place == expectedPlace || place.StartsWith(expectedPlace + " ", StringComparison.Ordinal));
        return Scored(causes.Any(Names) ? Verdict.Right : Verdict.Wrong);
    }

    /// <summary>The words of the starvation verdict and of its two fixes, which no cause service may be given.</summary>
    public const string StarvationCause = "pool starvation";
    public const string AsyncAdvice = "make it async";
    public const string MinimumAdvice = "set the pool's minimum";

    /// <summary>The cause services' table by cause, entry, depth and inlining: right, not named, wrong (Markdown).</summary>
    public static string CauseTable(IReadOnlyList<ScoredCause> scored)
    {
        static string Row(string label, IReadOnlyCollection<ScoredCause> group) => string.Create(CultureInfo.InvariantCulture,
            $"| {label} | {group.Count} | {group.Count(s => s.Verdict == Verdict.Right)} | {group.Count(s => s.Verdict == Verdict.NotNamed)} | {group.Count(s => s.Verdict == Verdict.Wrong)} |");
        return string.Join('\n', [
            "| shape | services | right | not named (right cause, no place) | wrong |", "|---|---|---|---|---|",
            .. scored.GroupBy(s => s.Shape.Cause).OrderBy(g => g.Key).Select(g => Row($"cause: {g.Key}", [.. g])),
            .. scored.GroupBy(s => s.Shape.Entry).OrderBy(g => g.Key).Select(g => Row($"entry: {g.Key}", [.. g])),
            .. scored.GroupBy(s => s.Shape.Depth).OrderBy(g => g.Key).Select(g => Row($"depth {g.Key}", [.. g])),
            .. scored.GroupBy(s => s.Shape.Inlined).OrderBy(g => g.Key).Select(g => Row(g.Key ? "AggressiveInlining" : "no inlining hint", [.. g])),
            Row("**all**", scored),
        ]);
    }

    /// <summary>Runs and scores the repository's own services (<see cref="FixedService.All"/>), each as a generated one is.</summary>
    public static async Task<IReadOnlyList<Scored>> RunFixedAsync(IReadOnlyList<FixedService> services, Action<string> log)
    {
        var scored = new List<Scored>();
        foreach (var service in services)
        {
            await using var process = await SampleServiceProcess.StartAssemblyAsync(service.Assembly);
            scored.Add(await DiagnoseAsync(process, service.RequestPath, service.Name, null, service.Expected, log));
        }
        return scored;
    }

    private static async Task<Scored> DiagnoseAsync(SampleServiceProcess process, string path, string name, ServiceShape? shape, ExpectedCallSite expected, Action<string> log)
    {
        var diagnosed = await RunUrlDiagnosis.DiagnoseAsync(process, path);
        var score = Score(name, shape, expected, diagnosed.Top);
        log($"{name}: {score.Verdict}: named {score.Named}{(diagnosed.StacksNote is { } note ? $" ({note})" : "")}; expected {score.Expected}");
        return score;
    }

    /// <summary>
    /// The verdict for one generated service's diagnosis (<paramref name="call"/>: the top call site in user code, null when
    /// none). A call in middleware runs for every request: it is right only when it says so (<see cref="BlockingCall.EveryRequest"/>)
    /// with the loaded request's route, and a call in a handler only when it does not.
    /// </summary>
    public static Scored Score(GeneratedService service, BlockingCall? call) => Score(service.Shape.Name, service.Shape, service.Expected, call);

    private static Scored Score(string name, ServiceShape? shape, ExpectedCallSite expected, BlockingCall? call)
    {
        var also = expected.AlsoWaits is { } a ? $" (or :{a.Line}, {a.Primitive})" : "";
        var expectedText = $"{expected.Method} ({expected.File}:{expected.Line}), {string.Join(" or ", expected.Primitives)}{also}, {(expected.EveryRequest ? $"{BlockingCall.EveryRequestWords}, {expected.Route}" : expected.Route ?? "no route")}";
        if (call is null)
        {
            return new Scored(name, shape, Verdict.NotNamed, "no call site in user code", expectedText);
        }
        bool At(string method, SourceLine? line, int expectedLine) => method == expected.Method && line is { } l && Path.GetFileName(l.File) == expected.File && l.Line == expectedLine;
        // The blocking line with its primitive, or the line above where the threads also wait (a stream's Send) with that wait's.
        bool Waits(string method, SourceLine? line, string primitive) =>
            (At(method, line, expected.Line) && expected.Primitives.Contains(primitive))
            || (expected.AlsoWaits is { } also && At(method, line, also.Line) && primitive == also.Primitive);
        var verdict = call.Unsure
            ? call.Listed.Any(c => At(c.Method, c.Line, expected.Line) || (expected.AlsoWaits is { } also && At(c.Method, c.Line, also.Line))) ? Verdict.Ambiguous : Verdict.Wrong
            : Waits(call.Method, call.Line, call.Primitive) && call.Route == expected.Route && call.EveryRequest == expected.EveryRequest ? Verdict.Right : Verdict.Wrong;
        return new Scored(name, shape, verdict, $"{call.Describe()}{(call.Note is { } note ? $" [{note}]" : "")}", expectedText);
    }

    /// <summary>The table by entry and by wait: right, ambiguous, not named, wrong (Markdown).</summary>
    public static string Table(IReadOnlyList<Scored> scored)
    {
        static string Row(string label, IReadOnlyCollection<Scored> group) => string.Create(CultureInfo.InvariantCulture,
            $"| {label} | {group.Count} | {group.Count(s => s.Verdict == Verdict.Right)} | {group.Count(s => s.Verdict == Verdict.Ambiguous)} | {group.Count(s => s.Verdict == Verdict.NotNamed)} | {group.Count(s => s.Verdict == Verdict.Wrong)} |");
        var lines = new List<string> { "| shape | services | right | ambiguous (right one listed) | not named | wrong |", "|---|---|---|---|---|---|" };
        var generated = scored.Where(s => s.Shape is not null).Select(s => (Scored: s, Shape: s.Shape!)).ToList();
        lines.AddRange(generated.GroupBy(s => s.Shape.Entry).OrderBy(g => g.Key).Select(g => Row($"entry: {g.Key}", [.. g.Select(s => s.Scored)])));
        lines.AddRange(generated.GroupBy(s => s.Shape.Wait).OrderBy(g => g.Key).Select(g => Row($"wait: {g.Key}", [.. g.Select(s => s.Scored)])));
        lines.AddRange(generated.GroupBy(s => s.Shape.Depth).OrderBy(g => g.Key).Select(g => Row($"depth {g.Key}", [.. g.Select(s => s.Scored)])));
        lines.AddRange(generated.GroupBy(s => s.Shape.Inlined).OrderBy(g => g.Key).Select(g => Row(g.Key ? "AggressiveInlining" : "no inlining hint", [.. g.Select(s => s.Scored)])));
        lines.AddRange(scored.Where(s => s.Shape is null).Select(s => Row($"fixed: {s.Name}", [s])));
        if (generated.Count < scored.Count)
        {
            lines.Add(Row("all generated", [.. generated.Select(s => s.Scored)]));
        }
        lines.Add(Row("**all**", scored));
        return string.Join('\n', lines);
    }

    /// <summary>A generated project's file: <paramref name="sdk"/>, net10.0 with nullable, implicit usings and a portable PDB, and <paramref name="items"/>.</summary>
    internal static string Project(string sdk, IReadOnlyList<string> items) => $"""
        <Project Sdk="{sdk}">
          <PropertyGroup>
            <TargetFramework>net10.0</TargetFramework>
            <Nullable>enable</Nullable>
            <ImplicitUsings>enable</ImplicitUsings>
            <DebugType>portable</DebugType>
          </PropertyGroup>
          <ItemGroup>
        {string.Concat(items.Select(i => $"    {i}\n"))}  </ItemGroup>
        </Project>

        """;

    private static async Task WriteAsync(string root, IReadOnlyList<(string Name, IReadOnlyDictionary<string, string> Files)> services)
    {
        // Nothing above the corpus: no repository's build rules or package versions reach the generated projects.
        await File.WriteAllTextAsync(Path.Combine(root, "Directory.Build.props"), "<Project />\n");
        await File.WriteAllTextAsync(Path.Combine(root, "Directory.Packages.props"), "<Project />\n");
        foreach (var service in services)
        {
            var folder = Directory.CreateDirectory(Path.Combine(root, service.Name)).FullName;
            // A project among the service's files (a class library beside it, "../NameLib/NameLib.csproj") is referenced by it.
            await File.WriteAllTextAsync(Path.Combine(folder, $"{service.Name}.csproj"),
                Project("Microsoft.NET.Sdk.Web", [.. service.Files.Keys.Where(f => f.EndsWith(".csproj", StringComparison.Ordinal)).Select(f => $"<ProjectReference Include=\"{f}\" />")]));
            foreach (var (file, text) in service.Files)
            {
                var path = Path.Combine(folder, file);
                Directory.CreateDirectory(Path.GetDirectoryName(path)!);
                await File.WriteAllTextAsync(path, text);
            }
        }
        await File.WriteAllTextAsync(Path.Combine(root, "corpus.slnx"),
            $"<Solution>\n{string.Concat(services.Select(s => $"  <Project Path=\"{s.Name}/{s.Name}.csproj\" />\n"))}</Solution>\n");
    }

    /// <summary>One Release build of the whole corpus, with no build server left running after it.</summary>
    private static async Task BuildAsync(string root)
    {
        var (code, output, error) = await CommandRun.RunAsync("dotnet", ["build", Path.Combine(root, "corpus.slnx"), "-c", "Release", "-nologo", "-v", "quiet", "--disable-build-servers"], BuildTimeout);
        Assert.True(code == 0, $"dotnet build of the corpus failed ({code}):\n{output}\n{error}");
    }
}
