using System.Text.RegularExpressions;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// A blocking call site as the developer wrote it: the method that makes the blocking call (<paramref name="Method"/>, in
/// source words, also when the JIT inlined it into <paramref name="InlinedInto"/>), what it blocks on
/// (<paramref name="Primitive"/>, see <see cref="BlockingPrimitive"/>), the file and line of that call when the module
/// ships a matching PDB, the route of the ASP.NET Core handler on the stack (or the handler's name when the route could
/// not be read), and <paramref name="Note"/> when lines are missing and why. The report's sentence is <see cref="Describe"/>.
/// </summary>
public sealed record BlockingCall(string Method, string Primitive, SourceLine? Line, string? Route, string? Handler, string? InlinedInto, string? Note)
{
    /// <summary>
    /// How many methods of the application could be the one that blocks (more than one when no frame of the application
    /// was on the stack and several make the call): <see cref="Method"/> then lists them all ("one of 3: A.X (A.cs:12),
    /// B.Y (B.cs:40), C.Z"), none picked.
    /// </summary>
    public int Candidates { get; init; } = 1;

    /// <summary>Whether the runner could not tell which of several methods blocks (<see cref="Candidates"/>).</summary>
    public bool Unsure => Candidates > 1;

    /// <summary>"Blocking.DoBlocking (Program.cs:14; inlined by the JIT into the lambda in Program (top-level statements)) blocks on .Result (...), serving GET /orders/{id:int}".</summary>
    public string Describe() => $"{Where()} blocks on {Primitive}{Serving()}";

    /// <summary>"RiskModel.Score (Program.cs:24), in a call into SHA256.HashData, serving GET /risk/{id:int}": where busy threads ran.</summary>
    public string DescribeRunning() => $"{Where()}{(Primitive.StartsWith("a call into ", StringComparison.Ordinal) ? $", in {Primitive}" : "")}{Serving()}";

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

    private string Serving() => Route is not null ? $", serving {Route}" : Handler is not null && Handler != Method ? $", in the handler {Handler}" : "";
}

/// <summary>
/// Names a parked thread's blocking call site in the developer's words (<see cref="BlockingCall"/>). The stack gives the
/// leaf-most user method and the IL offset the runtime's IL-to-native map gives for the sampled address; the module's
/// IL (read from disk) says which calls that statement makes, so a method of the same module that the statement calls
/// but the stack does not show was inlined by the JIT, and is followed (a few levels) to the call that blocks; the
/// module's portable PDB turns that call's IL offset into file:line. Routes: a controller action's [Route]/[HttpGet]
/// attributes, or the Map call around a minimal-API handler in its source file.
/// </summary>
public sealed partial class CallSiteResolver : IDisposable
{
    private const int InlineDepth = 3;
    private const string RequestPipeline = "Microsoft.AspNetCore.";
    private const string CompiledDelegate = "dynamicClass.";
    private const int MapCallLinesAbove = 5;
    private readonly Dictionary<string, ModuleSource?> _modules = [];

    [GeneratedRegex(@"\.Map(?<verb>Get|Post|Put|Delete|Patch)\(\s*""(?<route>[^""]*)""")]
    private static partial Regex MapCall();

    [GeneratedRegex(@"\.MapGroup\(\s*(""(?<prefix>[^""]*)"")?")]
    private static partial Regex MapGroupCall();

    [GeneratedRegex(@"^\s*(?<receiver>\w+)\s*(\.|$)")]
    private static partial Regex Receiver();

    /// <summary>The call site of <paramref name="stack"/>'s leaf-most user frame at <paramref name="user"/> (leaf first).</summary>
    public BlockingCall Resolve(ThreadStack stack, int user)
    {
        var below = stack.Frames.Take(user).Reverse().Select(SourceNames.Describe).ToList();
        var userName = SourceNames.Describe(stack.Frames[user]);
        var (handler, route) = Handler(stack, user);
        if (Place(stack, user) is not { } place)
        {
            return new BlockingCall(userName, BlockingPrimitive.Classify(below, []) ?? Unknown(below), null, route, handler, null, "the sampled frame has no IL offset or its module is not on this machine: no lines");
        }
        var (module, token, ilOffset) = place;
        var statement = module.Statement(token, ilOffset);
        var calls = statement is { } s ? module.Calls(token, s.Start, s.End) : module.Calls(token);
        var primitive = BlockingPrimitive.Classify(below, [.. calls.Select(c => SourceNames.Describe(c.Callee))]);
        if (Blocking(module, token, calls, primitive, 0) is not { } found)
        {
            // The statement's IL shows no blocking call (the offset fell beside it): the frame and its statement's line.
            return new BlockingCall(userName, primitive ?? Unknown(below), statement?.Line, route, handler, null, module.PdbNote);
        }
        var method = found.Token == token ? userName : SourceNames.Describe(module.MethodName(found.Token));
        // The call found in the IL says which wait it was when the stack could not (the JIT inlined it).
        var called = BlockingPrimitive.Match(SourceNames.Describe(found.Call.Callee));
        return new BlockingCall(method, (primitive is null or BlockingPrimitive.TaskWait ? called ?? primitive : primitive) ?? Unknown(below),
            module.LineOf(found.Token, found.Call.ILOffset), route, handler, found.Token == token ? null : userName, module.PdbNote);
    }

