using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>What the charts draw with: each variant's colour (summary.json carries it, charts.js draws it) and the request in a chart's title.</summary>
public class ChartTests
{
    [Fact]
    public void EachVariantIsDrawnInTheColourItsExperimentDeclares()
    {
        Assert.Equal("#d62728", VariantPalette.ColorOf("threadpool"));
        Assert.Equal("#17becf", VariantPalette.ColorOf("min-workers-64"));
        Assert.Equal("#08519c", VariantPalette.ColorOf(new VariantKey("preallocated", Cpus: 4)));
    }

    [Fact]
    public void NoVariantNameIsDeclaredWithTwoColours()
    {
        var clashes = ExperimentList.All
            .SelectMany(definition => definition.Colors.Select(color => (definition.Name, color)))
            .GroupBy(declared => declared.color.Name, StringComparer.OrdinalIgnoreCase)
            .Where(name => name.Select(declared => declared.color.Color).Distinct(StringComparer.OrdinalIgnoreCase).Count() > 1)
            .Select(name => $"{name.Key}: {string.Join(", ", name.Select(d => $"{d.Name} {d.color.Color}"))}");

        Assert.Empty(clashes);
    }

    [Fact]
    public void EverySeriesOfARunHasItsOwnColourAndACapacitySearchsStepsASequentialScaleByLoad()
    {
        // Nine undeclared names over the palette's eight colours for names it does not know: two would share one.
        string[] names = [.. Enumerable.Range(1, 9).Select(i => $"step-{i}")];
        Assert.True(names.Select(VariantPalette.ColorOf).Distinct().Count() < names.Length);

        var colors = VariantPalette.OfRun([.. names.Select(name => (name, (double?)null))]);
        Assert.Equal(names.Length, colors.Distinct(StringComparer.OrdinalIgnoreCase).Count());
        Assert.Equal(VariantPalette.ColorOf(names[0]), colors[0]);

        // A capacity search's steps in the order it ran them: each load its own blue, darker as the load rises.
        var search = CapacityCurveTests.Search().Analysed().Variants;
        var byLoad = search.OrderBy(v => v.PeakLoad).Select(v => Convert.ToInt32(v.Color[1..3], 16) + Convert.ToInt32(v.Color[3..5], 16) + Convert.ToInt32(v.Color[5..7], 16)).ToList();
        Assert.Equal(search.Count, search.Select(v => v.Color).Distinct().Count());
        Assert.Equal(byLoad.OrderDescending(), byLoad);
    }

    [Fact]
    public void AVariantHasTheSameColourInEveryReportAndAtEveryCoreCount()
    {
        var fanout = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100).Analysed();
        var reordered = SyntheticReports.LoadRun("fanout", ["async", "threadpool"], 20, 5, (_, _) => 100).Analysed();

        var asyncColor = VariantPalette.ColorOf("async");
        Assert.Equal(asyncColor, VariantPalette.ColorOf(new VariantKey("async", Cpus: 2)));
        Assert.NotEqual(asyncColor, VariantPalette.ColorOf("threadpool"));
        Assert.Equal(VariantPalette.ColorOf("experimental-x"), VariantPalette.ColorOf("experimental-x"));
        // The summary carries each variant's colour; every chart of report.html draws it from there.
        Assert.All(new[] { fanout, reordered }, summary => Assert.Equal(asyncColor, summary.Variants.Single(v => v.Name == "async").Color));
    }

    [Theory]
    [InlineData(new[] { "/api/sleep/sync?milliseconds=100", "/api/sleep/taskrun?milliseconds=100" }, "/api/sleep/{sync|taskrun}?milliseconds=100")]
    [InlineData(new[] { "/a?x=1", "/a?x=1" }, "/a?x=1")]
    public void RequestPatternKeepsWhatIsCommonAndListsWhatDiffers(string[] requests, string expected)
    {
        Assert.Equal(expected, ChartTitle.RequestPattern(requests));
    }
}
