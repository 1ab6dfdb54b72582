using ConcurrencySandbox.Contracts.Reports;
using System.Globalization;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>Issue 18's thread-pool adjustments drawn as markers on each variant's pool panel, by reason, counted in the legend.</summary>
public partial class PoolAdjustmentMarkerTests
{
    private static readonly XNamespace Svg = "http://www.w3.org/2000/svg";

    [Fact]
    public void EachAdjustmentIsOneMarkerOnItsVariantsPoolPanelWithOneLegendEntryAndCountPerReason()
    {
        var svg = ChartWith(SyntheticReports.StarvingAdjustments(starvation: 5, climbing: 4));

        var panel = PoolPanel(svg, "threadpool");
        Assert.Equal(5, MarkerPaths(panel, "pool adjustment: Starvation").Count);
        Assert.Equal(4, MarkerPaths(panel, "pool adjustment: ClimbingMove").Count);
        Assert.Contains(Legend(panel), text => text == "pool adjustment: Starvation (5)");
        Assert.Contains(Legend(panel), text => text == "pool adjustment: ClimbingMove (4)");
        // Starvation a filled black triangle, hill climbing a grey plus: told apart by shape and colour.
        Assert.All(MarkerPaths(panel, "pool adjustment: Starvation"), p => Assert.Equal("#000000", (string)p.Attribute("fill")!));
        Assert.All(MarkerPaths(panel, "pool adjustment: ClimbingMove"), p => Assert.Equal("none", (string)p.Attribute("fill")!));
        Assert.Empty(Groups(PoolPanel(svg, "async"), "markers"));
    }

    [Fact]
    public void MarkersSitAtTheNewThreadCountInsideThePlotEvenAboveEverySampledCount()
    {
        // The samples never pass 4 threads; the last starvation injection reaches 7.
        var svg = ChartWith(SyntheticReports.StarvingAdjustments(starvation: 5, climbing: 0));

        var panel = PoolPanel(svg, "threadpool");
        var frame = panel.Elements(Svg + "rect").Single(r => (string?)r.Attribute("fill") == "none");
        var (top, bottom) = (Number(frame, "y"), Number(frame, "y") + Number(frame, "height"));
        var ys = MarkerPaths(panel, "pool adjustment: Starvation").Select(Apex).ToList();
        Assert.All(ys, y => Assert.InRange(y, top - 5, bottom));
        Assert.True(ys[^1] < ys[0], "a higher thread count is drawn higher");
    }

    [Fact]
    public void NoMarkersAndNoLegendEntryWhenThePoolNeverAdjustedOrNothingWasObserved()
    {
        var observedNothing = ChartWith([]);
        var unobserved = ReportChart.Render(SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100).Analysed());

        foreach (var svg in new[] { observedNothing, unobserved })
        {
            Assert.DoesNotContain("class=\"markers\"", svg);
            Assert.DoesNotContain("pool adjustment", svg);
            Assert.DoesNotContain("adjustments marked", svg);
        }
    }

    [Fact]
    public void MarkersOutsideTheTimeAxisAreDroppedAndCountedNotDrawnOffFrame()
    {
        AdjustmentMark[] adjustments = [new(-2, 3, "Starvation"), new(5, 4, "Starvation"), new(500, 9, "Starvation"), new(6, 4, "ThreadTimedOut")];

        var svg = ChartWith(adjustments);

        var panel = PoolPanel(svg, "threadpool");
        Assert.Single(MarkerPaths(panel, "pool adjustment: Starvation"));
        Assert.Contains(Legend(panel), text => text == "pool adjustment: Starvation (1)");
        Assert.Contains("2 markers outside the x axis are not drawn", HiddenSeries.Notes(svg));
        var frame = panel.Elements(Svg + "rect").Single(r => (string?)r.Attribute("fill") == "none");
        Assert.All(Groups(panel, "markers").SelectMany(g => g.Elements(Svg + "path")).SelectMany(Xs),
            x => Assert.InRange(x, Number(frame, "x") - 5, Number(frame, "x") + Number(frame, "width") + 5));
    }

    [Fact]
    public void ManyAdjustmentsAreTicksAlongTheBottomEdgeOneRowPerReason()
    {
        AdjustmentMark[] adjustments =
        [
            .. Enumerable.Range(0, 10).Select(i => new AdjustmentMark(1 + i, 3 + i, "Starvation")),
            .. Enumerable.Range(0, SvgChart.MaxMarkers).Select(i => new AdjustmentMark(0.3 * i, 3, "ClimbingMove")),
        ];

        var svg = ChartWith(adjustments);

        var panel = PoolPanel(svg, "threadpool");
        var starvation = Groups(panel, "markers").Single(g => (string?)g.Attribute("data-markers") == "pool adjustment: Starvation");
        Assert.Equal(10, starvation.Elements(Svg + "line").Count());
        Assert.Empty(Groups(panel, "markers").SelectMany(g => g.Elements(Svg + "path")));
        Assert.Contains(Legend(panel), text => text == "pool adjustment: Starvation (10, tick row 1)");
        Assert.Contains(Legend(panel), text => text == string.Create(CultureInfo.InvariantCulture, $"pool adjustment: ClimbingMove ({SvgChart.MaxMarkers}, tick row 2)"));
        Assert.Contains(HiddenSeries.Notes(svg), note => note.Contains("drawn as ticks along the bottom edge", StringComparison.Ordinal));
    }

    private static string ChartWith(IReadOnlyList<AdjustmentMark> adjustments) =>
        ReportChart.Render((SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100) with
        {
            Observations = new Dictionary<string, VariantObservation> { ["threadpool"] = SyntheticReports.Observed(adjustments) },
        }).Analysed());

    private static XElement PoolPanel(string svg, string variant) =>
        Groups(XDocument.Parse(svg).Root!, "panel").Single(p => p.Elements(Svg + "text").First().Value.StartsWith($"{variant}: API thread pool", StringComparison.Ordinal));

    private static IEnumerable<XElement> Groups(XElement parent, string cssClass) => parent.Elements(Svg + "g").Where(g => (string?)g.Attribute("class") == cssClass);

    private static List<XElement> MarkerPaths(XElement panel, string name) =>
        [.. Groups(panel, "markers").Where(g => (string?)g.Attribute("data-markers") == name).SelectMany(g => g.Elements(Svg + "path"))];

    private static List<string> Legend(XElement panel) => [.. Groups(panel, "legend").Select(g => g.Element(Svg + "text")!.Value)];

    private static double Number(XElement element, string attribute) => double.Parse((string)element.Attribute(attribute)!, CultureInfo.InvariantCulture);

    /// <summary>The y of a path's first point (a triangle's apex).</summary>
    private static double Apex(XElement path) => Coordinates(path)[0].Y;

    private static IEnumerable<double> Xs(XElement path) => Coordinates(path).Select(c => c.X);

    private static List<(double X, double Y)> Coordinates(XElement path) =>
        [.. PathPoint().Matches((string)path.Attribute("d")!).Select(m => (double.Parse(m.Groups["x"].Value, CultureInfo.InvariantCulture), double.Parse(m.Groups["y"].Value, CultureInfo.InvariantCulture)))];

    [GeneratedRegex(@"[ML](?<x>-?[\d.]+),(?<y>-?[\d.]+)")]
    private static partial Regex PathPoint();
}
