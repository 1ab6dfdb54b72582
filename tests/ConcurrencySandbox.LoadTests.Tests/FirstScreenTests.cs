using System.Globalization;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>report.html's first screen: a tile per variant whose figures are the summary's own fields.</summary>
public sealed class FirstScreenTests
{
    [Fact]
    public void EachTileReadsItsVariantsSummaryFieldsAndAVariantWithNoAnswerSaysSoNeverZero()
    {
        // threadpool's requests all take 90 s and time out at 60 s: not one is answered.
        var summary = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, _) => name == "threadpool" ? 90_000 : 100).Analysed();

        var tiles = ReportWriter.Tiles(summary);

        var (threadpool, async) = (tiles.Single(t => t.Name == "threadpool"), tiles.Single(t => t.Name == "async"));
        var asyncSummary = summary.Variants.Single(v => v.Name == "async");
        Assert.Equal(asyncSummary.RequestsPerSecond.ToString("0.##", CultureInfo.InvariantCulture), Value(async, "RPS"));
        Assert.Equal($"{ReportWriter.Latency(asyncSummary, asyncSummary.P50Ms, "p50Ms")} / {ReportWriter.Latency(asyncSummary, asyncSummary.P99Ms, "p99Ms")}", Value(async, "p50 / p99 (ms)"));
        Assert.Equal(ReportWriter.NoAnswer, Value(threadpool, "RPS"));
        Assert.Equal(ReportWriter.NoAnswer, Value(threadpool, "p50 / p99 (ms)"));
        Assert.DoesNotContain(threadpool.Figures, f => f.Value == "0" || f.Value.StartsWith("0 /", StringComparison.Ordinal));
        Assert.Contains(RenderedPage.Lines(ReportWriter.ReportHtml(summary, [], [])), line => line.StartsWith("tile threadpool: RPS no answer", StringComparison.Ordinal));
    }

    private static string Value(ReportTile tile, string label) => tile.Figures.Single(f => f.Label == label).Value;
}
