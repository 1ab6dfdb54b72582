using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.Experiments.Streaming;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Experiments.Streaming;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

public sealed class StreamingEvidenceTests
{
    [Fact]
    public void EvidenceChartsIncludeCpuPerMessagePerVariant()
    {
        var variants = SyntheticReports.LoadRun("streaming", ["allocating", "pipelines"], 10, 5, (_, _) => 1).Variants;
        VariantResult[] results =
        [
            variants[0] with { Figures = [new VariantFigure("CPU per message, net of idle", 12.5, "µs")] },
            variants[1] with { Figures = [new VariantFigure("CPU per message, net of idle", 4, "µs")] },
        ];

        var charts = new StreamingExperiment(StreamingLoad.Seed001Shape, new StreamingPinning(null, null, "test")).EvidenceOf(results);

        var cpu = Assert.Single(charts);
        Assert.Equal("µs", cpu.Unit);
        Assert.Equal([new EvidenceValue("allocating", 12.5), new EvidenceValue("pipelines", 4)], cpu.Values);
    }

    [Fact]
    public void LatenessDistributionIsDrawnPerVariantOnANinesAxisFromTheSteadyStateHistogram()
    {
        // Between the steady window's first and last reading: 990 messages in the first 0.1 ms bucket, 10 in the one up to 5.1 ms.
        var chart = StreamingExperiment.LatenessChart(
        [
            ("allocating", Run([], [new LatenessBucket(0, 990), new LatenessBucket(50, 10)])),
            ("pipelines", Run([new LatenessBucket(0, 5)], [new LatenessBucket(0, 1005)])),
        ])!;

        var allocating = chart.Distributions![0].Points;
        Assert.Equal(0.1, allocating.Single(p => p.Percentile == 99).LatencyMs, 9);
        Assert.Equal(5.1, allocating.Single(p => p.Percentile == 99.9).LatencyMs, 9);
        var (kind, model) = BarsModel.Of(RunAnalysis.Evidence(chart));
        Assert.Equal(DistributionModel.Kind, kind);
        var drawn = (DistributionModel)model;
        Assert.Equal("messages", drawn.Population);
        Assert.Equal(["allocating 7", "pipelines 7"], drawn.Curves.Select(c => $"{c.Name} {c.Points.Count}"));
    }

    [Fact]
    public void LatenessDistributionIsLeftOutWhenNoVariantRan() => Assert.Null(StreamingExperiment.LatenessChart([]));

    private static StreamingResult Run(IReadOnlyList<LatenessBucket> first, IReadOnlyList<LatenessBucket> last)
    {
        var load = StreamingLoad.Seed001Shape with { Clients = 1 };
        return new StreamingResult(load, [], [Sample(0, first), Sample(10, last)], new StreamingClientsReading(10, 1, 1000, 0, 0, 0, 0, 0, [], 0, 1, Final: true));
    }

    private static StreamingSample Sample(double seconds, IReadOnlyList<LatenessBucket> buckets) =>
        new(seconds, new StreamingServerCounters(ConnectedClients: 1, 1, 0, 0, 0, 0, 0, 0, 0, buckets, 0, 0), new StreamingProcessFigures(0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
}
