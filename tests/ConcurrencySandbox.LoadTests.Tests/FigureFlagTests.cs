using System.Text.Json;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.Matrix;

namespace ConcurrencySandbox.LoadTests.Tests;

public class FigureFlagTests
{
    [Theory]
    [InlineData(725, 2, true)]
    [InlineData(201, 2, true)]
    [InlineData(199, 2, false)]
    [InlineData(110, 1, true)]
    [InlineData(399, 4, false)]
    public void EfficiencyAboveCoresTimesHundredIsFlaggedImpossible(double efficiencyPercent, int cores, bool flagged)
    {
        var flag = FigureChecks.Efficiency("cell", efficiencyPercent, cores);

        Assert.Equal(flagged, flag is { Kind: FlagKind.Impossible });
    }

    [Theory]
    [InlineData(1.0, 0.95, 1.10, false)]
    [InlineData(1.0, 0.90, 1.25, true)]
    public void RepeatsSpreadingMoreThanTwentyPercentOfTheMedianAreFlaggedNoisy(double median, double min, double max, bool flagged)
    {
        Assert.Equal(flagged, FigureChecks.Spread("cell", median, min, max) is { Kind: FlagKind.Noisy });
    }

    [Fact]
    public void SweepFromTheApiIsFlaggedAgainstTheCoresTheApiReallyHad()
    {
        using var document = JsonDocument.Parse("""
            { "machine": { "processorCount": 2 }, "rows": [
              { "amount": 10, "syncSeconds": 0.000029, "taskRunSeconds": 0.000004, "efficiencyPercent": 725,
                "sync": { "median": 0.000029, "min": 0.00002, "max": 0.00006 }, "taskRun": { "median": 0.000004, "min": 0.000004, "max": 0.0000041 } },
              { "amount": 1000000000, "syncSeconds": 2, "taskRunSeconds": 1.02, "efficiencyPercent": 196,
                "sync": { "median": 2, "min": 1.98, "max": 2.02 }, "taskRun": { "median": 1.02, "min": 1.0, "max": 1.05 } } ] }
            """);
        var sweep = document.Deserialize<SweepReport>(new JsonSerializerOptions(JsonSerializerDefaults.Web))!;

        var flags = MatrixRunner.Flags([new CoreCountRun(2, null, sweep.ProcessorCount, sweep.Rows, null, null)]);

        Assert.Equal(2, flags.Count);
        Assert.Contains(flags, f => f.Kind == FlagKind.Impossible && f.Figure == "2 core(s), 10 cycles: % efficiency" && f.Value == "725 %");
        Assert.Contains(flags, f => f.Kind == FlagKind.Noisy && f.Figure == "2 core(s), 10 cycles: sync");
    }
}
