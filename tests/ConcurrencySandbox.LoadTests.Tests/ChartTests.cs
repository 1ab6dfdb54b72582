using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

public class ChartTests
{
    [Theory]
    [InlineData(0.7, 1)]
    [InlineData(1.3, 2)]
    [InlineData(2.2, 2.5)]
    [InlineData(37, 50)]
    [InlineData(100, 100)]
    [InlineData(0, 1)]
    public void AxisEndsOnANiceNumber(double value, double expected)
    {
        Assert.Equal(expected, SvgChart.NiceCeiling(value), 9);
    }

    [Fact]
    public void ChartIsSelfContainedSvgWithEverySeriesInTheLegend()
    {
        var svg = SvgChart.Render("t <&>", "seconds",
        [
            new ChartPanel("top", "left", "right",
            [
                new ChartSeries("threadpool mean", [(0, 1), (10, 4)], "#d62728", Axis.Left, Stroke.Solid),
                new ChartSeries("async rps", [(0, 3), (10, 9)], "#1f77b4", Axis.Right, Stroke.Dashed),
            ]),
            new ChartPanel("bottom", "threads", "queue", [new ChartSeries("threads", [(0, 2), (10, 30)], "#2ca02c", Axis.Left, Stroke.Solid)]),
        ]);

        Assert.StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"", svg);
        Assert.Equal(3, svg.Split("<polyline").Length - 1);
        Assert.Contains(">threadpool mean</text>", svg);
        Assert.Contains(">async rps</text>", svg);
        Assert.Contains("t &lt;&amp;&gt;", svg);
        Assert.DoesNotContain("<script", svg);
        Assert.DoesNotContain("http://", svg.Replace("http://www.w3.org/2000/svg", ""));
    }
}
