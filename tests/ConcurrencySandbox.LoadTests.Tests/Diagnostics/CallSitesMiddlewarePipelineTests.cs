using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Tests.Diagnostics.Corpus;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// A blocking call in the application's middleware, on the stacks ASP.NET Core's compiled pipeline really leaves, is
/// placed at "every request" (<see cref="BlockingCall.EveryRequest"/>), and a handler's is not. The framework frames are
/// those the stack sampler recorded on the generator's services under 16 users (seed 3701's Svc22MiddlewareSleepD0,
/// Svc39MiddlewareResultD1I, Svc13MiddlewareLambdaSleepD1, Svc16MiddlewareLambdaResultD3I and
/// Svc107MinimalLambdaSleepD1I, 2026-11-29): no routing frame and no compiled delegate above the middleware, which runs
/// before routing and is called from Kestrel's request loop, sometimes through the host-filtering middleware (the
/// pipeline at tier 0), sometimes straight (tiered up, that frame inlined); an async middleware's state machine above its
/// stub, with the builder's Start frames between them at tier 0; a handler inlined into <c>dynamicClass.lambda_method</c>
/// under the routing middleware, no frame of the application left. The application's frames are the generated service's,
/// compiled here with its PDB, seeded: the entry, the wait, the depth of the calls below and whether they are inlined.
/// </summary>
public sealed class CallSitesMiddlewarePipelineTests : IDisposable
{
    // The pool thread's frames under the application's as recorded: tier 0 (through the host-filtering middleware) and tiered up.
    private const string Kestrel = "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol+<ProcessRequests>d__237`1[System.__Canon].MoveNext";
    private const string KestrelBox = "System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1+AsyncStateMachineBox`1[System.Threading.Tasks.VoidTaskResult,Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol+<ProcessRequests>d__237`1[System.__Canon]]";
    private static readonly string[] TierZeroRoot =
    [
        "Microsoft.AspNetCore.HostFiltering.HostFilteringMiddleware.Invoke", Kestrel, $"{KestrelBox}.ExecutionContextCallback",
        "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop", $"{KestrelBox}.MoveNext", $"{KestrelBox}.ExecuteFromThreadPool",
        "System.Threading.ThreadPoolWorkQueue.Dispatch", "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart", "System.Threading.Thread.StartCallback",
    ];
    private static readonly string[] TieredRoot =
    [
        Kestrel, "System.Threading.ExecutionContext.RunFromThreadPoolDispatchLoop", $"{KestrelBox}.ExecutionContextCallback",
        "System.Threading.ThreadPoolWorkQueue.Dispatch", "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart", "System.Threading.Thread.StartCallback",
    ];
    private static readonly string[] BuilderStart = ["System.Runtime.CompilerServices.AsyncMethodBuilderCore.Start", "System.Runtime.CompilerServices.AsyncTaskMethodBuilder.Start"];
    private static readonly string[] Routing = ["dynamicClass.lambda_method1", "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke"];

    private readonly string _folder = Directory.CreateTempSubdirectory("middleware-pipeline-").FullName;

