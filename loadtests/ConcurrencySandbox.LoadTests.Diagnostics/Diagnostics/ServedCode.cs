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

    public ServedCode(ApplicationCode code, string? requestPath)
    {
        Code = code;
        _requestPath = requestPath;
        All = Endpoints.Read(code);
        Serving = requestPath is null ? [] : Endpoints.Serving(All, requestPath);
        _middleware = [.. code.Middleware()];
        _background = [.. code.BackgroundWork()];
    }

    public ApplicationCode Code { get; }

    /// <summary>Every endpoint the application's metadata and sources show.</summary>
    public IReadOnlyList<AppEndpoint> All { get; }

    /// <summary>The endpoints that serve the runner's path (several when their templates tie; none when not known or none matched).</summary>
    public IReadOnlyList<AppEndpoint> Serving { get; }

    /// <summary>The route of the one endpoint serving the runner's path, else null.</summary>
    public string? ServingRoute => Serving is [var one] ? one.Route : null;

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

    /// <summary>The route a request that reached <paramref name="method"/> served: its root's endpoint's, else the serving endpoint's.</summary>
    public string? RouteOf(IReadOnlyDictionary<AppMethod, Reached> reach, AppMethod method) =>
        (Root(reach, method) is { } root ? All.FirstOrDefault(e => e.Handler == root)?.Route : null) ?? ServingRoute;

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
