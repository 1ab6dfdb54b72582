namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>One caller on the path from the method that blocks up to its handler: the caller and the line of its call.</summary>
public sealed record CallStep(string Method, SourceLine? Line)
{
    /// <summary>"InvoiceBuilder.Build (Program.cs:17)".</summary>
    public override string ToString() => Line is { } line ? $"{Method} ({Path.GetFileName(line.File)}:{line.Line})" : Method;
}

/// <summary>
/// A blocking call site as the developer wrote it: the method that makes the blocking call (<paramref name="Method"/>, in
/// source words, also when the JIT inlined it into <paramref name="InlinedInto"/>), what it blocks on
/// (<paramref name="Primitive"/>, see <see cref="BlockingPrimitive"/>), the file and line of that call when the module
/// ships a matching PDB, the route of the endpoint it serves (or the handler's name when no route could be read), and
/// <paramref name="Note"/> when lines are missing, how the method was found and what was searched. The report's
/// sentence is <see cref="Describe"/>.
/// </summary>
public sealed record BlockingCall(string Method, string Primitive, SourceLine? Line, string? Route, string? Handler, string? InlinedInto, string? Note)
{
    /// <summary>
    /// How many methods of the application could be the one that blocks (more than one when no frame of the application
    /// was on the stack and several make the call): <see cref="Method"/> then lists them all ("one of 3: A.X (A.cs:12),
    /// B.Y (B.cs:40), C.Z"), none picked, and <see cref="Listed"/> holds them.
    /// </summary>
    public int Candidates { get; init; } = 1;

    /// <summary>Whether the runner could not tell which of several methods blocks (<see cref="Candidates"/>).</summary>
    public bool Unsure => Candidates > 1;

    /// <summary>The methods that could be the one, each with the line of its blocking call (when <see cref="Unsure"/>).</summary>
    public IReadOnlyList<CallStep> Listed { get; init; } = [];

    /// <summary>
    /// The path from the method up to the handler (or the background service), nearest caller first, each with the line of
    /// its call. A caller named twice in a row is one step, the first kept: an async method's state machine (with its line)
    /// and the stub frame that started it above it read as the same method (the benchmark's middleware said "from
    /// PaymentsMiddleware.InvokeAsync (PaymentsMiddleware.cs:11), from PaymentsMiddleware.InvokeAsync").
    /// </summary>
    public IReadOnlyList<CallStep> CalledFrom { get; init => field = [.. value.Where((step, i) => i == 0 || value[i - 1].Method != step.Method)]; } = [];

    /// <summary>The background service whose work blocks, outside any request (then there is no <see cref="Route"/>).</summary>
    public string? Background { get; init; }

    /// <summary>Whether the thread ran work the request of <see cref="Route"/> queued (Task.Run), outside the request itself.</summary>
    public bool Queued { get; init; }

    /// <summary>
    /// Whether the call is made in the application's middleware (an <c>app.Use</c> lambda, a class with <c>InvokeAsync(HttpContext)</c>),
    /// which runs for every request: <see cref="Route"/> is then the request the sample caught, not the endpoint whose handler
    /// to change.
    /// </summary>
    public bool EveryRequest { get; init; }

    /// <summary>The words that say where the call serves, for a headline: "every request (middleware)", the route, or the background service; null when none is known.</summary>
    public string? Scope => EveryRequest ? EveryRequestWords : Route ?? (Background is { } background ? $"the background service {background}" : null);

    /// <summary>What <see cref="Scope"/> says of a call in middleware.</summary>
    public const string EveryRequestWords = "every request (middleware)";

    /// <summary>
    /// How the route ASP.NET Core's own metrics reported for the load (http.route) bore on <see cref="Route"/>: "ASP.NET
    /// Core's metrics confirm the route GET /orders/{id:int}", chose it among ties, or disagreed with the metadata (then
    /// the runtime's is trusted, and <see cref="Note"/> says so too); null when the runtime reported no route (not ASP.NET
    /// Core 8+, or a thread outside any request).
    /// </summary>
    public string? RouteCheck { get; init; }

