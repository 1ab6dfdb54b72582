namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>One method of the application: its module and metadata token.</summary>
internal sealed record AppMethod(ModuleSource Module, int Token)
{
    /// <summary>The method in the developer's words ("OrdersController.Get", "the lambda in Program (top-level statements)").</summary>
    public string Name => SourceNames.Describe(Module.MethodName(Token));

    /// <summary>The line of the statement at <paramref name="ilOffset"/> in the method, when its module has a matching PDB.</summary>
    public SourceLine? LineOf(int ilOffset) => Module.LineOf(Token, ilOffset);
}

/// <summary>How a method was reached from a root: the method that calls it (null for a root) and the IL offset of that call.</summary>
internal sealed record Reached(AppMethod Method, AppMethod? Caller, int CallOffset, int Depth);

/// <summary>
/// The application's modules read as one program (System.Reflection.Metadata, no loading): which methods a method's IL
/// can run, following what a stack cannot show once the JIT inlined it: direct calls, calls through an interface or a
/// virtual method to every implementation the application's types give (a controller's constructor-injected
/// IOrderService is whichever class DI made), calls into the application's other modules, the lambdas and local
/// functions a method makes delegates of (LINQ, Task.Run), and the state machines of async methods and iterators.
/// </summary>
internal sealed class ApplicationCode
{
    /// <summary>How far below a root the walk goes: deep enough for a handler's service, its client and their helpers.</summary>
    public const int WalkDepth = 8;

    private readonly IReadOnlyList<ModuleSource> _modules;
    private readonly Dictionary<string, (ModuleSource Module, ModuleType Type)> _types = [];

    public ApplicationCode(IEnumerable<ModuleSource> modules)
    {
        _modules = [.. modules];
        foreach (var module in _modules)
        {
            foreach (var type in module.Types())
            {
                _types.TryAdd(type.Name, (module, type));
            }
        }
    }

    public IReadOnlyList<ModuleSource> Modules => _modules;

    /// <summary>Every method of the application that has IL.</summary>
    public IEnumerable<AppMethod> Methods() => _modules.SelectMany(m => m.Methods().Select(t => new AppMethod(m, t)));

    /// <summary>The application's types, each with its module.</summary>
    public IEnumerable<(ModuleSource Module, ModuleType Type)> Types() => _types.Values;

    /// <summary>Whether <paramref name="type"/> is, derives from or implements <paramref name="ancestor"/> (as far as the application's own types say).</summary>
    public bool IsA(string type, string ancestor)
    {
        for (var depth = 0; depth < 16 && type is not null; depth++)
        {
            if (type == ancestor)
            {
                return true;
            }
            if (!_types.TryGetValue(type, out var known))
            {
                return false;
            }
            if (known.Type.Interfaces.Any(i => i == ancestor || IsA(i, ancestor)))
            {
                return true;
            }
            type = known.Type.BaseType!;
        }
        return false;
    }

    /// <summary>The methods a call to <paramref name="call"/> (made in <paramref name="module"/>) can run in the application.</summary>
    public IEnumerable<AppMethod> Targets(ModuleSource module, ILCall call)
    {
        var (type, name) = call.Split();
        if (call.LocalToken is { } token)
        {
            if (module.HasBody(token))
            {
                yield return new AppMethod(module, token);
            }
            if (!module.IsVirtual(token))
            {
                yield break;
            }
        }
        else if (!_types.ContainsKey(type))
        {
            // A framework method: what it runs of the application (a delegate it was handed) is followed where the delegate is made.
            yield break;
        }
        foreach (var (owner, ownerType) in _types.Values.Where(t => t.Type.Name == type || IsA(t.Type.Name, type)))
        {
            foreach (var method in ownerType.Methods.Where(m => owner.HasBody(m) && Implements(owner.MethodName(m), ownerType.Name, type, name)))
            {
                if (owner != module || method != call.LocalToken)
                {
                    yield return new AppMethod(owner, method);
                }
            }
        }
    }

    // "Shop.Orders.Get" implements "Get" of its own type or an ancestor; an explicit implementation is named "Shop.IOrders.Get".
    private static bool Implements(string method, string ownerType, string declaringType, string name)
    {
        var own = method[(ownerType.Length + 1)..];
        return own == name || own == $"{declaringType.Replace('+', '.')}.{name}";
    }

