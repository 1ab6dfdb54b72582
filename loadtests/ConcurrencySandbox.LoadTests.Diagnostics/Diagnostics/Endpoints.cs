using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// An endpoint of the application: its verb ("*" for any), its route template (null when a group's prefix is not a
/// literal the source gives; with holes, <see cref="RouteTemplates.Hole"/>, when it is an interpolated string), and the method ASP.NET Core calls for it (a controller action, a minimal-API lambda or
/// method group; an async one's state machine is reached from it).
/// </summary>
internal sealed record AppEndpoint(string Verb, string? Template, AppMethod Handler)
{
    /// <summary>The pattern ASP.NET Core's routing reports for it (the http.route tag) when it is not <see cref="Template"/>: a conventional route's ("{controller=Home}/{action=Index}/{id?}").</summary>
    public string? Pattern { get; init; }

    /// <summary>"GET /orders/{id:int}", or null without a template or with holes not filled.</summary>
    public string? Route => Template is null || RouteTemplates.HasHoles(Template) ? null : $"{Verb} {Template}";
}

/// <summary>
/// The application's endpoints, read without running it: controller actions from their [Route]/[HttpGet]... attributes
/// in the modules' metadata (with [controller] and [action] replaced), minimal APIs from the MapGet/MapPost/Map...
/// calls in the C# sources the PDBs name, parsed as Roslyn syntax trees: the handler argument (a lambda, matched to the
/// method it compiled to by the PDB's sequence points, or a method group; a local variable followed to every one assigned
/// to it, each a candidate endpoint), the template (an interpolated one with holes, filled by the runtime's route or the
/// path), and the prefixes of the MapGroup calls it is
/// mapped on, followed through local variables and through the parameters of the methods that map them (an
/// extension method <c>MapOrders(this IEndpointRouteBuilder app)</c> gets its callers' groups).
/// </summary>
internal static class Endpoints
{
    private const string ControllerBase = "Microsoft.AspNetCore.Mvc.ControllerBase";
    private const string RouteAttribute = "Microsoft.AspNetCore.Mvc.RouteAttribute";
    private const int PrefixDepth = 16;

    private static readonly Dictionary<string, string> Verbs = new()
    {
        ["MapGet"] = "GET", ["MapPost"] = "POST", ["MapPut"] = "PUT", ["MapDelete"] = "DELETE", ["MapPatch"] = "PATCH", ["Map"] = "*", ["MapMethods"] = "*",
    };

    private const string RazorCompiledItem = "Microsoft.AspNetCore.Razor.Hosting.RazorCompiledItemAttribute";
    private const string RazorMetadata = "Microsoft.AspNetCore.Razor.Hosting.RazorCompiledItemMetadataAttribute";
    private const string RazorPageKind = "mvc.1.0.razor-page";
    private const string PagesRoot = "/Pages";

    // MapDefaultControllerRoute()'s pattern.
    private const string DefaultConventionalRoute = "{controller=Home}/{action=Index}/{id?}";

    /// <summary>Every endpoint the application's metadata and sources show.</summary>
    public static IReadOnlyList<AppEndpoint> Read(ApplicationCode code)
    {
        var trees = code.Modules.ToDictionary(m => m, SourceTrees);
        // A module's Map calls may be made in another's extension method: the prefixes, callers and constants are the whole application's.
        List<SyntaxTree> application = [.. trees.Values.SelectMany(t => t)];
        var conventional = ConventionalRoutes(application).Distinct().ToList();
        return [.. Controllers(code, conventional), .. RazorPages(code), .. code.Modules.SelectMany(m => MinimalApis(m, trees[m], application))];
    }

    /// <summary>The module's C# sources (those its PDB names that are on this machine), parsed.</summary>
    private static List<SyntaxTree> SourceTrees(ModuleSource module) =>
    [
        .. module.Documents()
            .Where(d => d.EndsWith(".cs", StringComparison.OrdinalIgnoreCase))
            .Select(d => CSharpSyntaxTree.ParseText(File.ReadAllText(d), path: d)),
    ];

