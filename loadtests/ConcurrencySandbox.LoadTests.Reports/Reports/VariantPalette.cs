using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// The colour of a variant name in every chart of every report, or of every name that starts with <paramref name="Name"/>
/// when <paramref name="IsPrefix"/>. By habit blocking variants are warm colours and those that hold no pool thread cool ones.
/// </summary>
public sealed record VariantColor(string Name, string Color, bool IsPrefix = false);

/// <summary>
/// One colour per variant name, the same in every chart of every report: the colours each experiment declares
/// (ExperimentDefinition.Colors, handed in by the app with <see cref="Declare"/>, since the reports sit below the experiments), so a name shared by two experiments (sleep's async and fanout's) keeps
/// one colour, and in the matrix a variant keeps its colour at every core count.
/// </summary>
public static class VariantPalette
{
    private static IReadOnlyList<VariantColor> _declared = [];

    /// <summary>The experiments' colours; the same list every time, so declaring it again changes nothing.</summary>
    public static void Declare(IEnumerable<VariantColor> colors) => _declared = [.. colors];

    private static IReadOnlyList<VariantColor> Declared => _declared;

    /// <summary>For names the palette does not know: picked by a stable hash of the name, so it never changes between runs.</summary>
    private static readonly string[] Others = ["#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#bcbd22", "#7f7f7f"];

    /// <summary>The colour drawn for the applied load (the same for every variant).</summary>
    public const string LoadColor = "#555555";

    public static string ColorOf(VariantKey variant) => ColorOf(variant.Name);

    public static string ColorOf(string name)
    {
        var declared = Declared.FirstOrDefault(c => string.Equals(c.Name, name, StringComparison.OrdinalIgnoreCase))
            ?? Declared.FirstOrDefault(c => c.IsPrefix && name.StartsWith(c.Name, StringComparison.OrdinalIgnoreCase));
        if (declared is not null)
        {
            return declared.Color;
        }
        var hash = 2166136261u;
        foreach (var c in name.ToLowerInvariant())
        {
            hash = (hash ^ c) * 16777619u;
        }
        return Others[hash % (uint)Others.Length];
    }
}
