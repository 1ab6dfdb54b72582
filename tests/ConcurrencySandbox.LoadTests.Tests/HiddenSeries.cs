using System.Globalization;
using System.Xml.Linq;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// Reads a chart's SVG as it is drawn (polylines, dots, bars in pixels) and names every series that is fully hidden: one
/// that lies on another series of its panel that can hide it (<see cref="SeriesOverlap.Hides"/>) at every point
/// (<see cref="SeriesOverlap.LiesOn"/>) while neither carries
/// visible marks of its own (a "lies-on" group of diamonds) with a note under the panel naming both; of two that lie on
/// each other one marked is enough, since the other shows through its short dashes or beside its diamonds.
/// </summary>
public static class HiddenSeries
{
    private static readonly XNamespace Svg = "http://www.w3.org/2000/svg";

    /// <summary>"b lies on a" for each fully hidden series b, panel by panel; empty when every series can be seen.</summary>
    public static IReadOnlyList<string> In(string svg)
    {
        var hidden = new List<string>();
        foreach (var panel in Groups(XDocument.Parse(svg).Root!, "panel", descendants: true))
        {
            var series = Groups(panel, "series").Select(g => (Name: (string)g.Attribute("data-series")!, Pixels: Drawn(g), IsBars: g.Elements(Svg + "rect").Any())).ToList();
            var marked = Groups(panel, "lies-on").Where(g => g.Elements(Svg + "path").Any()).Select(g => (string)g.Attribute("data-series")!).ToHashSet();
            var notes = NotesOf(panel);
            bool On(int i, int j) => SeriesOverlap.Hides(j, i, series[j].IsBars, series[i].IsBars) && SeriesOverlap.LiesOn(series[i].Pixels, series[j].Pixels, series[i].IsBars);
            bool Shown(string name, string other) => marked.Contains(name) && notes.Any(n => n.Contains(name, StringComparison.Ordinal) && n.Contains(other, StringComparison.Ordinal));
            for (var i = 0; i < series.Count; i++)
            {
                for (var j = 0; j < series.Count; j++)
                {
                    if (On(i, j) && !Shown(series[i].Name, series[j].Name) && !(On(j, i) && Shown(series[j].Name, series[i].Name)))
                    {
                        hidden.Add($"{series[i].Name} lies on {series[j].Name}");
                    }
                }
            }
        }
        return hidden;
    }

    /// <summary>Every note under the panels of <paramref name="svg"/>, its wrapped lines joined again.</summary>
    public static IReadOnlyList<string> Notes(string svg) => [.. Groups(XDocument.Parse(svg).Root!, "panel", descendants: true).SelectMany(NotesOf)];

    private static List<string> NotesOf(XElement panel) =>
    [
        .. panel.Elements(Svg + "text").Where(t => (string?)t.Attribute("class") == "note")
            .Select(t => t.Elements(Svg + "tspan").Any() ? string.Join(' ', t.Elements(Svg + "tspan").Select(line => line.Value)) : t.Value),
    ];

    private static IEnumerable<XElement> Groups(XElement parent, string cssClass, bool descendants = false) =>
        (descendants ? parent.Descendants(Svg + "g") : parent.Elements(Svg + "g")).Where(g => (string?)g.Attribute("class") == cssClass);

    /// <summary>Where a series group is drawn: each polyline, each dot, each bar's top (its middle).</summary>
    private static List<IReadOnlyList<(double X, double Y)>> Drawn(XElement series) =>
    [
        .. series.Elements(Svg + "polyline").Select(p => (IReadOnlyList<(double X, double Y)>)[.. ((string)p.Attribute("points")!).Split(' ').Select(xy => (Number(xy.Split(',')[0]), Number(xy.Split(',')[1])))]),
        .. series.Elements(Svg + "circle").Select(c => (IReadOnlyList<(double X, double Y)>)[(Number((string)c.Attribute("cx")!), Number((string)c.Attribute("cy")!))]),
        .. series.Elements(Svg + "rect").Select(r => (IReadOnlyList<(double X, double Y)>)[(Number((string)r.Attribute("x")!) + Number((string)r.Attribute("width")!) / 2, Number((string)r.Attribute("y")!))]),
    ];

    private static double Number(string text) => double.Parse(text, CultureInfo.InvariantCulture);
}
