using ConcurrencySandbox.LoadTests.Experiments;

namespace ConcurrencySandbox.LoadTests.Tests;

public class FanOutPlanTests
{
    [Fact]
    public void OnlyTheDedicatedVariantSizesTheDedicatedPool()
    {
        var plan = Catalog.Create("fanout", ExperimentSettings.Defaults with { DedicatedThreads = 123 });

        var dedicated = plan.Variants.Single(v => v.Name == "dedicated");
        Assert.Equal("123", dedicated.Environment["FanOut__DedicatedThreads"]);
        Assert.All(plan.Variants.Where(v => v.Name != "dedicated"), v => Assert.Empty(v.Environment));
    }

    [Fact]
    public void StarvingStrategiesMayFailButThoseThatHoldNoPoolThreadMayNot()
    {
        var plan = Catalog.Create("fanout", ExperimentSettings.Defaults);

        var noFailures = plan.DefaultThresholds.Where(t => t.Metric == "failed").Select(t => t.Variant).ToList();
        Assert.Equal(["dedicated", "async"], noFailures);
        Assert.Contains(plan.DefaultThresholds, t => t is { Variant: "async", Metric: "p99", Limit: 1200 });
    }
}