    /// <summary>The conventional routes the sources map: MapControllerRoute's pattern (a literal or a constant), MapDefaultControllerRoute's.</summary>
    internal static IEnumerable<string> ConventionalRoutes(IReadOnlyList<SyntaxTree> trees)
    {
        foreach (var invocation in trees.SelectMany(t => t.GetRoot().DescendantNodes().OfType<InvocationExpressionSyntax>()))
        {
            var name = invocation.Expression is MemberAccessExpressionSyntax access ? access.Name.Identifier.Text : null;
            if (name == "MapDefaultControllerRoute")
            {
                yield return DefaultConventionalRoute;
            }
            else if (name == "MapControllerRoute")
            {
                var arguments = invocation.ArgumentList.Arguments;
                var pattern = arguments.FirstOrDefault(a => a.NameColon?.Name.Identifier.Text == "pattern") ?? (arguments.Count > 1 && arguments[1].NameColon is null ? arguments[1] : null);
                if (pattern is not null && Literal(pattern.Expression, trees) is { } literal)
                {
                    yield return literal;
                }
            }
        }
    }

    /// <summary>
    /// A conventionally routed action's templates under <paramref name="pattern"/>: {controller} and {action} filled in
    /// ("{controller=Home}/{action=Index}/{id?}" gives OrdersController.Details "Orders/Details/{id?}"), and the shorter
    /// ones its defaults allow (HomeController.Index is also "Home" and "/").
    /// </summary>
    internal static IEnumerable<string> ConventionalTemplates(string pattern, string controller, string action)
    {
        var segments = pattern.Split('/', StringSplitOptions.RemoveEmptyEntries).ToList();
        var filled = new List<(string Segment, bool Droppable)>();
        foreach (var segment in segments)
        {
            var parameter = segment.StartsWith('{') && segment.EndsWith('}') ? segment[1..^1] : null;
            var name = parameter?.Split(['=', ':', '?'])[0];
            var value = name is not null && name.Equals("controller", StringComparison.OrdinalIgnoreCase) ? controller
                : name is not null && name.Equals("action", StringComparison.OrdinalIgnoreCase) ? action
                : null;
            if (value is null)
            {
                filled.Add((segment, parameter is not null && (parameter.EndsWith('?') || parameter.Contains('=', StringComparison.Ordinal))));
                continue;
            }
            var fallback = parameter!.Contains('=', StringComparison.Ordinal) ? parameter.Split('=')[1].TrimEnd('?') : null;
            filled.Add((value, string.Equals(fallback, value, StringComparison.OrdinalIgnoreCase)));
        }
        yield return RouteTemplates.Normalize(string.Join('/', filled.Select(f => f.Segment)));
        for (var keep = filled.Count - 1; keep >= 0 && filled[keep].Droppable; keep--)
        {
            if (filled[keep].Segment.StartsWith('{'))
            {
                continue;
            }
            yield return RouteTemplates.Normalize(string.Join('/', filled.Take(keep).Select(f => f.Segment)));
        }
    }

