namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// What the application can run under the runner's load, from what the runner knows: the endpoint that serves the path
/// it loads (<see cref="Endpoints.Serving"/>) and the middleware around every request, or, on a pool thread outside any
/// request, the background services' work and what that endpoint queues (Task.Run). Each as the set of methods
/// reachable from those roots (<see cref="ApplicationCode.Reach"/>), with the path to each.
/// </summary>
internal sealed class ServedCode
{
    private readonly string? _requestPath;
    private readonly IReadOnlyList<AppMethod> _middleware;
    private readonly IReadOnlyList<AppMethod> _background;
    private IReadOnlyDictionary<AppMethod, Reached>? _inRequest;
    private IReadOnlyDictionary<AppMethod, Reached>? _outsideRequest;
    private readonly Dictionary<AppMethod, IReadOnlyDictionary<AppMethod, Reached>> _reachOf = [];

    /// <param name="runtimeRoutes">The requests ASP.NET Core's own metrics counted by matched route (<see cref="RuntimeObserver.Routes"/>); null or empty when not read.</param>
    public ServedCode(ApplicationCode code, string? requestPath, IReadOnlyDictionary<string, long>? runtimeRoutes = null)
    {
        Code = code;
        _requestPath = requestPath;
        All = Endpoints.Read(code);
        var fromMetadata = requestPath is null ? [] : Endpoints.Serving(All, requestPath);
        RuntimeRoute = requestPath is null ? null : RuntimeRouteOf(runtimeRoutes, requestPath);
        (Serving, RouteCheck) = Choose(fromMetadata, RuntimeRoute);
        _middleware = [.. code.Middleware()];
        _background = [.. code.BackgroundWork()];
    }

    /// <summary>The route ASP.NET Core's own metrics say served the loaded path ("GET /orders/{id:int}"), or null when they said none.</summary>
    public string? RuntimeRoute { get; }

    /// <summary>How the runtime's route bore on the endpoint the metadata found: confirmed it, chose among ties, or disagreed (the runtime trusted); null when the runtime said no route.</summary>
    public string? RouteCheck { get; }

    /// <summary>Of the routes the runtime counted, the one whose pattern matches <paramref name="path"/> with the most requests (other traffic, an upstream call to the service itself, has routes of its own).</summary>
    private static string? RuntimeRouteOf(IReadOnlyDictionary<string, long>? routes, string path) => routes?
        .Where(r => r.Key.Split(' ', 2) is [var verb, var pattern] && verb is "GET" or "*" && RouteTemplates.Match(pattern, path) is not null)
        .OrderByDescending(r => r.Value)
        .Select(r => $"{r.Key[..r.Key.IndexOf(' ')]} {RouteTemplates.Normalize(r.Key[(r.Key.IndexOf(' ') + 1)..])}")
        .FirstOrDefault();

    /// <summary>The endpoints serving the path: the metadata's, checked against the runtime's route when there is one, the runtime trusted when they disagree.</summary>
    private (IReadOnlyList<AppEndpoint> Serving, string? Check) Choose(IReadOnlyList<AppEndpoint> fromMetadata, string? runtimeRoute)
    {
        if (runtimeRoute is null)
        {
            return (fromMetadata, null);
        }
        // A template the sources give whole is preferred to one with holes the runtime's route fills.
        var exact = All.Where(e => Same(e, runtimeRoute)).ToList();
        var routed = exact.Count > 0 ? exact : [.. All.Select(e => Filled(e, runtimeRoute)).OfType<AppEndpoint>()];
        var agreed = fromMetadata.Where(routed.Contains).ToList();
        if (agreed.Count > 0)
        {
            return (agreed, fromMetadata.Count > agreed.Count
                ? $"ASP.NET Core's metrics say the route is {runtimeRoute}, which chose it among the {fromMetadata.Count} endpoints whose templates match {_requestPath}"
                : $"ASP.NET Core's metrics confirm the route {runtimeRoute}");
        }
        var metadata = fromMetadata.Count == 0 ? "no endpoint in the application's metadata and sources matches it" : $"the metadata gave {string.Join(", ", fromMetadata.Select(e => e.Route))}";
        return (routed, $"ASP.NET Core's metrics say {_requestPath} was served by {runtimeRoute}; {metadata}: the runtime's route is trusted{(routed.Count == 0 ? ", its handler not found in the metadata" : "")}");
    }

