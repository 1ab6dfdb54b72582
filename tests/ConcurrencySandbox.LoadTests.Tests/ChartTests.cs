using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

public class ChartTests
{
    [Theory]
    [InlineData(3, 3, 0.5)]
    [InlineData(60, 60, 10)]
    [InlineData(480, 500, 100)]
    [InlineData(37, 40, 10)]
    [InlineData(0.7, 0.8, 0.2)]
    [InlineData(0, 1, 0.2)]
    public void AxisEndsOnARoundStepAtOrAboveTheMaximum(double max, double top, double step)
    {
        var scale = SvgChart.NiceScale(max);

        Assert.Equal(top, scale.Top, 9);
        Assert.Equal(step, scale.Step, 9);
        Assert.True(scale.Ticks.Count() <= 7);
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
