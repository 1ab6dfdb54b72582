using ConcurrencySandbox.LoadTests.Experiments.FanOut;
using ConcurrencySandbox.LoadTests.Experiments;

namespace ConcurrencySandbox.LoadTests.Tests;

public class FanOutPlanTests
{
    [Fact]
    public void OnlyTheDedicatedVariantSizesTheDedicatedPool()
    {
        var experiment = new FanOutExperiment(FanOutSettings.Defaults with { DedicatedThreads = 123 });

        var dedicated = experiment.Variants.Single(v => v.Name == "dedicated");
        Assert.Equal("123", dedicated.Environment["FanOut__DedicatedThreads"]);
        Assert.All(experiment.Variants.Where(v => v.Name != "dedicated"), v => Assert.Empty(v.Environment));
    }

    [Fact]
    public void EveryStrategyTheApiKnowsIsAVariantByDefault()
    {
        var experiment = new FanOutExperiment(FanOutSettings.Defaults);

        Assert.Equal(["threadpool", "sync-over-async", "dedicated", "async"], experiment.Variants.Select(v => v.Name));
        Assert.All(experiment.Variants, v => Assert.EndsWith($"&strategy={v.Name}", v.Driver.Request));
    }

    [Fact]
    public void StarvingStrategiesMayFailButThoseThatHoldNoPoolThreadMayNot()
    {
        var experiment = new FanOutExperiment(FanOutSettings.Defaults);

        var mayFailOnePercent = experiment.DefaultThresholds.Where(t => t.Metric == "failedPercent").Select(t => (t.Variant, t.Limit)).ToList();
        Assert.Equal([("dedicated", 1.0), ("async", 1.0)], mayFailOnePercent);
        Assert.Equal(["threadpool", "sync-over-async"], experiment.ExpectedToFail);
        Assert.Contains(experiment.DefaultThresholds, t => t is { Variant: "async", Metric: "p99", Limit: 1200 });
    }
}
