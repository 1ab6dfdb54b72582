using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.Engine;
using HdrHistogram;

namespace ConcurrencySandbox.LoadTests.Tests;

public class HistogramMergeTests
{
    private static readonly double[] Percentiles = [0, 1, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100];

    [Fact]
    public void MergedAgentHistogramsEqualOneHistogramFedEveryValue()
    {
        // Three agents with different latency distributions, as a fast, a slow and a bimodal client would see them.
        var random = new Random(29);
        var agents = new[]
        {
            Values(random, 5000, () => 200 + random.Next(800)),
            Values(random, 3000, () => 5_000 + random.Next(50_000)),
            Values(random, 2000, () => random.Next(2) == 0 ? 150 : 3_000_000 + random.Next(1_000_000)),
        };
        var single = LatencyRecorder.NewHistogram();
        foreach (var value in agents.SelectMany(a => a))
        {
            single.RecordValue(value);
        }

        var merged = LatencyRecorder.NewHistogram();
        foreach (var agent in agents)
        {
            var own = LatencyRecorder.NewHistogram();
            foreach (var value in agent)
            {
                own.RecordValue(value);
            }
            merged.Add(HistogramWire.Decode(HistogramWire.Encode(own)));
        }

        Assert.Equal(agents.Sum(a => a.Count), merged.TotalCount);
        Assert.Equal(single.TotalCount, merged.TotalCount);
        Assert.All(Percentiles, p => Assert.Equal(single.GetValueAtPercentile(p), merged.GetValueAtPercentile(p)));
        Assert.Equal(single.GetMaxValue(), merged.GetMaxValue());
        Assert.Equal(single.GetMean(), merged.GetMean());
    }

    [Fact]
    public void IntervalsMergedIntoARecorderGiveTheStatisticsOfOneRecorderOfEveryRequest()
    {
        // Two agents' recorders hand each interval over encoded, as they do on the wire; the coordinator's recorder merges them.
        var wires = new List<AgentInterval>();
        var agents = Enumerable.Range(0, 2).Select(index => new LatencyRecorder
        {
            IntervalTaken = t => wires.Add(AgentWire.IntervalOf(index, 0, new IntervalRow(new VariantKey("async"), 1, "users", 1, 0, LatencyStats.Empty), 0, t, HistogramWire.Encode(t.Histogram))),
        }).ToList();
        var all = new LatencyRecorder();
        for (var i = 1; i <= 400; i++)
        {
            var outcome = i % 50 == 0 ? RequestOutcome.TimedOut : RequestOutcome.Success;
            agents[i % 2].Record(i * 1.5, outcome);
            all.Record(i * 1.5, outcome);
        }
        agents.ForEach(a => a.TakeInterval());
        all.TakeInterval();

        var coordinator = new LatencyRecorder();
        foreach (var wire in wires)
        {
            coordinator.AddInterval(AgentWire.Merged([wire]));
        }

        Assert.Equal(2, wires.Count);
        Assert.Equal(all.Total(), coordinator.Total());
        Assert.Equal(all.Total(), coordinator.SentInStep(0));
        Assert.Equal(400, coordinator.Total().Requests);
        Assert.Equal(8, coordinator.Total().TimedOut);
    }