    /// <summary>"Blocking.DoBlocking (Program.cs:14; inlined by the JIT into the lambda in Program (top-level statements)) blocks on .Result (...), called from the lambda in Program (top-level statements) (Program.cs:9), serving GET /orders/{id:int}".</summary>
    public string Describe() => $"{Where()} blocks on {Primitive}{PathUp()}{Serving()}";

    /// <summary>"RiskModel.Score (Program.cs:24), in a call into SHA256.HashData, serving GET /risk/{id:int}": where busy threads ran.</summary>
    public string DescribeRunning() => $"{Where()}{(Primitive.StartsWith("a call into ", StringComparison.Ordinal) ? $", in {Primitive}" : "")}{PathUp()}{Serving()}";

    private string Where() => Where(Method, Line, InlinedInto);

    /// <summary>"Blocking.DoBlocking (Program.cs:14; inlined by the JIT into <paramref name="inlinedInto"/>)": a method with its line and where the JIT put it.</summary>
    internal static string Where(string method, SourceLine? line, string? inlinedInto)
    {
        var where = new List<string>();
        if (line is not null)
        {
            where.Add($"{Path.GetFileName(line.File)}:{line.Line}");
        }
        if (inlinedInto is not null)
        {
            where.Add($"inlined by the JIT into {inlinedInto}");
        }
        return $"{method}{(where.Count > 0 ? $" ({string.Join("; ", where)})" : "")}";
    }

    private string PathUp() => CalledFrom.Count == 0 ? "" : $", called from {string.Join(", from ", CalledFrom)}";

    private string Serving() => EveryRequest ? $", in middleware, so for every request{(Route is null ? "" : $" ({Route} among them)")}"
        : Route is not null ? Queued ? $", work queued by {Route} (a pool thread outside the request)" : $", serving {Route}"
        : Background is not null ? $", in the background service {Background} (no request)"
        : Handler is not null && Handler != Method && CalledFrom.All(s => s.Method != Handler) ? $", in the handler {Handler}" : "";
}

/// <summary>
/// Names a parked thread's blocking call site in the developer's words (<see cref="BlockingCall"/>). The stack gives the
/// leaf-most user method and the IL offset the runtime's IL-to-native map gives for the sampled address; the module's
/// IL (read from disk) says which calls that statement makes, so a method of the application that the statement calls
/// (directly, through an interface, or through a lambda it hands to a library) but the stack does not show was inlined
/// by the JIT, and is followed (a few levels) to the call that blocks; the module's portable PDB turns that call's IL
/// offset into file:line. The endpoint comes from what the runner knows: the path it loads, matched against the
/// application's endpoints (<see cref="Endpoints"/>); with no application frame on the stack, only the code that
/// endpoint (and the middleware around it, or the background services outside a request) can run is searched
/// (<see cref="ServedCode"/>), so code that did not run under the load (a DI factory in Startup) is never named.
/// </summary>
/// <param name="requestPath">The path (and query) the runner loads, "/orders/1"; null when not known (a passive watch).</param>
/// <param name="runtimeRoutes">The requests ASP.NET Core's metrics counted by matched route (<see cref="RuntimeObserver.Routes"/>): the route they give the loaded path is checked against the metadata's, and trusted when they disagree.</param>
public sealed class CallSiteResolver(string? requestPath = null, IReadOnlyDictionary<string, long>? runtimeRoutes = null) : IDisposable
{
    private const int InlineDepth = 3;
    private const string RequestPipeline = "Microsoft.AspNetCore.";
    private const string CompiledDelegate = "dynamicClass.";
    private readonly Dictionary<string, ModuleSource?> _modules = [];
    private (string Key, ServedCode Served)? _served;