    /// <summary>
    /// A request or work item parked in a blocking call with no user frame on its stack: with dynamic PGO the JIT inlines
    /// the developer's whole chain into a framework frame (ASP.NET Core's compiled request delegate, a LINQ iterator that
    /// invoked the lambda). The modules of the application (<paramref name="appModules"/>: those of the user frames seen on
    /// any thread) are searched for the methods whose IL makes that blocking call; null when the stack shows no blocking
    /// call or no method of the application makes it.
    /// </summary>
    public BlockingCall? ResolveInlinedAway(ThreadStack stack, IReadOnlyCollection<string> appModules)
    {
        var rootFirst = stack.Frames.Reverse().Select(SourceNames.Describe).ToList();
        var entry = rootFirst.FindIndex(f => BlockingPrimitive.Match(f) is not null);
        if (entry <= 0 || BlockingPrimitive.Match(rootFirst[entry]) is not { } primitive)
        {
            return null;
        }
        var callers = appModules
            .Select(path => Module(path))
            .OfType<ModuleSource>()
            .SelectMany(module => module.Methods().SelectMany(token => module.Calls(token)
                .Where(c => Compatible(BlockingPrimitive.Match(SourceNames.Describe(c.Callee)), primitive))
                .Take(1)
                .Select(c => (Module: module, Token: token, Call: c))))
            .ToList();
        if (callers.Count == 0)
        {
            return null;
        }
        var named = callers
            .Select(c => (Name: SourceNames.Describe(c.Module.MethodName(c.Token)), Line: c.Module.LineOf(c.Token, c.Call.ILOffset), Route: RouteAbove(c.Module, c.Token, 0)))
            .DistinctBy(c => (c.Name, c.Line))
            .ToList();
        var (module, token, call) = callers[0];
        var inliner = stack.Frames[stack.Frames.Count - entry].StartsWith(CompiledDelegate, StringComparison.Ordinal)
            ? "ASP.NET Core's compiled request delegate"
            : rootFirst[entry - 1];
        var pdb = module.PdbNote is { } pdbNote ? $"; {pdbNote}" : "";
        if (named.Count == 1)
        {
            return new BlockingCall(named[0].Name, primitive, named[0].Line, named[0].Route, null, inliner,
                $"no frame of the application is on the stack: {named[0].Name} is the one method of {Path.GetFileName(module.Path)} whose IL makes this call{pdb}");
        }
        // Several make the call and the stack cannot say which did: all of them, each with its line, and a route only when they share it.
        var listed = string.Join(", ", named.Select(c => c.Line is { } line ? $"{c.Name} ({Path.GetFileName(line.File)}:{line.Line})" : c.Name));
        var routes = named.Select(c => c.Route).Distinct().ToList();
        return new BlockingCall($"one of {named.Count}: {listed}", primitive, null, routes.Count == 1 ? routes[0] : null, null, inliner,
            $"no frame of the application is on the stack and {named.Count} of its methods make this call, so which one blocked is not known{pdb}")
        {
            Candidates = named.Count,
        };
    }

    /// <summary>The route of the handler that calls the method, looking up through its callers in the module.</summary>
    private static string? RouteAbove(ModuleSource module, int token, int depth)
    {
        var route = ControllerRoute(module, token)
            ?? (module.EnclosingMethod(token) is { } enclosing ? ControllerRoute(module, enclosing) : null)
            ?? MapRoute(module, token, module.MethodName(token));
        if (route is not null || depth == InlineDepth)
        {
            return route;
        }
        return module.Methods()
            .Where(caller => module.Calls(caller).Any(c => c.LocalToken == token))
            .Select(caller => RouteAbove(module, caller, depth + 1))
            .FirstOrDefault(r => r is not null);
    }

    private static bool Compatible(string? called, string seen) =>
        called is not null && (called == seen || (seen == BlockingPrimitive.TaskWait && BlockingPrimitive.IsTaskWait(called)));