    [Theory]
    [InlineData(3)]
    [InlineData(17)]
    [InlineData(41)]
    public void ATakenIntervalIsAPlainHistogramOfExactlyItsOwnValues(int seed)
    {
        // The recorder's histogram is concurrent (every count read takes a lock); a take hands out a plain copy, so the
        // interval's statistics, encodings and merges read an array. Two takes: the second holds only its own values.
        var random = new Random(seed);
        var tally = new OutcomeTally();
        foreach (var batch in new[] { random.Next(1, 5000), random.Next(1, 5000) })
        {
            var expected = LatencyRecorder.NewHistogram();
            for (var i = 0; i < batch; i++)
            {
                var micros = random.Next(3) == 0 ? random.NextInt64(1, LatencyRecorder.HighestMicros) : random.Next(100, 20_000);
                tally.Record(micros, RequestEnd.Ok);
                expected.RecordValue(micros);
            }

            var taken = tally.Take();

            Assert.IsType<LongHistogram>(taken.Histogram);
            Assert.Equal(batch, taken.Counts.Ok);
            Assert.Equal(expected.TotalCount, taken.Histogram.TotalCount);
            Assert.All(Percentiles, p => Assert.Equal(expected.GetValueAtPercentile(p), taken.Histogram.GetValueAtPercentile(p)));
            Assert.Equal(expected.GetMean(), taken.Histogram.GetMean());
            Assert.Equal(HistogramWire.Encode(expected), HistogramWire.Encode(taken.Histogram));
            Assert.True(taken.Histogram.EndTimeStamp >= taken.Histogram.StartTimeStamp && taken.Histogram.StartTimeStamp > 0, "the interval's times are carried");
        }
    }

    [Theory]
    [InlineData(5)]
    [InlineData(23)]
    [InlineData(61)]
    public void TheStatisticsMaximumIsHdrHistogramsOwn(int seed)
    {
        var random = new Random(seed);
        var histogram = LatencyRecorder.NewHistogram();
        for (var i = random.Next(1, 3000); i > 0; i--)
        {
            histogram.RecordValue(random.Next(4) == 0 ? random.NextInt64(1, LatencyRecorder.HighestMicros) : random.Next(1, 50_000));
        }

        Assert.Equal(histogram.GetMaxValue() / 1000.0, LatencyStats.From(histogram, new OutcomeCounts(histogram.TotalCount, 0, 0, 0)).MaxMs);
    }

    [Theory]
    [InlineData(7)]
    [InlineData(31)]
    [InlineData(73)]
    public void AnAgentsLogIsByteForByteWhatHdrHistogramsLogWriterWrites(int seed)
    {
        // The agent's log takes each interval as encoded for the wire; a reader of .hlog files must see no difference.
        var random = new Random(seed);
        var startTime = new DateTime(2026, 11, 30, 20, 0, 0, DateTimeKind.Utc).AddMilliseconds(random.Next(1_000_000));
        var intervals = Enumerable.Range(0, random.Next(1, 6)).Select(i =>
        {
            var histogram = LatencyRecorder.NewHistogram();
            for (var n = random.Next(0, 4000); n > 0; n--)
            {
                histogram.RecordValue(random.Next(5) == 0 ? random.NextInt64(1, LatencyRecorder.HighestMicros) : random.Next(1, 30_000));
            }
            histogram.StartTimeStamp = 1_796_000_000_000 + i * 2_000 + random.Next(1000);
            histogram.EndTimeStamp = histogram.StartTimeStamp + random.Next(1, 5000);
            return histogram;
        }).ToList();

        using var library = new MemoryStream();
        using (var writer = new HistogramLogWriter(library))
        {
            writer.Write(startTime);
            intervals.ForEach(writer.Append);
        }
        using var agents = new MemoryStream();
        using (var log = new IntervalLog(agents, startTime))
        {
            intervals.ForEach(h => log.Append(h, HistogramWire.Encode(h)));
        }

        Assert.Equal(library.ToArray(), agents.ToArray());
        agents.Position = 0;
        var read = new HistogramLogReader(agents).ReadHistograms().ToList();
        Assert.Equal(intervals.Select(h => h.TotalCount), read.Select(h => h.TotalCount));
    }

    [Fact]
    public void ATextThatIsNotAnEncodedHistogramIsAFormatError()
    {
        Assert.Throws<FormatException>(() => HistogramWire.Decode("bm90IGEgaGlzdG9ncmFt"));
        Assert.Throws<FormatException>(() => HistogramWire.Decode("not base64!"));
    }

    private static List<long> Values(Random random, int count, Func<long> next) => [.. Enumerable.Range(0, count).Select(_ => next())];
}