    /// <summary>
    /// Razor Pages: each page the assembly's [RazorCompiledItem(..., "mvc.1.0.razor-page", "/Pages/Orders/Details.cshtml")]
    /// lists, at its path under /Pages ("Index" dropped) joined with its @page template, served by its model's OnGet,
    /// OnPost... (the page's own when it has no model).
    /// </summary>
    private static IEnumerable<AppEndpoint> RazorPages(ApplicationCode code)
    {
        var types = code.Types().ToDictionary(t => t.Type.Name, t => t);
        foreach (var module in code.Modules)
        {
            foreach (var (_, strings) in module.AssemblyStringAttributes().Where(a => a.Attribute == RazorCompiledItem))
            {
                if (strings is not [{ } typeName, RazorPageKind, { } identifier] || !types.TryGetValue(typeName.Split(',')[0], out var page) || page.Type.Methods.Count == 0)
                {
                    continue;
                }
                var path = identifier.StartsWith(PagesRoot + "/", StringComparison.OrdinalIgnoreCase) ? identifier[PagesRoot.Length..] : identifier;
                path = path.EndsWith(".cshtml", StringComparison.OrdinalIgnoreCase) ? path[..^".cshtml".Length] : path;
                path = path.EndsWith("/Index", StringComparison.OrdinalIgnoreCase) ? path[..^"/Index".Length] : path;
                var template = page.Module.TypeStringAttributes(page.Type.Methods[0])
                    .Where(a => a.Attribute == RazorMetadata && a.Strings is ["RouteTemplate", not null])
                    .Select(a => a.Strings[1]!)
                    .FirstOrDefault();
                var route = template is null ? RouteTemplates.Normalize(path)
                    : template.StartsWith('/') || template.StartsWith("~/", StringComparison.Ordinal) ? RouteTemplates.Normalize(template)
                    : RouteTemplates.Join(path, template);
                var model = page.Type.Methods.FirstOrDefault(m => page.Module.MethodName(m).EndsWith(".get_Model", StringComparison.Ordinal)) is var getter && getter != 0
                    && types.TryGetValue(page.Module.ReturnType(getter), out var found) ? found : page;
                foreach (var handler in model.Type.Methods.Where(model.Module.HasBody))
                {
                    var name = model.Module.MethodName(handler)[(model.Type.Name.Length + 1)..];
                    var verb = name.StartsWith("On", StringComparison.Ordinal) ? name[2..].Replace("Async", "", StringComparison.Ordinal).ToUpperInvariant() : null;
                    if (verb is "GET" or "POST" or "PUT" or "DELETE" or "PATCH")
                    {
                        yield return new AppEndpoint(verb, route, new AppMethod(model.Module, handler));
                    }
                }
            }
        }
    }

    /// <summary>The endpoints that serve GET <paramref name="path"/>: the most specific of those whose template matches (several when they tie).</summary>
    public static IReadOnlyList<AppEndpoint> Serving(IReadOnlyList<AppEndpoint> endpoints, string path)
    {
        var matches = endpoints
            .Where(e => e.Verb is "GET" or "*" && e.Template is not null)
            .Select(e => !RouteTemplates.HasHoles(e.Template!) ? (Endpoint: e, Rank: RouteTemplates.Match(e.Template!, path))
                : RouteTemplates.MatchHoled(e.Template!, path) is { } holed ? (Endpoint: e with { Template = holed.Template }, Rank: holed.Ranks)
                : (Endpoint: e, Rank: null))
            .Where(m => m.Rank is not null)
            .ToList();
        if (matches.Count == 0)
        {
            return [];
        }
        var best = matches.Select(m => m.Rank!).Aggregate((a, b) => RouteTemplates.Compare(a, b) <= 0 ? a : b);
        return [.. matches.Where(m => RouteTemplates.Compare(m.Rank!, best) == 0).Select(m => m.Endpoint)];
    }