    /// <summary>The call site of <paramref name="stack"/>'s leaf-most user frame at <paramref name="user"/> (leaf first), in the application of <paramref name="appModules"/>.</summary>
    public BlockingCall Resolve(ThreadStack stack, int user, IReadOnlyCollection<string> appModules) => Checked(Named(stack, user, appModules), appModules);

    private BlockingCall Named(ThreadStack stack, int user, IReadOnlyCollection<string> appModules)
    {
        var below = stack.Frames.Take(user).Reverse().Select(SourceNames.Describe).ToList();
        var userName = SourceNames.Describe(stack.Frames[user]);
        var served = Served(appModules);
        var handlerFrame = HandlerFrame(stack.Frames, user);
        var (handler, route, everyRequest) = Handler(stack, handlerFrame, served);
        var above = StackPath(stack, user, handlerFrame);
        if (Place(stack, user) is not { } leaf)
        {
            return new BlockingCall(userName, BlockingPrimitive.Classify(below, []) ?? Unknown(below), null, route, handler, null, "the sampled frame has no IL offset or its module is not on this machine: no lines")
            {
                CalledFrom = above,
                EveryRequest = everyRequest,
            };
        }
        var background = handlerFrame is null ? served.BackgroundOf(served.OutsideRequest, leaf.Method) : null;
        var queued = handlerFrame is null && background is null ? QueuedBy(stack, user, served) : null;
        route ??= queued;
        var statement = leaf.Method.Module.Statement(leaf.Method.Token, leaf.ILOffset);
        var (from, to) = statement is { } s ? (s.Start, s.End) : (0, int.MaxValue);
        var calls = WaitCalls(leaf.Method, from, to);
        var primitive = BlockingPrimitive.Classify(below, [.. calls.Select(c => SourceNames.Describe(c.Callee))]);
        var found = Blocking(served.Code, leaf.Method, from, to, primitive);
        // Lines missing, and a route missing, are said once on the call site.
        var unplaced = leaf.ILOffset < 0 ? $"the trace has no IL-to-native map for {userName}'s sampled code (ReadyToRun code), so the whole method was searched, not its statement" : null;
        var note = string.Join("; ", new[] { leaf.Method.Module.PdbNote, unplaced, route is null && background is null ? served.NoRoute(handlerFrame is not null) : null }.OfType<string>()) is { Length: > 0 } said ? said : null;
        if (found.Count == 0)
        {
            // The frame only passes the request on (an endpoint filter, a middleware awaiting next) into a delegate ASP.NET
            // Core compiled, which the JIT inlined the handler into: what the loaded endpoint runs is searched, as with no frame.
            if (stack.Frames.Take(user).Any(f => f.StartsWith(CompiledDelegate, StringComparison.Ordinal) || f.StartsWith(RequestPipeline, StringComparison.Ordinal))
                && NamedInlinedAway(stack, appModules, passedOnBy: userName) is { } passedOn)
            {
                return passedOn;
            }
            // Optimized code can map the return address past the call to the next statement's (LockSleep's `lock (Gate)`
            // read as `_reserved++;`, two lines down, once Reserve tiered up): the method's one call of the wait the stack
            // shows is the one it waits in. Else the statement's IL shows no blocking call: the frame and its statement's line.
            if (OnlyCall(leaf.Method, primitive) is not { } only)
            {
                return new BlockingCall(userName, primitive ?? Unknown(below), statement?.Line, route, handler, null, note) { CalledFrom = above, Background = background, Queued = queued is not null, EveryRequest = everyRequest };
            }
            found = [(leaf.Method, only, [])];
        }
        // The call found in the IL says which wait it was when the stack could not (the JIT inlined it).
        string Primitive(ILCall call) => (BlockingPrimitive.IsGeneric(primitive) ? BlockingPrimitive.Match(SourceNames.Describe(call.Callee)) ?? primitive : primitive) ?? Unknown(below);
        if (found.Count == 1)
        {
            var (method, call, chain) = found[0];
            var inlined = method != leaf.Method;
            return new BlockingCall(inlined ? method.Name : userName, Primitive(call), method.LineOf(call.ILOffset), route, handler, inlined ? userName : null, note)
            {
                CalledFrom = [.. chain, .. above],
                Background = background,
                Queued = queued is not null,
                EveryRequest = everyRequest,
            };
        }
        var listed = found.Select(f => new CallStep(f.Method.Name, f.Method.LineOf(f.Call.ILOffset))).ToList();
        return new BlockingCall($"one of {listed.Count}: {string.Join(", ", listed)}", Primitive(found[0].Call), null, route, handler, userName,
            $"{userName} calls {listed.Count} methods of the application that make this call (through an interface or a lambda) and the JIT inlined them, so which one blocked is not known{Unregistered(served)}{(note is null ? "" : $"; {note}")}")
        {
            Candidates = listed.Count,
            Listed = listed,
            // The callers all of them share (the leaf method's, at least), then the stack's.
            CalledFrom = [.. found[0].Chain.Reverse().TakeWhile((step, i) => found.All(f => f.Chain.Count > i && f.Chain[^(i + 1)] == step)).Reverse(), .. above],
            Background = background,
            Queued = queued is not null,
            EveryRequest = everyRequest,
        };
    }