    /// <summary>The call in the method (or a same-module method it calls and the JIT inlined) that blocks as <paramref name="primitive"/> says.</summary>
    private (int Token, ILCall Call)? Blocking(ModuleSource module, int token, IReadOnlyList<ILCall> calls, string? primitive, int depth)
    {
        var direct = calls.FirstOrDefault(c => BlockingPrimitive.Match(SourceNames.Describe(c.Callee)) is { } p && (primitive is null || Compatible(p, primitive)));
        if (direct is not null)
        {
            return (token, direct);
        }
        if (depth == InlineDepth)
        {
            return null;
        }
        foreach (var local in calls.Where(c => c.LocalToken is not null))
        {
            if (Blocking(module, local.LocalToken!.Value, module.Calls(local.LocalToken.Value), primitive, depth + 1) is { } found)
            {
                return found;
            }
        }
        return null;
    }

    // The first managed frame below the user's: TraceEvent's pseudo-frames ("CPU_TIME", "UNMANAGED_CODE_TIME") are no call.
    private static string Unknown(IReadOnlyList<string> below) =>
        below.FirstOrDefault(f => !f.StartsWith(BlockingSites.NativeCode, StringComparison.Ordinal) && !f.All(c => char.IsAsciiLetterUpper(c) || c == '_')) is { } frame ? $"a call into {frame}"
        : below.Contains(BlockingSites.OnCpu) ? "no call (it ran its own code)" : BlockingSites.NativeCode;

    /// <summary>The ASP.NET Core handler (the outermost user frame above the leaf-most one, below the pipeline's frames) and its route.</summary>
    private (string? Handler, string? Route) Handler(ThreadStack stack, int user)
    {
        if (HandlerFrame(stack.Frames, user) is not { } handler)
        {
            return (null, null);
        }
        var name = SourceNames.Describe(stack.Frames[handler]);
        if (Place(stack, handler) is not { } place)
        {
            return (name, null);
        }
        // An action's lambda whose action the JIT inlined into the framework's caller: the action's attributes still say the route.
        var route = ControllerRoute(place.Module, place.Token)
            ?? (place.Module.EnclosingMethod(place.Token) is { } enclosing ? ControllerRoute(place.Module, enclosing) : null)
            ?? MapRoute(place.Module, place.Token, stack.Frames[handler]);
        return (name, route);
    }

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

    /// <summary>"GET /orders/{id:int}" from a controller action's [HttpGet("{id:int}")] and its controller's [Route("orders")].</summary>
    private static string? ControllerRoute(ModuleSource module, int token)
    {
        var verb = module.Attributes(token, ofDeclaringType: false)
            .Select(a => (Verb: HttpVerb(a.Attribute), a.Template))
            .FirstOrDefault(a => a.Verb is not null);
        if (verb.Verb is null)
        {
            return null;
        }
        var prefix = module.Attributes(token, ofDeclaringType: true).FirstOrDefault(a => a.Attribute.EndsWith(".RouteAttribute", StringComparison.Ordinal)).Template;
        var type = module.MethodName(token);
        var controller = SourceNames.Describe(type).Split('.')[0];
        var action = type[(type.LastIndexOf('.') + 1)..];
        var template = string.Join('/', new[] { prefix, verb.Template }.Where(t => !string.IsNullOrEmpty(t)).Select(t => t!.Trim('/')));
        template = template
            .Replace("[controller]", controller.EndsWith("Controller", StringComparison.Ordinal) ? controller[..^"Controller".Length] : controller, StringComparison.Ordinal)
            .Replace("[action]", action, StringComparison.Ordinal);
        return $"{verb.Verb} /{template}";
    }

    private static string? HttpVerb(string attribute) => attribute switch
    {
        "Microsoft.AspNetCore.Mvc.HttpGetAttribute" => "GET",
        "Microsoft.AspNetCore.Mvc.HttpPostAttribute" => "POST",
        "Microsoft.AspNetCore.Mvc.HttpPutAttribute" => "PUT",
        "Microsoft.AspNetCore.Mvc.HttpDeleteAttribute" => "DELETE",
        "Microsoft.AspNetCore.Mvc.HttpPatchAttribute" => "PATCH",
        _ => null,
    };

