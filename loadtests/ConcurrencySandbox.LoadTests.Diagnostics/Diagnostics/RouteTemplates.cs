using System.Globalization;
using System.Text.RegularExpressions;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// Which route templates match a request path, and which of them ASP.NET Core's routing prefers: per segment, a literal
/// before a parameter with a constraint before a plain parameter before a catch-all ("/orders/recent" goes to
/// "orders/recent", not "orders/{id}"; "/orders/1" to "orders/{id:int}" whichever was mapped first).
/// </summary>
internal static class RouteTemplates
{
    private const int LiteralRank = 1;
    private const int ConstrainedRank = 2;
    private const int ParameterRank = 3;
    private const int CatchAllRank = 4;

    /// <summary>
    /// Stands for an interpolation's value in a template read from an interpolated string (<c>$"/api/{unit.Name}"</c>):
    /// text of one segment (a whole segment or part of one) the sources cannot give before the application runs. A
    /// template with holes is a pattern: the runtime's route or the request path fills them (<see cref="Fill"/>).
    /// </summary>
    public const char Hole = '\u2026';

    /// <summary>Whether the template was read from an interpolated string and has holes (<see cref="Hole"/>).</summary>
    public static bool HasHoles(string template) => template.Contains(Hole, StringComparison.Ordinal);

    /// <summary>
    /// The holed template with its holes filled from <paramref name="text"/>: a route pattern the runtime reported
    /// (<paramref name="pattern"/>: the same segments, the holed ones matched by their literal text around the holes), or a
    /// request path (each holed segment matched against the path's segment at its place, the others as <see cref="Match"/>
    /// does). Null when it does not match. A hole never spans a '/'.
    /// </summary>
    public static string? Fill(string holed, string text, bool pattern)
    {
        var segments = Segments(holed);
        var query = text.IndexOf('?', StringComparison.Ordinal);
        var parts = pattern ? Segments(text) : Segments(Uri.UnescapeDataString(query >= 0 ? text[..query] : text));
        if (pattern && parts.Count != segments.Count)
        {
            return null;
        }
        var filled = new List<string>();
        for (var i = 0; i < segments.Count; i++)
        {
            if (!HasHoles(segments[i]))
            {
                if (pattern && !string.Equals(segments[i], parts[i], StringComparison.OrdinalIgnoreCase))
                {
                    return null;
                }
                filled.Add(segments[i]);
                continue;
            }
            var around = "^" + string.Join("(.*)", segments[i].Split(Hole).Select(Regex.Escape)) + "$";
            if (i >= parts.Count || !Regex.IsMatch(parts[i], around, RegexOptions.IgnoreCase | RegexOptions.CultureInvariant, TimeSpan.FromSeconds(1)))
            {
                return null;
            }
            filled.Add(parts[i]);
        }
        return "/" + string.Join('/', filled);
    }

    /// <summary>
    /// A holed template's match of a request path: the template filled from it, and its rank per segment (<see
    /// cref="Match"/>'s, a holed segment ranked as a constrained parameter: narrower than a parameter, but not known to be
    /// the literal it was filled with); null when it does not match.
    /// </summary>
    public static (string Template, int[] Ranks)? MatchHoled(string holed, string path)
    {
        if (Fill(holed, path, pattern: false) is not { } filled || Match(filled, path) is not { } ranks)
        {
            return null;
        }
        var segments = Segments(holed);
        return (filled, [.. ranks.Select((rank, i) => i < segments.Count && HasHoles(segments[i]) ? Math.Max(rank, ConstrainedRank) : rank)]);
    }

    /// <summary>"/" + the template's segments joined ("orders/{id}" and "/orders/{id}/" are "/orders/{id}").</summary>
    public static string Normalize(string template) => "/" + string.Join('/', Segments(template));

    /// <summary>"/api" and "receive/{strategy}" make "/api/receive/{strategy}".</summary>
    public static string Join(string prefix, string route) => Normalize($"{prefix.TrimEnd('/')}/{route.TrimStart('~').TrimStart('/')}");

    /// <summary>The template's rank per segment when it matches <paramref name="path"/> (the query is ignored), lower is more specific; null when it does not match.</summary>
    public static int[]? Match(string template, string path)
    {
        var query = path.IndexOf('?', StringComparison.Ordinal);
        var parts = Segments(Uri.UnescapeDataString(query >= 0 ? path[..query] : path));
        var segments = Segments(template);
        var ranks = new List<int>();
        for (var i = 0; i < segments.Count; i++)
        {
            var segment = segments[i];
            if (segment.StartsWith('{') && segment.EndsWith('}') && segment.IndexOf('{', 1) < 0)
            {
                var parameter = segment[1..^1];
                if (parameter.StartsWith('*'))
                {
                    ranks.Add(CatchAllRank);
                    return [.. ranks];
                }
                var optional = parameter.EndsWith('?') || parameter.Contains('=', StringComparison.Ordinal);
                var constraints = parameter.TrimEnd('?').Split('=')[0].Split(':').Skip(1).ToList();
                if (i >= parts.Count)
                {
                    if (!optional)
                    {
                        return null;
                    }
                    ranks.Add(ParameterRank);
                    continue;
                }
                if (!constraints.All(c => Satisfies(c, parts[i])))
                {
                    return null;
                }
                ranks.Add(constraints.Count > 0 ? ConstrainedRank : ParameterRank);
            }
            else if (segment.Contains('{', StringComparison.Ordinal))
            {
                // A complex segment ("{name}.{ext}"): any one segment, ranked as a constrained parameter.
                if (i >= parts.Count)
                {
                    return null;
                }
                ranks.Add(ConstrainedRank);
            }
            else
            {
                if (i >= parts.Count || !string.Equals(segment, parts[i], StringComparison.OrdinalIgnoreCase))
                {
                    return null;
                }
                ranks.Add(LiteralRank);
            }
        }
        return parts.Count > segments.Count ? null : [.. ranks];
    }

    /// <summary>Orders two matches' ranks: the more specific first.</summary>
    public static int Compare(int[] a, int[] b)
    {
        for (var i = 0; i < Math.Min(a.Length, b.Length); i++)
        {
            if (a[i] != b[i])
            {
                return a[i].CompareTo(b[i]);
            }
        }
        return b.Length.CompareTo(a.Length);
    }

    private static bool Satisfies(string constraint, string value)
    {
        var name = constraint.Split('(')[0];
        return name switch
        {
            "int" => int.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out _),
            "long" => long.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out _),
            "double" or "float" or "decimal" => double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out _),
            "bool" => bool.TryParse(value, out _),
            "guid" => Guid.TryParse(value, out _),
            "datetime" => DateTime.TryParse(value, CultureInfo.InvariantCulture, out _),
            "alpha" => value.All(char.IsAsciiLetter),
            "min" or "max" or "range" => long.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out _),
            _ => true,
        };
    }

    private static List<string> Segments(string template) =>
        [.. template.TrimStart('~').Split('/').Where(s => s.Length > 0)];
}
