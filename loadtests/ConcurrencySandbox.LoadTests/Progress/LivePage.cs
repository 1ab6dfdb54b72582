using System.Reflection;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>
/// The live page: one HTML file with its script and style inline, so the browser asks the runner for nothing but the
/// page, the feed and the report. Its charts are report.html's: the same vendored uPlot and <c>Reports/Assets/charts.js</c>,
/// fed models of the same shape built from the feed's events.
/// </summary>
internal static class LivePage
{
    public static string Html { get; } = Read()
        .Replace("/*CHARTS_CSS*/", ChartAssets.Styles, StringComparison.Ordinal)
        .Replace("/*CHARTS_JS*/", ChartAssets.Scripts, StringComparison.Ordinal);

    private static string Read()
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("LivePage.html")
            ?? throw new InvalidOperationException("The runner was built without its embedded live page (Progress/LivePage.html).");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }
}
