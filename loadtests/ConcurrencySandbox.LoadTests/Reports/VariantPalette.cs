using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// One colour per variant name, the same in every chart of every report: blocking variants in warm colours, the
/// ones that hold no pool thread in cool ones. In the matrix a variant keeps its colour at every core count.
/// </summary>
public static class VariantPalette
{
    private static readonly Dictionary<string, string> Known = new(StringComparer.OrdinalIgnoreCase)
    {
        ["threadpool"] = "#d62728",
        ["sync-over-async"] = "#ff7f0e",
        ["dedicated"] = "#9467bd",
        ["async"] = "#2ca02c",
        ["sync"] = "#8c564b",
        ["taskrun"] = "#1f77b4",
        ["default-pool"] = "#e377c2",
        ["per-call"] = "#a50f15",
        ["allocating"] = "#fd8d3c",
        ["spinning"] = "#54278f",
        ["preallocated"] = "#08519c",
    };

    /// <summary>For the raised-minimum cold-start variant, whatever minimum it names.</summary>
    private const string RaisedMinimumColor = "#17becf";

    /// <summary>For names the palette does not know: picked by a stable hash of the name, so it never changes between runs.</summary>
    private static readonly string[] Others = ["#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#bcbd22", "#7f7f7f"];

    /// <summary>The colour drawn for the applied load (the same for every variant).</summary>
    public const string LoadColor = "#555555";

    public static string ColorOf(VariantKey variant) => ColorOf(variant.Name);

    public static string ColorOf(string name)
    {
        if (Known.TryGetValue(name, out var color))
        {
            return color;
        }
        if (name.StartsWith("min-workers", StringComparison.OrdinalIgnoreCase))
        {
            return RaisedMinimumColor;
        }
        var hash = 2166136261u;
        foreach (var c in name.ToLowerInvariant())
        {
            hash = (hash ^ c) * 16777619u;
        }
        return Others[hash % (uint)Others.Length];
    }
}
