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
    private readonly HashSet<string> _unregistered = [];
    private IReadOnlyDictionary<string, HashSet<string>>? _registrations;

    // Microsoft.Extensions.DependencyInjection's registration methods: ServiceCollectionServiceExtensions' Add* and ServiceCollectionDescriptorExtensions' TryAdd*.
    private static readonly HashSet<string> Registering =
    [
        "AddSingleton", "AddScoped", "AddTransient", "TryAddSingleton", "TryAddScoped", "TryAddTransient",
        "AddKeyedSingleton", "AddKeyedScoped", "AddKeyedTransient",
    ];

    private const string DependencyInjection = "Microsoft.Extensions.DependencyInjection.";

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
        var implementations = _types.Values.Where(t => t.Type.Name == type || IsA(t.Type.Name, type)).ToList();
        if (implementations.Count(t => t.Type.Methods.Any(t.Module.HasBody)) > 1)
        {
            // Several classes implement it: the one DI was told to make, when the application's IL registers it.
            if (Registrations().TryGetValue(type, out var registered) && implementations.Any(t => registered.Contains(t.Type.Name)))
            {
                implementations = [.. implementations.Where(t => registered.Contains(t.Type.Name))];
            }
            else
            {
                lock (_unregistered)
                {
                    _unregistered.Add(type);
                }
            }
        }
        // A class that inherits the method (a repository deriving from a generic RepositoryBase<TEntity>) runs its nearest
        // ancestor's, which several implementations can share.
        var yielded = new HashSet<AppMethod>();
        foreach (var (owner, ownerType) in implementations)
        {
            var (declarer, methods) = Lineage(owner, ownerType)
                .Select(t => (t.Module, Methods: t.Type.Methods.Where(m => t.Module.HasBody(m) && Implements(t.Module.MethodName(m), t.Type.Name, type, name)).ToList()))
                .FirstOrDefault(t => t.Methods.Count > 0, (Module: owner, Methods: new List<int>()));
            foreach (var method in methods.Where(m => (declarer != module || m != call.LocalToken) && yielded.Add(new AppMethod(declarer, m))))
            {
                yield return new AppMethod(declarer, method);
            }
        }
    }

    /// <summary>The type and its base types, as far as the application's own types go, nearest first.</summary>
    private IEnumerable<(ModuleSource Module, ModuleType Type)> Lineage(ModuleSource module, ModuleType type)
    {
        for (var depth = 0; depth < 16; depth++)
        {
            yield return (module, type);
            if (type.BaseType is not { } baseType || !_types.TryGetValue(baseType, out var known))
            {
                yield break;
            }
            (module, type) = known;
        }
    }

    /// <summary>The application's types with several implementations whose DI registration its IL does not show (each implementation a candidate): "IQuotes".</summary>
    public IReadOnlyCollection<string> Unregistered
    {
        get
        {
            lock (_unregistered)
            {
                return [.. _unregistered];
            }
        }
    }

    /// <summary>
    /// The implementations the application's IL registers for each service type: AddSingleton/AddScoped/AddTransient
    /// (and TryAdd*, AddKeyed*) with two type arguments, or with one and a factory lambda whose IL constructs the
    /// implementation (<c>AddSingleton&lt;IQuotes&gt;(_ =&gt; new Quotes(...))</c>). A registration made another way
    /// (typeof arguments, an instance, a scan) is not read.
    /// </summary>
    public IReadOnlyDictionary<string, HashSet<string>> Registrations() => _registrations ??= ReadRegistrations();

    private Dictionary<string, HashSet<string>> ReadRegistrations()
    {
        var registrations = new Dictionary<string, HashSet<string>>();
        void Add(string service, string implementation)
        {
            if (!registrations.TryGetValue(service, out var set))
            {
                registrations[service] = set = [];
            }
            set.Add(implementation);
        }
        foreach (var method in Methods())
        {
            var calls = method.Module.Calls(method.Token);
            for (var i = 0; i < calls.Count; i++)
            {
                var (type, name) = calls[i].Split();
                if (!type.StartsWith(DependencyInjection, StringComparison.Ordinal) || !Registering.Contains(name))
                {
                    continue;
                }
                switch (calls[i].TypeArguments)
                {
                    case [var service, var implementation]:
                        Add(service, implementation);
                        break;
                    case [var service]:
                        // The factory lambda handed to it (the nearest delegate made before the call): the types its IL constructs that are the service.
                        var factory = calls.Take(i).LastOrDefault(c => c.Delegate && c.LocalToken is not null);
                        foreach (var constructed in factory is null ? [] : method.Module.Calls(factory.LocalToken!.Value).Where(c => c.Callee.EndsWith("..ctor", StringComparison.Ordinal)))
                        {
                            var made = constructed.Callee[..^"..ctor".Length];
                            if (made != service && IsA(made, service))
                            {
                                Add(service, made);
                            }
                        }
                        break;
                }
            }
        }
        return registrations;
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
