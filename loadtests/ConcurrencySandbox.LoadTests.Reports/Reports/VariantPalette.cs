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

    /// <summary>For names the palette does not know: picked by a stable hash of the name, so it never changes between runs.</summary>
    private static readonly string[] Others = ["#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#bcbd22", "#7f7f7f"];

    public static string ColorOf(VariantKey variant) => ColorOf(variant.Name);

    /// <summary>Colours to give a variant whose own is taken by another of its run: the palette's others, then the classic ten.</summary>
    private static readonly string[] Spare = [.. Others, "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

    /// <summary>A sequential scale, light to dark blue, for the loads of a capacity search's steps.</summary>
    private static readonly (int R, int G, int B)[] Blues = [(0x9e, 0xca, 0xe1), (0x42, 0x92, 0xc6), (0x08, 0x51, 0x9c), (0x08, 0x30, 0x6b)];

    /// <summary>
    /// The colours of one run's variants, one per series, never two alike: each variant its own (<see cref="ColorOf(string)"/>)
    /// unless an earlier one of the run has it, then the first spare colour the run does not use; a capacity search's steps
    /// (a <c>StepLoad</c>) a sequential scale by load instead, lightest at the lowest, so 8 and 64 users never share a colour.
    /// </summary>
    public static IReadOnlyList<string> OfRun(IReadOnlyList<(string Name, double? StepLoad)> variants)
    {
        var loads = variants.Select(v => v.StepLoad).OfType<double>().Distinct().Order().ToList();
        var used = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        var colors = new List<string>();
        foreach (var (name, stepLoad) in variants)
        {
            var color = stepLoad is { } load ? Sequential(loads.IndexOf(load), loads.Count) : ColorOf(name);
            if (!used.Add(color))
            {
                color = Spare.FirstOrDefault(c => !used.Contains(c)) ?? color;
                used.Add(color);
            }
            colors.Add(color);
        }
        return colors;
    }

    /// <summary>The <paramref name="index"/>-th of <paramref name="count"/> colours from light to dark blue.</summary>
    public static string Sequential(int index, int count)
    {
        var at = (count <= 1 ? 1 : index / (double)(count - 1)) * (Blues.Length - 1);
        var i = Math.Min((int)at, Blues.Length - 2);
        var f = at - i;
        int Mix(int from, int to) => (int)Math.Round(from + (to - from) * f);
        return string.Create(System.Globalization.CultureInfo.InvariantCulture, $"#{Mix(Blues[i].R, Blues[i + 1].R):x2}{Mix(Blues[i].G, Blues[i + 1].G):x2}{Mix(Blues[i].B, Blues[i + 1].B):x2}");
    }

    public static string ColorOf(string name)
    {
        var declared = _declared.FirstOrDefault(c => string.Equals(c.Name, name, StringComparison.OrdinalIgnoreCase))
            ?? _declared.FirstOrDefault(c => c.IsPrefix && name.StartsWith(c.Name, StringComparison.OrdinalIgnoreCase));
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
