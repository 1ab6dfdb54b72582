using System.Text.RegularExpressions;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// Turns the names the C# compiler gives the methods it generates back into the words the developer wrote: a lambda
/// (<c>Program+&lt;&gt;c.&lt;&lt;Main&gt;$&gt;b__0_1</c>) becomes "the lambda in Program (top-level statements)", an async
/// state machine (<c>Orders+&lt;GetAsync&gt;d__5.MoveNext</c>) "Orders.GetAsync", a local function
/// (<c>Orders.&lt;Get&gt;g__Price|2_0</c>) "the local function Price in Orders.Get"; namespaces, generic arities and type
/// arguments are dropped ("Task`1[System.__Canon].get_Result" is "Task.get_Result").
/// </summary>
internal static partial class SourceNames
{
    /// <summary>The method the compiler makes of top-level statements.</summary>
    private const string TopLevelMain = "<Main>$";

    // "Task`1[System.__Canon]": type arguments (whose dots are not the method's) and arity.
    [GeneratedRegex(@"\[[^\]]*\]|`\d+")]
    private static partial Regex GenericArguments();

    // A segment the compiler generated: "<>c", "<>c__DisplayClass4_0", "<GetAsync>d__5", "<<Main>$>b__0_1", "<Get>g__Price|2_0".
    // The name inside the angle brackets may itself be generated ("<<Main>$>b__0_1>d" is an async lambda in top-level statements).
    [GeneratedRegex(@"^<(?<outer>.*)>(?<kind>[a-z])__(?<local>[^|>]*)(\|[^>]*)?$|^<(?<outer>.*)>(?<kind>d)$")]
    private static partial Regex Generated();

    /// <summary>The developer's words for a frame name as the trace gives it ("Namespace.Type+Nested.Method", no module, no arguments).</summary>
    public static string Describe(string frame)
    {
        var (type, method) = Split(GenericArguments().Replace(frame, ""));
        var types = type.Split('+').Where(t => t.Length > 0 && !t.StartsWith("<>c", StringComparison.Ordinal)).ToList();
        // A state machine's type is "<Method>d__5" and its method MoveNext: the method the developer wrote is the type's.
        if (method is "MoveNext" && types.Count > 0 && Generated().Match(types[^1]) is { Success: true } machine && machine.Groups["kind"].Value == "d")
        {
            types.RemoveAt(types.Count - 1);
            return Describe(types, machine.Groups["outer"].Value);
        }
        return Describe(types, method);
    }

    private static string Describe(List<string> types, string method)
    {
        var owner = types.Count > 0 ? ShortType(types[^1]) : "";
        var match = Generated().Match(method);
        if (!match.Success)
        {
            return method == TopLevelMain ? $"{owner} (top-level statements)"
                : method == ".ctor" ? $"the constructor of {owner}"
                : method == ".cctor" ? $"the static constructor of {owner}"
                : owner.Length == 0 ? method : $"{owner}.{method}";
        }
        var enclosing = Describe(types, match.Groups["outer"].Value);
        return match.Groups["kind"].Value switch
        {
            "b" => $"the lambda in {enclosing}",
            "g" => $"the local function {match.Groups["local"].Value} in {enclosing}",
            _ => enclosing,
        };
    }

    /// <summary>"ConcurrencySandbox.SampleService.Orders" becomes "Orders".</summary>
    private static string ShortType(string type) => type[(type.LastIndexOf('.') + 1)..];

    /// <summary>Splits "A.B+C.&lt;&lt;Main&gt;$&gt;b__0_1" into its type ("A.B+C") and method; a dot inside angle brackets is not a separator.</summary>
    private static (string Type, string Method) Split(string frame)
    {
        var depth = 0;
        for (var i = frame.Length - 1; i >= 0; i--)
        {
            switch (frame[i])
            {
                case '>':
                    depth++;
                    break;
                case '<':
                    depth--;
                    break;
                case '.' when depth == 0 && i > 0 && frame[i - 1] != '.':
                    return (frame[..i], frame[(i + 1)..]);
            }
        }
        return ("", frame);
    }
}