    private static IEnumerable<AppEndpoint> Controllers(ApplicationCode code, IReadOnlyList<string> conventional)
    {
        foreach (var (module, type) in code.Types().Where(t => code.IsA(t.Type.Name, ControllerBase) && t.Type.Methods.Count > 0))
        {
            var routed = module.Attributes(type.Methods[0], ofDeclaringType: true).Where(a => a.Attribute == RouteAttribute).Select(a => a.Template ?? "").ToList();
            var prefixes = routed.DefaultIfEmpty("").ToList();
            var controller = type.Name.Split('.', '+')[^1];
            var controllerName = controller.EndsWith("Controller", StringComparison.Ordinal) ? controller[..^"Controller".Length] : controller;
            foreach (var action in type.Methods.Where(m => module.IsPublicInstance(m) && module.HasBody(m)))
            {
                var attributes = module.Attributes(action, ofDeclaringType: false);
                var verbs = attributes.Select(a => HttpVerb(a.Attribute)).OfType<string>().Distinct().DefaultIfEmpty("*").ToList();
                var name = module.MethodName(action);
                var actionName = name[(name.LastIndexOf('.') + 1)..];
                // [Route] on the action gives its templates; else each [HttpGet("...")]'s (one without a template: the controller's alone).
                var templates = attributes.Where(a => a.Attribute == RouteAttribute).Select(a => (Verb: (string?)null, Template: a.Template ?? "")).ToList();
                if (templates.Count == 0)
                {
                    templates = [.. attributes.Where(a => HttpVerb(a.Attribute) is not null && (a.Template is not null || routed.Count > 0)).Select(a => ((string?)HttpVerb(a.Attribute), a.Template ?? ""))];
                }
                if (templates.Count == 0 && routed.Count == 0)
                {
                    // No attribute route on the action nor its controller: the conventional routes reach it.
                    foreach (var pattern in conventional)
                    {
                        foreach (var template in ConventionalTemplates(pattern, controllerName, actionName))
                        {
                            foreach (var verb in verbs)
                            {
                                yield return new AppEndpoint(verb, template, new AppMethod(module, action)) { Pattern = pattern };
                            }
                        }
                    }
                    continue;
                }
                foreach (var (verb, template) in templates)
                {
                    foreach (var prefix in prefixes)
                    {
                        var route = template.StartsWith('/') || template.StartsWith("~/", StringComparison.Ordinal) ? template : RouteTemplates.Join(prefix, template);
                        route = RouteTemplates.Normalize(route
                            .Replace("[controller]", controllerName, StringComparison.OrdinalIgnoreCase)
                            .Replace("[action]", actionName, StringComparison.OrdinalIgnoreCase));
                        foreach (var each in verb is null ? verbs : [verb])
                        {
                            yield return new AppEndpoint(each, route, new AppMethod(module, action));
                        }
                    }
                }
            }
        }
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

    /// <summary>The Map calls of the module's C# sources, their groups' prefixes read in the <paramref name="application"/>'s.</summary>
    private static IEnumerable<AppEndpoint> MinimalApis(ModuleSource module, IReadOnlyList<SyntaxTree> trees, IReadOnlyList<SyntaxTree> application)
    {
        foreach (var (verb, template, handler) in MapCalls(trees, application))
        {
            if (Handler(module, handler) is { } method)
            {
                yield return new AppEndpoint(verb, template, new AppMethod(module, method));
            }
        }
    }

    /// <summary>
    /// Each Map call of the trees: its verb, its full template (null when a prefix is neither a literal nor an
    /// interpolated string; holes for the interpolations) and its handler, once per handler it can be (<see cref="Handlers"/>).
    /// The groups' prefixes, the callers of the methods that map them and the constants are looked up in
    /// <paramref name="application"/> (every module's trees; <paramref name="trees"/> when null): an extension method of a
    /// class library gets the groups of the app that calls it.
    /// </summary>
    internal static IEnumerable<(string Verb, string? Template, ExpressionSyntax Handler)> MapCalls(IReadOnlyList<SyntaxTree> trees, IReadOnlyList<SyntaxTree>? application = null)
    {
        var everywhere = application ?? trees;
        foreach (var invocation in trees.SelectMany(t => t.GetRoot().DescendantNodes().OfType<InvocationExpressionSyntax>()))
        {
            if (invocation.Expression is not MemberAccessExpressionSyntax access || !Verbs.TryGetValue(access.Name.Identifier.Text, out var verb))
            {
                continue;
            }
            var arguments = invocation.ArgumentList.Arguments;
            var handlerIndex = access.Name.Identifier.Text == "MapMethods" ? 2 : 1;
            if (arguments.Count <= handlerIndex || Template(arguments[0].Expression, everywhere) is not { } pattern)
            {
                continue;
            }
            var prefix = Prefix(access.Expression, everywhere, 0);
            var verbs = access.Name.Identifier.Text == "MapMethods"
                ? [.. arguments[1].Expression.DescendantNodesAndSelf().OfType<LiteralExpressionSyntax>().Select(l => l.Token.ValueText.ToUpperInvariant())]
                : new List<string> { verb };
            foreach (var each in verbs)
            {
                foreach (var handler in Handlers(arguments[handlerIndex].Expression, 0))
                {
                    yield return (each, prefix is null ? null : RouteTemplates.Join(prefix, pattern), handler);
                }
            }
        }
    }

    /// <summary>
    /// The handlers a Map call's handler argument can be: itself (a lambda, a method group), or, for a local variable
    /// (<c>Delegate run = sync ? (...) => A(...) : B;</c>, or assigned in an if/else), every lambda and method group
    /// assigned to it before the call, both branches of a conditional, the method a delegate is constructed from. All
    /// of them: which one a given endpoint got is decided at run time.
    /// </summary>
    private static IEnumerable<ExpressionSyntax> Handlers(ExpressionSyntax handler, int depth) => depth > PrefixDepth ? [] : handler switch
    {
        CastExpressionSyntax cast => Handlers(cast.Expression, depth + 1),
        ParenthesizedExpressionSyntax parenthesized => Handlers(parenthesized.Expression, depth + 1),
        ConditionalExpressionSyntax conditional => [.. Handlers(conditional.WhenTrue, depth + 1), .. Handlers(conditional.WhenFalse, depth + 1)],
        BinaryExpressionSyntax coalesce when coalesce.IsKind(SyntaxKind.CoalesceExpression) => [.. Handlers(coalesce.Left, depth + 1), .. Handlers(coalesce.Right, depth + 1)],
        BaseObjectCreationExpressionSyntax { ArgumentList.Arguments: [var single] } => Handlers(single.Expression, depth + 1),
        IdentifierNameSyntax local when Assignments(local).Values is { Count: > 0 } values => values.SelectMany(v => Handlers(v, depth + 1)).Distinct(),
        _ => [handler],
    };

    /// <summary>
    /// The prefix the route groups give a builder expression: "" for the application itself, null when one of its
    /// groups' prefixes is neither a literal nor an interpolated string (no route rather than half of one).
    /// </summary>
    private static string? Prefix(ExpressionSyntax builder, IReadOnlyList<SyntaxTree> trees, int depth)
    {
        if (depth > PrefixDepth)
        {
            return null;
        }
        switch (builder)
        {
            case InvocationExpressionSyntax { Expression: MemberAccessExpressionSyntax access } invocation:
                var inner = Prefix(access.Expression, trees, depth + 1);
                if (access.Name.Identifier.Text != "MapGroup")
                {
                    // WithTags, RequireAuthorization, AddEndpointFilter...: the same builder.
                    return inner;
                }
                return inner is not null && invocation.ArgumentList.Arguments.FirstOrDefault() is { } argument && Template(argument.Expression, trees) is { } prefix
                    ? RouteTemplates.Join(inner, prefix)
                    : null;
            case ParenthesizedExpressionSyntax parenthesized:
                return Prefix(parenthesized.Expression, trees, depth);
            case IdentifierNameSyntax identifier:
                return Variable(identifier, trees, depth);
            default:
                return "";
        }
    }

    /// <summary>What a builder variable holds: its last assignment before the use in the same body, else the callers' argument for a parameter.</summary>
    private static string? Variable(IdentifierNameSyntax identifier, IReadOnlyList<SyntaxTree> trees, int depth)
    {
        var (scope, values) = Assignments(identifier);
        if (values.Count > 0)
        {
            return Prefix(values[^1], trees, depth + 1);
        }
        return scope is not null && Parameter(scope, identifier.Identifier.Text) is { } parameter ? Argument(scope, parameter, trees, depth) : "";
    }

    /// <summary>
    /// The values assigned to a variable before its use, in source order, from the nearest enclosing method, local
    /// function or top-level program that assigns it; else none, with the nearest method or local function that has a
    /// parameter of that name (null when none has).
    /// </summary>
    private static (SyntaxNode? Scope, IReadOnlyList<ExpressionSyntax> Values) Assignments(IdentifierNameSyntax identifier)
    {
        var name = identifier.Identifier.Text;
        foreach (var scope in identifier.Ancestors().Where(a => a is BaseMethodDeclarationSyntax or LocalFunctionStatementSyntax or CompilationUnitSyntax))
        {
            var body = scope is CompilationUnitSyntax unit ? unit.Members.OfType<GlobalStatementSyntax>().Cast<SyntaxNode>() : [scope];
            var assigned = body.SelectMany(b => b.DescendantNodes())
                .Select(n => n switch
                {
                    VariableDeclaratorSyntax { Initializer: { } init } d when d.Identifier.Text == name => (n.SpanStart, Value: init.Value),
                    AssignmentExpressionSyntax { Left: IdentifierNameSyntax left } a when left.Identifier.Text == name => (n.SpanStart, Value: a.Right),
                    _ => (SpanStart: -1, Value: null!),
                })
                .Where(a => a.Value is not null && a.SpanStart < identifier.SpanStart)
                .OrderBy(a => a.SpanStart)
                .Select(a => a.Value)
                .ToList();
            if (assigned.Count > 0)
            {
                return (scope, assigned);
            }
            if (scope is BaseMethodDeclarationSyntax or LocalFunctionStatementSyntax && Parameter(scope, name) is not null)
            {
                return (scope, []);
            }
        }
        return (null, []);
    }

    private static (int Index, bool This)? Parameter(SyntaxNode method, string name)
    {
        var parameters = method switch
        {
            BaseMethodDeclarationSyntax m => m.ParameterList.Parameters,
            LocalFunctionStatementSyntax f => f.ParameterList.Parameters,
            _ => default,
        };
        var index = parameters.IndexOf(p => p.Identifier.Text == name);
        return index < 0 ? null : (index, parameters[index].Modifiers.Any(SyntaxKind.ThisKeyword));
    }

    /// <summary>The prefix every caller hands the method's parameter: "" with no caller in the sources, null when they differ.</summary>
    private static string? Argument(SyntaxNode method, (int Index, bool This) parameter, IReadOnlyList<SyntaxTree> trees, int depth)
    {
        var methodName = method switch
        {
            MethodDeclarationSyntax m => m.Identifier.Text,
            LocalFunctionStatementSyntax f => f.Identifier.Text,
            _ => null,
        };
        if (methodName is null)
        {
            return "";
        }
        var declaringType = method.Ancestors().OfType<TypeDeclarationSyntax>().FirstOrDefault()?.Identifier.Text;
        var prefixes = trees.SelectMany(t => t.GetRoot().DescendantNodes().OfType<InvocationExpressionSyntax>())
            .Select(call => (Call: call, Name: call.Expression switch
            {
                MemberAccessExpressionSyntax a => a.Name.Identifier.Text,
                IdentifierNameSyntax i => i.Identifier.Text,
                _ => null,
            }))
            .Where(c => c.Name == methodName)
            .Select(c =>
            {
                // An extension method called as one: its receiver is the "this" parameter's argument; called on its own class
                // (OrdersEndpoints.MapOrders(app.MapGroup("/api"))), it is a static call whose arguments are all its parameters'.
                var asExtension = parameter.This && c.Call.Expression is MemberAccessExpressionSyntax { Expression: var receiver }
                    && receiver.ToString().Split('.')[^1] != declaringType;
                if (asExtension && parameter.Index == 0)
                {
                    return Prefix(((MemberAccessExpressionSyntax)c.Call.Expression).Expression, trees, depth + 1);
                }
                var index = parameter.Index - (asExtension ? 1 : 0);
                return index < c.Call.ArgumentList.Arguments.Count ? Prefix(c.Call.ArgumentList.Arguments[index].Expression, trees, depth + 1) : null;
            })
            .Distinct()
            .ToList();
        return prefixes.Count == 0 ? "" : prefixes.Count == 1 ? prefixes[0] : null;
    }

    /// <summary>A template: a literal (<see cref="Literal"/>), or an interpolated string with a hole (<see cref="RouteTemplates.Hole"/>) for each interpolation.</summary>
    private static string? Template(ExpressionSyntax expression, IReadOnlyList<SyntaxTree> trees) => expression is InterpolatedStringExpressionSyntax interpolated
        ? string.Concat(interpolated.Contents.Select(c => c is InterpolatedStringTextSyntax text ? text.TextToken.ValueText : RouteTemplates.Hole.ToString()))
        : Literal(expression, trees);

    /// <summary>A string literal, or a constant a field of the sources declares with one.</summary>
    private static string? Literal(ExpressionSyntax expression, IReadOnlyList<SyntaxTree> trees)
    {
        if (expression is LiteralExpressionSyntax literal && literal.IsKind(SyntaxKind.StringLiteralExpression))
        {
            return literal.Token.ValueText;
        }
        var name = expression switch
        {
            IdentifierNameSyntax i => i.Identifier.Text,
            MemberAccessExpressionSyntax a => a.Name.Identifier.Text,
            _ => null,
        };
        return name is null ? null : trees
            .SelectMany(t => t.GetRoot().DescendantNodes().OfType<FieldDeclarationSyntax>())
            .Where(f => f.Modifiers.Any(SyntaxKind.ConstKeyword))
            .SelectMany(f => f.Declaration.Variables)
            .Where(v => v.Identifier.Text == name && v.Initializer?.Value is LiteralExpressionSyntax)
            .Select(v => ((LiteralExpressionSyntax)v.Initializer!.Value).Token.ValueText)
            .FirstOrDefault();
    }

    /// <summary>
    /// The method a Map call's handler argument is: a lambda's compiled method (found by its span in the PDB's sequence
    /// points), or a method group's method, looked up by its type (when qualified; else the type the Map call is in,
    /// else a local function of that name, else any type's).
    /// </summary>
    private static int? Handler(ModuleSource module, ExpressionSyntax handler)
    {
        if (handler is AnonymousFunctionExpressionSyntax lambda)
        {
            var span = lambda.SyntaxTree.GetLineSpan(lambda.Span);
            var start = (span.StartLinePosition.Line + 1, span.StartLinePosition.Character + 1);
            var end = (span.EndLinePosition.Line + 1, span.EndLinePosition.Character + 1);
            return module.MethodsWithin(lambda.SyntaxTree.FilePath, start, end).Select(t => (int?)t).FirstOrDefault();
        }
        var (qualifier, name) = handler switch
        {
            MemberAccessExpressionSyntax a => (a.Expression.ToString().Split('.')[^1], a.Name.Identifier.Text),
            SimpleNameSyntax n => ((string?)null, n.Identifier.Text),
            _ => (null, null),
        };
        if (name is null)
        {
            return null;
        }
        var enclosing = handler.Ancestors().OfType<TypeDeclarationSyntax>().FirstOrDefault()?.Identifier.Text ?? "Program";
        var methods = module.Methods().Select(t => (Token: t, Name: module.MethodName(t))).ToList();
        bool Named(string full, string type) => full.EndsWith($".{name}", StringComparison.Ordinal) && TypeOf(full).Split('.', '+')[^1] == type;
        return methods.Where(m => Named(m.Name, qualifier ?? enclosing)).Select(m => (int?)m.Token).FirstOrDefault()
            ?? (qualifier is null ? methods.Where(m => m.Name.Contains($">g__{name}|", StringComparison.Ordinal)).Select(m => (int?)m.Token).FirstOrDefault() : null)
            ?? methods.Where(m => m.Name.EndsWith($".{name}", StringComparison.Ordinal)).Select(m => (int?)m.Token).FirstOrDefault();
    }

    private static string TypeOf(string method) => method[..Math.Max(0, method.LastIndexOf('.'))];
}
