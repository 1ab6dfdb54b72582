using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests;

public class ConfigAndThresholdTests
{
    [Fact]
    public void ConfigFileBuildsTheLoadShape()
    {
        var shape = LoadShapeConfig.Parse("""
            { "ReportingInterval": "00:00:02",
              "LoadSimulationsSettings": [ { "KeepConstant": [4, "00:00:10"] }, { "RampingConstant": [8, "00:00:05"] } ] }
            """, "test.json");

        Assert.Equal(TimeSpan.FromSeconds(2), shape.ReportingInterval);
        Assert.Equal(TimeSpan.FromSeconds(15), shape.Duration);
        Assert.Equal(6, shape.UsersAt(TimeSpan.FromSeconds(12.5)));
    }

    [Fact]
    public void InjectRateIsPerItsInterval()
    {
        var shape = LoadShapeConfig.Parse("""{ "LoadSimulationsSettings": [ { "Inject": [50, "00:00:02", "00:00:10"] } ] }""", "test.json");

        Assert.True(shape.IsOpen);
        Assert.Equal(25, shape.RateAt(TimeSpan.FromSeconds(1)));
    }

    [Theory]
    [InlineData("{ not json", "not valid JSON")]
    [InlineData("[]", "top level must be an object")]
    [InlineData("""{ "LoadSimulationsSettings": [] }""", "non-empty array")]
    [InlineData("""{ "Scenarios": [] }""", "unknown setting 'Scenarios'")]
    [InlineData("""{ "LoadSimulationsSettings": [ { "KeepConstant": [-1, "00:00:10"] } ] }""", "KeepConstant must be [copies")]
    [InlineData("""{ "LoadSimulationsSettings": [ { "KeepConstant": [4, "ten seconds"] } ] }""", "positive duration")]
    [InlineData("""{ "LoadSimulationsSettings": [ { "Hold": [4, "00:00:10"] } ] }""", "unknown simulation 'Hold'")]
    [InlineData("""{ "LoadSimulationsSettings": [ { "KeepConstant": [4, "00:00:10"] }, { "Inject": [5, "00:00:01", "00:00:10"] } ] }""", "mixes closed")]
    [InlineData("""{ "LoadSimulationsSettings": [ { "KeepConstant": [4, "03:00:00"] } ] }""", "more than")]
    public void MalformedConfigIsOneLineNamingTheFileAndTheFault(string json, string expected)
    {
        var error = Assert.Throws<FormatException>(() => LoadShapeConfig.Parse(json, "bad.json"));

        Assert.Contains(expected, error.Message);
        Assert.Contains("bad.json", error.Message);
        Assert.DoesNotContain('\n', error.Message);
    }

    [Fact]
    public void ThresholdParsesVariantMetricOperatorAndLimit()
    {
        var threshold = Threshold.Parse("async:p99<1200");

        Assert.Equal(new Threshold("async", "p99", "<", 1200), threshold);
        Assert.True(threshold.AppliesTo(new VariantKey("async", Cpus: 2)));
        Assert.False(threshold.AppliesTo(new VariantKey("threadpool")));
        Assert.True(Threshold.Parse("*:failed<=0").AppliesTo(new VariantKey("anything")));
        Assert.True(Threshold.Parse("async@2cpu:p99<5").AppliesTo(new VariantKey("async", Cpus: 2)));
        Assert.False(Threshold.Parse("async@2cpu:p99<5").AppliesTo(new VariantKey("async", Cpus: 1)));
    }

    [Theory]
    [InlineData("p99<1200")]
    [InlineData("async:p99=1200")]
    [InlineData("async:latency<1200")]
    [InlineData("async:p99<fast")]
    public void BadThresholdIsAFormatError(string text)
    {
        Assert.Throws<FormatException>(() => Threshold.Parse(text));
    }

    [Fact]
    public void ThresholdForOneCoreCountIsAcceptedOnlyWhenThatCoreCountRuns()
    {
        VariantKey[] variants = [new("async", Cpus: 1), new("async", Cpus: 2)];

        ExperimentRunner.CheckThresholdsNameVariants(variants, [Threshold.Parse("async@2cpu:p99<5"), Threshold.Parse("async:p99<5")]);
        var error = Assert.Throws<UsageException>(() => ExperimentRunner.CheckThresholdsNameVariants(variants, [Threshold.Parse("async@4cpu:p99<5")]));
        Assert.Contains("async@1cpu, async@2cpu", error.Message);
    }

    [Fact]
    public void ThresholdsAreCheckedAgainstEachVariantTheyName()
    {
        VariantResult[] results = [Result("sync", p99: 50, failed: 0), Result("async", p99: 500, failed: 2)];

        var outcomes = Thresholds.Evaluate([Threshold.Parse("async:p99<100"), Threshold.Parse("*:failed<=0")], results);

        Assert.Equal(3, outcomes.Count);
        Assert.Equal([false, true, false], outcomes.Select(o => o.Passed));
        Assert.Equal(["async", "sync", "async"], outcomes.Select(o => o.Variant));
    }

    private static VariantResult Result(string name, double p99, long failed) =>
        new(new VariantKey(name), "/x", "users", 1, [], [], TestStats.Uniform(10, 1, failed, p99Ms: p99));
}