    /// <summary>Whether the runtime's "VERB pattern" is <paramref name="endpoint"/>'s: the same verb (any for "*") and the same template, or the conventional route's pattern it came from.</summary>
    private static bool Same(AppEndpoint endpoint, string runtimeRoute)
    {
        var (verb, pattern) = (runtimeRoute[..runtimeRoute.IndexOf(' ')], runtimeRoute[(runtimeRoute.IndexOf(' ') + 1)..]);
        return (endpoint.Verb == "*" || endpoint.Verb == verb)
            && new[] { endpoint.Template, endpoint.Pattern }.OfType<string>().Any(t => string.Equals(RouteTemplates.Normalize(t), RouteTemplates.Normalize(pattern), StringComparison.OrdinalIgnoreCase));
    }

    /// <summary>The endpoint with its holes filled from the runtime's "VERB pattern" when its template has holes and they match it (the verb too), else null.</summary>
    private static AppEndpoint? Filled(AppEndpoint endpoint, string runtimeRoute)
    {
        var (verb, pattern) = (runtimeRoute[..runtimeRoute.IndexOf(' ')], runtimeRoute[(runtimeRoute.IndexOf(' ') + 1)..]);
        return (endpoint.Verb == "*" || endpoint.Verb == verb) && endpoint.Template is { } template && RouteTemplates.HasHoles(template)
            && RouteTemplates.Fill(template, pattern, pattern: true) is { } filled
            ? endpoint with { Template = filled }
            : null;
    }

    public ApplicationCode Code { get; }

    /// <summary>Every endpoint the application's metadata and sources show.</summary>
    public IReadOnlyList<AppEndpoint> All { get; }

    /// <summary>The endpoints that serve the runner's path (several when their templates tie; none when not known or none matched).</summary>
    public IReadOnlyList<AppEndpoint> Serving { get; }

    /// <summary>The route of the endpoints serving the runner's path when they share one (several handlers a variable can hold), else the route the runtime said served it, else null.</summary>
    public string? ServingRoute => Serving.Select(e => e.Route).Distinct().ToList() is [{ } one] ? one : RuntimeRoute;

    /// <summary>What a request can run: the serving endpoint's code (every endpoint's when none is known to serve the path) and the middleware's.</summary>
    public IReadOnlyDictionary<AppMethod, Reached> InRequest =>
        _inRequest ??= Code.Reach([.. (Serving.Count > 0 ? Serving : All).Select(e => e.Handler), .. _middleware]);

    /// <summary>What a pool thread outside a request can run: the background services' work, and what the serving endpoint queues.</summary>
    public IReadOnlyDictionary<AppMethod, Reached> OutsideRequest =>
        _outsideRequest ??= Code.Reach([.. _background, .. Serving.Select(e => e.Handler)]);

    /// <summary>What <see cref="InRequest"/> or <see cref="OutsideRequest"/> covered, in words: "the code GET /orders/{id:int} runs and the middleware's".</summary>
    public string Scope(bool inRequest)
    {
        var endpoints = Serving.Count == 1 ? $"the code {Serving[0].Route ?? Serving[0].Handler.Name} runs"
            : Serving.Count > 1 ? $"the code of the {Serving.Count} endpoints whose routes match {_requestPath}"
            : $"the code of every endpoint of the application ({All.Count}; {(_requestPath is null ? "the loaded path is not known" : $"none matched {_requestPath}")})";
        return inRequest
            ? $"{endpoints}{(_middleware.Count > 0 ? $" and its {_middleware.Count} middleware" : "")}"
            : $"the background services' work ({string.Join(", ", _background.Select(b => b.Name).DefaultIfEmpty("none"))}){(Serving.Count > 0 ? $" and what {endpoints[9..]} queues" : "")}";
    }