    /// <summary>The methods <paramref name="method"/>'s IL can run (<see cref="Targets"/>), each with the IL offset of the call or delegate that leads there.</summary>
    public IEnumerable<(AppMethod Callee, int ILOffset)> Callees(AppMethod method, int fromOffset = 0, int toOffset = int.MaxValue)
    {
        if (fromOffset == 0 && method.Module.StateMachineMoveNext(method.Token) is { } moveNext)
        {
            yield return (new AppMethod(method.Module, moveNext), 0);
        }
        foreach (var call in method.Module.Calls(method.Token, fromOffset, toOffset))
        {
            foreach (var target in Targets(method.Module, call))
            {
                yield return (target, call.ILOffset);
                if (target.Module.StateMachineMoveNext(target.Token) is { } machine)
                {
                    yield return (new AppMethod(target.Module, machine), call.ILOffset);
                }
            }
        }
    }

    /// <summary>Every method reachable from <paramref name="roots"/> within <paramref name="depth"/> calls, with how it was first reached (breadth first: the shortest path).</summary>
    public IReadOnlyDictionary<AppMethod, Reached> Reach(IEnumerable<AppMethod> roots, int depth = WalkDepth)
    {
        var reached = new Dictionary<AppMethod, Reached>();
        var frontier = new Queue<AppMethod>();
        foreach (var root in roots.Where(r => reached.TryAdd(r, new Reached(r, null, 0, 0))))
        {
            frontier.Enqueue(root);
        }
        while (frontier.TryDequeue(out var method))
        {
            var at = reached[method].Depth;
            if (at == depth)
            {
                continue;
            }
            foreach (var (callee, offset) in Callees(method))
            {
                if (reached.TryAdd(callee, new Reached(callee, method, offset, at + 1)))
                {
                    frontier.Enqueue(callee);
                }
            }
        }
        return reached;
    }

    /// <summary>
    /// The code ASP.NET Core runs around every request: middleware classes (an Invoke or InvokeAsync taking the
    /// HttpContext) and middleware lambdas (app.Use's (context, next)).
    /// </summary>
    public IEnumerable<AppMethod> Middleware() => Methods().Where(m =>
        m.Module.ParameterTypes(m.Token) is [HttpContext, var next, ..] && (next == "Microsoft.AspNetCore.Http.RequestDelegate" || next.StartsWith("System.Func`", StringComparison.Ordinal))
        || (m.Module.MethodName(m.Token).EndsWith(".Invoke", StringComparison.Ordinal) || m.Module.MethodName(m.Token).EndsWith(".InvokeAsync", StringComparison.Ordinal))
            && m.Module.ParameterTypes(m.Token) is [HttpContext, ..]);

    /// <summary>The work the host runs outside any request: a BackgroundService's ExecuteAsync, a hosted service's StartAsync.</summary>
    public IEnumerable<AppMethod> BackgroundWork() => _types.Values
        .Where(t => IsA(t.Type.Name, BackgroundService) || IsA(t.Type.Name, HostedService))
        .SelectMany(t => t.Type.Methods
            .Where(m => t.Module.HasBody(m) && t.Module.MethodName(m)[(t.Type.Name.Length + 1)..] is "ExecuteAsync" or "StartAsync")
            .Select(m => new AppMethod(t.Module, m)));

    private const string HttpContext = "Microsoft.AspNetCore.Http.HttpContext";
    private const string BackgroundService = "Microsoft.Extensions.Hosting.BackgroundService";
    private const string HostedService = "Microsoft.Extensions.Hosting.IHostedService";

    /// <summary>The path from a root down to <paramref name="method"/> (root last), each caller with the line of its call.</summary>
    public static IReadOnlyList<CallStep> PathUp(IReadOnlyDictionary<AppMethod, Reached> reached, AppMethod method)
    {
        var steps = new List<CallStep>();
        for (var at = reached[method]; at.Caller is { } caller && steps.Count < WalkDepth; at = reached[caller])
        {
            steps.Add(new CallStep(caller.Name, caller.LineOf(at.CallOffset)));
        }
        return steps;
    }
}