    /// <summary>
    /// A minimal-API route from the source: for a lambda, the MapGet/MapPost... call that starts on its line or a few
    /// lines above; for a method, the Map call that names it (a method group, or a lambda on the Map call's line that
    /// calls it, when the JIT inlined that lambda into ASP.NET Core's request delegate). Null without a PDB or its sources.
    /// </summary>
    private static string? MapRoute(ModuleSource module, int token, string frame)
    {
        if (SourceNames.Describe(frame).StartsWith("the lambda in ", StringComparison.Ordinal))
        {
            if (module.LineOf(token, 0) is not { } line || !File.Exists(line.File))
            {
                return null;
            }
            var lines = File.ReadAllLines(line.File);
            for (var i = line.Line - 1; i >= Math.Max(0, line.Line - 1 - MapCallLinesAbove); i--)
            {
                if (i < lines.Length && MapCall().IsMatch(lines[i]))
                {
                    return MapRouteAt(lines, i);
                }
            }
            return null;
        }
        // The Map call names the method as its own type's file calls it (FanOutAsync), other files with its type
        // (Orders.Get). The file is found by the type's declaration: an async method's own frame has no line to give it.
        var method = SourceNames.Describe(module.MethodName(token));
        var type = method[..Math.Max(0, method.LastIndexOf('.'))];
        var declaration = new Regex($@"\b(class|record|struct)\s+{Regex.Escape(type[(type.LastIndexOf('.') + 1)..])}\b");
        foreach (var document in module.Documents())
        {
            var text = File.ReadAllLines(document);
            var name = type.Length > 0 && text.Any(declaration.IsMatch) ? method[(method.LastIndexOf('.') + 1)..] : method;
            for (var i = 0; i < text.Length; i++)
            {
                if (MapCall().Match(text[i]) is { Success: true } map && Regex.IsMatch(text[i][(map.Index + map.Length)..], $@"\b{Regex.Escape(name)}\s*[()]"))
                {
                    return MapRouteAt(text, i);
                }
            }
        }
        return null;
    }

    /// <summary>
    /// "GET /api/fanout" for the Map call on line <paramref name="index"/>, with the prefix of the MapGroup it is called
    /// on: in the same statement's chain, or assigned to the variable the statement starts with. Null when a group's
    /// prefix is not a string literal: no route rather than half of one.
    /// </summary>
    internal static string? MapRouteAt(IReadOnlyList<string> lines, int index)
    {
        var map = MapCall().Match(lines[index]);
        return GroupPrefix(lines, index, map.Index) is { } prefix
            ? $"{map.Groups["verb"].Value.ToUpperInvariant()} {JoinRoute(prefix, map.Groups["route"].Value)}"
            : null;
    }

    /// <summary>The text of a statement from its start to <paramref name="column"/> of line <paramref name="index"/> (back to the line after one ending in ; { or }).</summary>
    private static (string Text, int FirstLine) StatementBefore(IReadOnlyList<string> lines, int index, int column)
    {
        var first = index;
        while (first > 0 && lines[first - 1].TrimEnd() is var above && !(above.EndsWith(';') || above.EndsWith('{') || above.EndsWith('}')))
        {
            first--;
        }
        return (string.Join('\n', lines.Skip(first).Take(index - first).Append(lines[index][..column])), first);
    }

    private static string? GroupPrefix(IReadOnlyList<string> lines, int index, int column)
    {
        var (statement, first) = StatementBefore(lines, index, column);
        var groups = MapGroupCall().Matches(statement);
        if (groups.Count > 0)
        {
            return Prefix(groups);
        }
        if (Receiver().Match(statement) is not { Success: true } receiver)
        {
            return "";
        }
        // "group.MapGet(...)": the nearest assignment to that variable above in the same method (a "}" left of the
        // statement closes the member before it), and the groups of its statement.
        var assigned = new Regex($@"\b{Regex.Escape(receiver.Groups["receiver"].Value)}\s*=[^=]");
        var indent = Indent(lines[first]);
        for (var i = first - 1; i >= 0 && !(lines[i].Trim() == "}" && Indent(lines[i]) < indent); i--)
        {
            if (assigned.Match(lines[i]) is { Success: true } assignment)
            {
                var end = lines.Skip(i).TakeWhile(l => !l.TrimEnd().EndsWith(';')).Count() + i;
                var text = string.Join('\n', lines.Skip(i).Take(end - i + 1))[assignment.Index..];
                return Prefix(MapGroupCall().Matches(text));
            }
        }
        return "";
    }

    /// <summary>The groups' prefixes joined ("/api" and "receive" make "/api/receive"); null when one is not a string literal.</summary>
    private static string? Prefix(MatchCollection groups) =>
        groups.Any(g => !g.Groups["prefix"].Success) ? null : groups.Aggregate("", (prefix, g) => JoinRoute(prefix, g.Groups["prefix"].Value));

    private static int Indent(string line) => line.Length - line.TrimStart().Length;

    private static string JoinRoute(string prefix, string route) =>
        "/" + string.Join('/', new[] { prefix, route }.Select(p => p.Trim('/')).Where(p => p.Length > 0));

    internal (ModuleSource Module, int Token, int ILOffset)? Place(ThreadStack stack, int index) =>
        stack.Locations.ElementAtOrDefault(index) is { } location && Module(location.ModulePath) is { } module
            ? (module, location.MethodToken, location.ILOffset)
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