    /// <summary>
    /// A request or work item parked in a blocking call with no user frame on its stack: with dynamic PGO the JIT inlines
    /// the developer's whole chain into a framework frame (ASP.NET Core's compiled request delegate, a LINQ iterator that
    /// invoked the lambda). The code that could have run there is searched for the methods whose IL makes that blocking
    /// call: in a request, what the endpoint serving the runner's path runs and the middleware around it; outside one,
    /// the background services' work and what that endpoint queues (<see cref="ServedCode"/>). Null when the stack
    /// shows no blocking call or none of that code makes it.
    /// </summary>
    public BlockingCall? ResolveInlinedAway(ThreadStack stack, IReadOnlyCollection<string> appModules) =>
        NamedInlinedAway(stack, appModules) is { } call ? Checked(call, appModules) : null;

    /// <summary>A request's call site with how the runtime's route bore on its route (<see cref="BlockingCall.RouteCheck"/>); a disagreement is said in its note too.</summary>
    private BlockingCall Checked(BlockingCall call, IReadOnlyCollection<string> appModules)
    {
        var served = Served(appModules);
        if (served.RouteCheck is not { } check || call.Route is null || call.Background is not null)
        {
            return call;
        }
        var disagreed = check.Contains("trusted", StringComparison.Ordinal);
        return call with { RouteCheck = check, Note = disagreed ? string.Join("; ", new[] { call.Note, check }.OfType<string>()) : call.Note };
    }