    /// <summary>Why the whole application was searched: nothing could run there by what its metadata and sources show.</summary>
    public string Unscoped(bool inRequest) => inRequest
        ? All.Count == 0 ? "no endpoint was found in its metadata or sources: not ASP.NET Core, or its sources are not on this machine, so no route" : "no endpoint's code reaches a blocking call"
        : "no background service, and no endpoint serving the loaded path, was found";

    /// <summary>Why a call site has no route: "no route: the thread served no request", or why the request's endpoint is not known.</summary>
    public string NoRoute(bool inRequest) => !inRequest ? "no route: the thread served no request (not ASP.NET Core's pipeline, nor a background service of the application)"
        : All.Count == 0 ? "no route: no endpoint was found in the application's metadata, nor in its sources (read through its PDB)"
        : $"no route: the handler on the stack is none of the application's {All.Count} endpoints{(_requestPath is null ? "" : $", and none serves {_requestPath}")}";

    /// <summary>The endpoint whose handler is <paramref name="method"/>: the handler itself, its state machine, a lambda in it, or a method it calls straight away.</summary>
    public AppEndpoint? EndpointOf(AppMethod method) => Serving.Concat(All).FirstOrDefault(e =>
        e.Handler == method
        || (e.Handler.Module == method.Module && method.Module.EnclosingMethod(method.Token) == e.Handler.Token)
        || Code.Callees(e.Handler).Any(c => c.Callee == method));

    /// <summary>Whether <paramref name="method"/> is the application's middleware: an Invoke/InvokeAsync or app.Use lambda, its async state machine, or a lambda in it.</summary>
    public bool IsMiddleware(AppMethod method) => _middleware.Any(m => m == method
        || (m.Module == method.Module && (m.Module.StateMachineMoveNext(m.Token) == method.Token || m.Module.EnclosingMethod(method.Token) == m.Token)));

    /// <summary>Whether a request reached <paramref name="method"/> from the application's middleware (its root in <paramref name="reach"/>), not from the endpoint's handler.</summary>
    public bool InMiddleware(IReadOnlyDictionary<AppMethod, Reached> reach, AppMethod method) =>
        Root(reach, method) is { } root && _middleware.Contains(root);

    /// <summary>The route a request that reached <paramref name="method"/> served: its root's endpoint's, else the serving endpoint's.</summary>
    public string? RouteOf(IReadOnlyDictionary<AppMethod, Reached> reach, AppMethod method) =>
        (Root(reach, method) is { } root ? All.FirstOrDefault(e => e.Handler == root)?.Route : null) ?? ServingRoute;

    /// <summary>
    /// The route of the request that queued <paramref name="method"/> (Task.Run's work item, on a pool thread outside the
    /// request): that of the serving endpoints whose handler's code reaches it, when they share one; null when none reaches
    /// it or they differ (none picked).
    /// </summary>
    public string? QueuedBy(AppMethod method) => Serving
        .Where(e => ReachOf(e.Handler).ContainsKey(method))
        .Select(e => e.Route)
        .Distinct()
        .ToList() is [{ } one] ? one : null;

    private IReadOnlyDictionary<AppMethod, Reached> ReachOf(AppMethod handler)
    {
        if (!_reachOf.TryGetValue(handler, out var reach))
        {
            _reachOf[handler] = reach = Code.Reach([handler]);
        }
        return reach;
    }

    /// <summary>The background service whose work reached <paramref name="method"/> ("Worker"), or null.</summary>
    public string? BackgroundOf(IReadOnlyDictionary<AppMethod, Reached> reach, AppMethod method) =>
        Root(reach, method) is { } root && _background.Contains(root) ? root.Name[..Math.Max(0, root.Name.LastIndexOf('.'))] : null;

    private static AppMethod? Root(IReadOnlyDictionary<AppMethod, Reached> reach, AppMethod method)
    {
        if (!reach.TryGetValue(method, out var at))
        {
            return null;
        }
        for (var steps = 0; at.Caller is { } caller && steps <= ApplicationCode.WalkDepth; steps++)
        {
            at = reach[caller];
        }
        return at.Method;
    }
}