    /// <summary>Each seed: the three entries (a middleware class, an app.Use lambda, a minimal-API handler), with the seed's wait, depth and inlining.</summary>
    public static TheoryData<int, Entry> Cases()
    {
        var cases = new TheoryData<int, Entry>();
        foreach (var seed in Enumerable.Range(1, 4))
        {
            foreach (var entry in new[] { Entry.Middleware, Entry.MiddlewareLambda, Entry.MinimalLambda })
            {
                cases.Add(seed, entry);
            }
        }
        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void AWaitInTheApplicationsMiddlewareIsEveryRequestAndAHandlersIsNot(int seed, Entry entry)
    {
        var random = new Random(seed);
        var wait = random.Next(2) == 0 ? Wait.Sleep : Wait.Result;
        // Every entry x wait pair once among a seed's first grid of services, each with its seeded depth, inlining and names.
        var service = ServiceGenerator.Compose(seed, Enum.GetValues<Entry>().Length * Enum.GetValues<Wait>().Length).Single(s => s.Shape.Entry == entry && s.Shape.Wait == wait);
        var assembly = Compile(service);
        using var module = ModuleSource.Open(assembly)!;
        var tierZero = random.Next(2) == 0;
        // The pool thread's frames, leaf first, and where each is in the application (null: the framework's).
        var frames = new List<string>(LeafWait(wait, random));
        var locations = new List<FrameLocation?>(frames.Select(_ => (FrameLocation?)null));
        void Add(string frame, int? token = null, int ilOffset = 0)
        {
            frames.Add(frame);
            locations.Add(token is { } t ? new FrameLocation(assembly, t, ilOffset) : null);
        }

        var (entryToken, chain) = EntryAndChain(module, service);
        // The calls below the entry: on the stack unless the JIT inlined them (AggressiveInlining), the deepest first.
        var onStack = service.Shape.Inlined ? [] : chain;
        for (var i = onStack.Count - 1; i >= 0; i--)
        {
            Add(module.MethodName(onStack[i]), onStack[i], CallOffset(module, onStack[i], i + 1 < onStack.Count ? onStack[i + 1] : null, service.Expected));
        }
        var firstBelow = chain.Count > 0 ? chain[0] : (int?)null;
        switch (entry)
        {
            case Entry.MinimalLambda:
                // The handler lambda inlined into the delegate routing compiled for it: no frame of the application.
                foreach (var frame in Routing)
                {
                    Add(frame);
                }
                break;
            default:
                // The middleware's own frame (its state machine's when async) at its call, then its stub under the builder's Start.
                Add(module.MethodName(entryToken), entryToken, CallOffset(module, entryToken, firstBelow, service.Expected));
                if (Stub(module, entryToken) is { } stub)
                {
                    if (tierZero)
                    {
                        foreach (var frame in BuilderStart)
                        {
                            Add(frame);
                        }
                    }
                    Add(module.MethodName(stub), stub, module.Calls(stub)[0].ILOffset);
                }
                break;
        }
        foreach (var frame in tierZero ? TierZeroRoot : TieredRoot)
        {
            Add(frame);
        }
        var pool = new ThreadStack(2, frames) { Locations = locations };
        var main = MainThread(module, assembly);
        using var resolver = new CallSiteResolver(service.RequestPath);

        var sites = BlockingSites.Group([main, .. Enumerable.Range(0, 4).Select(i => pool with { ThreadId = 10 + i })], resolver);

        var call = sites.Top?.Source;
        Assert.NotNull(call);
        var expected = service.Expected;
        Assert.Equal(expected.Method, call.Method);
        Assert.Equal(expected.Line, call.Line?.Line);
        Assert.Contains(call.Primitive, expected.Primitives);
        Assert.Equal(expected.Route, call.Route);
        Assert.Equal(entry != Entry.MinimalLambda, call.EveryRequest);
        Assert.Equal(entry != Entry.MinimalLambda ? BlockingCall.EveryRequestWords : expected.Route, call.Scope);
    }

    /// <summary>The wait's frames below the application's, as recorded: a sleep's, or .Result's (parked, or spinning first).</summary>
    private static string[] LeafWait(Wait wait, Random random) => wait == Wait.Sleep
        ? ["UNMANAGED_CODE_TIME", "System.Threading.Thread.Sleep"]
        : random.Next(2) == 0
            ? ["UNMANAGED_CODE_TIME", "System.Threading.Tasks.Task.InternalWaitCore", "System.Threading.Tasks.Task.InternalWait"]
            : ["UNMANAGED_CODE_TIME", "System.Threading.Tasks.Task.SpinWait", "System.Threading.Tasks.Task.InternalWaitCore", "System.Threading.Tasks.Task.InternalWait"];

    /// <summary>
    /// The method whose frame the entry leaves (a middleware class's InvokeAsync, or its state machine's MoveNext when it
    /// is async; an app.Use lambda's state machine; a handler lambda), found as the one of the application that calls the
    /// chain's first method or, at depth 0, makes the wait at the expected line; and the chain below it, nearest first.
    /// </summary>
    private static (int Entry, IReadOnlyList<int> Chain) EntryAndChain(ModuleSource module, GeneratedService service)
    {
        var chainType = service.Expected.Method.Split('.')[0];
        // At depth 0 there is no chain: the expected method is the entry's own (a Task-returning middleware's InvokeAsync).
        bool InChain(int token) => service.Shape.Depth > 0 && module.MethodName(token).StartsWith(chainType + ".", StringComparison.Ordinal);
        var chain = new List<int>();
        if (service.Shape.Depth > 0)
        {
            // The chain's first method: the one no other chain method calls.
            var members = module.Methods().Where(InChain).ToList();
            var first = members.Single(m => !members.Any(other => module.Calls(other).Any(c => c.LocalToken == m)));
            for (int? next = first; next is { } method; next = module.Calls(method).FirstOrDefault(c => c.LocalToken is { } t && InChain(t))?.LocalToken)
            {
                chain.Add(method);
            }
        }
        // At depth 0, the one whose wait is at the expected line (the decoys and the upstream make the same call elsewhere).
        var entry = module.Methods().Where(t => !InChain(t)).Single(t => chain.Count > 0
            ? module.Calls(t).Any(c => c.LocalToken == chain[0])
            : WaitCall(module, t, service.Expected) is not null);
        return (entry, chain);
    }

    /// <summary>The IL offset of <paramref name="token"/>'s call of <paramref name="callee"/>, or of its wait (at the expected line) when it calls none further.</summary>
    private static int CallOffset(ModuleSource module, int token, int? callee, ExpectedCallSite expected) => callee is { } next
        ? module.Calls(token).First(c => c.LocalToken == next).ILOffset
        : WaitCall(module, token, expected)!.ILOffset;

    /// <summary>The call that waits at the expected file and line (an await's GetResult on another line is the compiler's, not the wait).</summary>
    private static ILCall? WaitCall(ModuleSource module, int token, ExpectedCallSite expected) =>
        module.Calls(token).FirstOrDefault(c => !c.Delegate && BlockingPrimitive.Match(SourceNames.Describe(c.Callee)) is not null
            && module.LineOf(token, c.ILOffset) is { } line && line.Line == expected.Line && Path.GetFileName(line.File) == expected.File);

    /// <summary>The async method whose state machine's MoveNext <paramref name="moveNext"/> is (the stub on the stack above it); null when it is no MoveNext.</summary>
    private static int? Stub(ModuleSource module, int moveNext) =>
        module.Methods().Where(t => t != moveNext && module.StateMachineMoveNext(t) == moveNext).Select(t => (int?)t).FirstOrDefault();

    /// <summary>The main thread as recorded, in the host's Run: what names the application's module when no pool thread shows a frame of it.</summary>
    private static ThreadStack MainThread(ModuleSource module, string assembly)
    {
        var main = module.Methods().Single(t => module.MethodName(t) == "Program.<Main>$");
        string[] frames =
        [
            "UNMANAGED_CODE_TIME", "System.Threading.Monitor.Wait", "System.Threading.ManualResetEventSlim.Wait", "System.Threading.Tasks.Task.SpinThenBlockingWait",
            "System.Threading.Tasks.Task.InternalWaitCore", "System.Threading.Tasks.Task.InternalWait", "System.Runtime.CompilerServices.TaskAwaiter.HandleNonSuccessAndDebuggerNotification",
            "Microsoft.Extensions.Hosting.HostingAbstractionsHostExtensions.Run", "Program.<Main>$",
        ];
        return new ThreadStack(1, frames) { Locations = [.. frames.SkipLast(1).Select(_ => (FrameLocation?)null), new FrameLocation(assembly, main, module.Calls(main)[^1].ILOffset)] };
    }

    /// <summary>The generated service's C# files compiled as a Release web app with its PDB, with the Web SDK's implicit usings the project would have.</summary>
    private string Compile(GeneratedService service)
    {
        var folder = Directory.CreateDirectory(Path.Combine(_folder, service.Shape.Name)).FullName;
        var sources = new List<string>();
        foreach (var (file, text) in service.Files.Where(f => f.Key.EndsWith(".cs", StringComparison.Ordinal)))
        {
            var path = Path.Combine(folder, file);
            File.WriteAllText(path, text);
            sources.Add(path);
        }
        var usings = Path.Combine(folder, "GlobalUsings.cs");
        File.WriteAllText(usings, string.Concat(new[]
        {
            "System", "System.Collections.Generic", "System.IO", "System.Linq", "System.Net.Http", "System.Threading", "System.Threading.Tasks",
            "Microsoft.AspNetCore.Builder", "Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Http", "Microsoft.AspNetCore.Routing",
            "Microsoft.Extensions.Configuration", "Microsoft.Extensions.DependencyInjection", "Microsoft.Extensions.Hosting", "Microsoft.Extensions.Logging",
        }.Select(n => $"global using {n};\n")));
        var assembly = Path.Combine(folder, $"{service.Shape.Name}.dll");
        ServedCodeTests.Compile([usings, .. sources], assembly);
        return assembly;
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