    /// <param name="passedOnBy">The application's frame nearest the wait when it only passed the request on (see <see cref="Named"/>); null when no frame of the application is on the stack.</param>
    private BlockingCall? NamedInlinedAway(ThreadStack stack, IReadOnlyCollection<string> appModules, string? passedOnBy = null)
    {
        var rootFirst = stack.Frames.Reverse().Select(SourceNames.Describe).ToList();
        var entry = rootFirst.FindIndex(f => BlockingPrimitive.Match(f) is not null);
        if (entry <= 0 || BlockingPrimitive.Match(rootFirst[entry]) is not { } primitive)
        {
            return null;
        }
        var served = Served(appModules);
        var inRequest = stack.Frames.Any(f => f.StartsWith(RequestPipeline, StringComparison.Ordinal));
        var reach = inRequest ? served.InRequest : served.OutsideRequest;
        var searched = reach.Count > 0 ? reach.Keys : served.Code.Methods();
        var callers = searched
            .SelectMany(method => WaitCalls(method)
                .Where(c => BlockingPrimitive.Compatible(BlockingPrimitive.Match(SourceNames.Describe(c.Callee)), primitive))
                .Take(1)
                .Select(c => (Method: method, Call: c, Step: new CallStep(method.Name, method.LineOf(c.ILOffset)))))
            .DistinctBy(c => (c.Step.Method, c.Step.Line))
            .OrderBy(c => reach.TryGetValue(c.Method, out var r) ? r.Depth : 0)
            .ThenBy(c => c.Step.Method, StringComparer.Ordinal)
            .ToList();
        if (callers.Count == 0)
        {
            return null;
        }
        var inliner = stack.Frames[stack.Frames.Count - entry].StartsWith(CompiledDelegate, StringComparison.Ordinal)
            ? "ASP.NET Core's compiled request delegate"
            : rootFirst[entry - 1];
        var scope = reach.Count > 0 ? served.Scope(inRequest) : $"the application ({served.Unscoped(inRequest)})";
        var why = passedOnBy is null ? "no frame of the application is on the stack"
            : $"the application's frame nearest the wait, {passedOnBy}, only passes the request on (its statement makes no blocking call), and the JIT inlined what it called into {inliner}";
        var pdb = callers[0].Method.Module.PdbNote is { } pdbNote ? $"; {pdbNote}" : "";
        var backgrounds = callers.Select(c => inRequest ? null : served.BackgroundOf(reach, c.Method)).Distinct().ToList();
        var routes = callers.Select(c => inRequest ? served.RouteOf(reach, c.Method) : served.BackgroundOf(reach, c.Method) is null ? served.QueuedBy(c.Method) : null).Distinct().ToList();
        var queued = !inRequest && routes.Count == 1 && routes[0] is not null;
        var everyRequest = inRequest && callers.All(c => served.InMiddleware(reach, c.Method));
        if (callers.Count == 1)
        {
            var (method, call, step) = callers[0];
            var noRoute = routes[0] is null && backgrounds[0] is null ? $"; {served.NoRoute(inRequest)}" : "";
            // The stack shows the wait the JIT inlined the call into; the one call that makes it says which it was.
            var named = BlockingPrimitive.IsGeneric(primitive) ? BlockingPrimitive.Match(SourceNames.Describe(call.Callee)) ?? primitive : primitive;
            return new BlockingCall(step.Method, named, step.Line, routes[0], null, inliner,
                $"{why}: {step.Method} is the one method of {scope} whose IL makes this call{pdb}{noRoute}")
            {
                CalledFrom = reach.ContainsKey(method) ? ApplicationCode.PathUp(reach, method) : [],
                Background = backgrounds[0],
                Queued = queued,
                EveryRequest = everyRequest,
            };
        }
        // Several make the call and the stack cannot say which did: all of them, each with its line, and a route only when they share it.
        var listed = callers.Select(c => c.Step).ToList();
        return new BlockingCall($"one of {listed.Count}: {string.Join(", ", listed)}", primitive, null, routes.Count == 1 ? routes[0] : null, null, inliner,
            $"{why}, and {listed.Count} methods of {scope} make this call, so which one blocked is not known{Unregistered(served)}{pdb}")
        {
            Candidates = listed.Count,
            Listed = listed,
            Background = backgrounds.Count == 1 ? backgrounds[0] : null,
            Queued = queued,
            EveryRequest = everyRequest,
        };
    }

    /// <summary>Why implementations of an interface are all listed: "; no DI registration of IQuotes was found ...", or "" when every one was read.</summary>
    private static string Unregistered(ServedCode served) => served.Code.Unregistered is { Count: > 0 } types
        ? $"; no DI registration of {string.Join(", ", types.Order(StringComparer.Ordinal))} (AddSingleton/AddScoped/AddTransient<IService, Implementation>, or a factory constructing one) was found in the application's IL, so each implementation is a candidate"
        : "";

