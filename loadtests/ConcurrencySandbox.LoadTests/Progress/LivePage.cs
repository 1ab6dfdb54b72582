using System.Reflection;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>The live page: one HTML file with its script and style inline, so the browser asks the runner for nothing but the page, the feed and the report.</summary>
public static class LivePage
{
    public static string Html { get; } = Read();

    private static string Read()
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream("LivePage.html")
            ?? throw new InvalidOperationException("The runner was built without its embedded live page (Progress/LivePage.html).");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }
}