    /// <summary>
    /// The methods that make the blocking call <paramref name="primitive"/> says: the leaf method's statement itself, else
    /// the nearest methods of the application it runs (a few calls down: what the JIT inlined), each with its path up to
    /// the leaf method (nearest caller first). Several when the nearest are as near (two implementations of an interface).
    /// </summary>
    private static List<(AppMethod Method, ILCall Call, IReadOnlyList<CallStep> Chain)> Blocking(ApplicationCode code, AppMethod leaf, int from, int to, string? primitive)
    {
        var level = new List<(AppMethod Method, int From, int To, IReadOnlyList<CallStep> Chain)> { (leaf, from, to, []) };
        var seen = new HashSet<AppMethod> { leaf };
        for (var depth = 0; depth <= InlineDepth && level.Count > 0; depth++)
        {
            var found = level
                .Select(m => (m.Method, Call: WaitCalls(m.Method, m.From, m.To)
                    .FirstOrDefault(c => BlockingPrimitive.Match(SourceNames.Describe(c.Callee)) is { } p && (primitive is null || BlockingPrimitive.Compatible(p, primitive))), m.Chain))
                .Where(f => f.Call is not null)
                .Select(f => (f.Method, f.Call!, f.Chain))
                .ToList();
            if (found.Count > 0)
            {
                return found;
            }
            level = [.. level.SelectMany(m => code.Callees(m.Method, m.From, m.To)
                .Where(c => seen.Add(c.Callee))
                .Select(c => (c.Callee, 0, int.MaxValue, (IReadOnlyList<CallStep>)[new CallStep(m.Method.Name, m.Method.LineOf(c.ILOffset)), .. m.Chain])))];
        }
        return [];
    }

    /// <summary>The one call of <paramref name="method"/>'s own IL that makes the wait <paramref name="primitive"/> names; null when it makes none or several, or the wait is not known.</summary>
    private static ILCall? OnlyCall(AppMethod method, string? primitive) =>
        primitive is null ? null
            : WaitCalls(method).Where(c => BlockingPrimitive.Match(SourceNames.Describe(c.Callee)) is { } p && BlockingPrimitive.Compatible(p, primitive)).ToList() is [var one] ? one : null;

    /// <summary>
    /// The calls the method's IL makes between the offsets that can wait, as the developer wrote them: not the delegates it
    /// makes, nor the awaiter's GetResult the compiler emits for each await of an async method (which runs once the awaited
    /// task is done, after its IsCompleted check: as many GetResult calls as IsCompleted checks are all the compiler's).
    /// </summary>
    private static List<ILCall> WaitCalls(AppMethod method, int from = 0, int to = int.MaxValue)
    {
        var all = method.Module.Calls(method.Token);
        bool Is(ILCall call, string suffix) => SourceNames.Describe(call.Callee).EndsWith(suffix, StringComparison.Ordinal);
        var awaits = all.Count(c => Is(c, "Awaiter.get_IsCompleted"));
        var compilers = all.Count(c => Is(c, "Awaiter.GetResult")) <= awaits;
        return [.. all.Where(c => c.ILOffset >= from && c.ILOffset < to && !c.Delegate && !(compilers && Is(c, "Awaiter.GetResult")))];
    }

    // The first managed frame below the user's: TraceEvent's pseudo-frames ("CPU_TIME", "UNMANAGED_CODE_TIME") are no call.
    private static string Unknown(IReadOnlyList<string> below) =>
        below.FirstOrDefault(f => !f.StartsWith(BlockingSites.NativeCode, StringComparison.Ordinal) && !f.All(c => char.IsAsciiLetterUpper(c) || c == '_')) is { } frame ? $"a call into {frame}"
        : below.Contains(BlockingSites.OnCpu) ? "no call (it ran its own code)" : BlockingSites.NativeCode;

    /// <summary>
    /// The ASP.NET Core handler at <paramref name="handlerFrame"/> (null outside a request), the route of the endpoint it
    /// serves, and whether that frame is the application's middleware, which runs for every request (the route is then the
    /// request's the sample caught).
    /// </summary>
    private (string? Handler, string? Route, bool EveryRequest) Handler(ThreadStack stack, int? handlerFrame, ServedCode served)
    {
        if (handlerFrame is not { } index)
        {
            return (null, null, false);
        }
        var name = SourceNames.Describe(stack.Frames[index]);
        var place = Place(stack, index);
        var endpoint = place is { } at ? served.EndpointOf(at.Method) : null;
        return (name, endpoint?.Route ?? served.ServingRoute, endpoint is null && place is { } frame && served.IsMiddleware(frame.Method));
    }

    /// <summary>
    /// The route of the request that queued the work a thread outside any request runs (<see cref="ServedCode.QueuedBy"/>):
    /// its user frames from the root-most down to <paramref name="user"/>, the first one the serving endpoints' code reaches
    /// (the root-most is the work item itself, a Task.Run lambda, which says the most about who queued it).
    /// </summary>
    private string? QueuedBy(ThreadStack stack, int user, ServedCode served) => Enumerable.Range(user, stack.Frames.Count - user)
        .Reverse()
        .Where(i => BlockingSites.IsUserCode(stack.Frames[i]))
        .Select(i => Place(stack, i) is { } place ? served.QueuedBy(place.Method) : null)
        .FirstOrDefault(route => route is not null);

    /// <summary>The user frames above the leaf-most one up to the handler (or the stack's root outside a request), each with the line of its statement.</summary>
    private List<CallStep> StackPath(ThreadStack stack, int user, int? handlerFrame) =>
    [
        .. Enumerable.Range(user + 1, Math.Max(0, (handlerFrame ?? stack.Frames.Count - 1) - user))
            .Where(i => BlockingSites.IsUserCode(stack.Frames[i]))
            .Select(i => new CallStep(SourceNames.Describe(stack.Frames[i]), Place(stack, i) is { } place ? place.Method.Module.Statement(place.Method.Token, place.ILOffset)?.Line : null))
            .Where(step => step.Method != SourceNames.Describe(stack.Frames[user])),
    ];

    /// <summary>
    /// The handler's frame on a request's stack (leaf first; null outside a request): root-ward from the user frame at
    /// <paramref name="user"/>, the last user frame before the first frame of the request pipeline or of a delegate
    /// ASP.NET Core compiled ("dynamicClass.", the call into a minimal-API handler or a controller action). An endpoint
    /// filter of the application's own sits beyond that call (the handler is its filter chain's "next"), so it is not
    /// taken for the handler; code the handler reached through another library (a LINQ Select's lambda) is below it.
    /// </summary>
    internal static int? HandlerFrame(IReadOnlyList<string> frames, int user)
    {
        if (!frames.Skip(user).Any(f => f.StartsWith(RequestPipeline, StringComparison.Ordinal)))
        {
            return null;
        }
        var boundary = frames.ToList().FindIndex(user, f => f.StartsWith(RequestPipeline, StringComparison.Ordinal) || f.StartsWith(CompiledDelegate, StringComparison.Ordinal));
        return Enumerable.Range(user, boundary - user).Last(i => BlockingSites.IsUserCode(frames[i]));
    }

    private ServedCode Served(IReadOnlyCollection<string> appModules)
    {
        var key = string.Join('\n', appModules.Order(StringComparer.Ordinal));
        if (_served is not { } served || served.Key != key)
        {
            _served = served = (key, new ServedCode(new ApplicationCode(appModules.Select(Module).OfType<ModuleSource>()), requestPath, runtimeRoutes));
        }
        return served.Served;
    }

    internal (AppMethod Method, int ILOffset)? Place(ThreadStack stack, int index) =>
        stack.Locations.ElementAtOrDefault(index) is { } location && Module(location.ModulePath) is { } module && module.Defines(location.MethodToken)
            ? (new AppMethod(module, location.MethodToken), location.ILOffset)
            : null;

    private ModuleSource? Module(string path)
    {
        if (!_modules.TryGetValue(path, out var module))
        {
            _modules[path] = module = ModuleSource.Open(path);
        }
        return module;
    }

    public void Dispose()
    {
        foreach (var module in _modules.Values)
        {
            module?.Dispose();
        }
    }
}
