using System.Diagnostics;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

public class PeakLoadTests
{
    [Fact]
    public void ThePeakStepIsTheFirstStepRowAtThePeakLoad()
    {
        // 4 users, 8, back to 4, 8 again: the peak step is the first run at 8 users, with the requests booked to it.
        var result = Result([4, 8, 4, 8], [Step(4, 0, 10, 3), Step(8, 10, 20, 5), Step(4, 20, 30, 2), Step(8, 30, 40, 7)]);

        Assert.Equal((8, 10, 20, 5), (result.PeakStep!.Load, result.PeakStep.FromSeconds, result.PeakStep.ToSeconds, result.PeakStep.Stats.Requests));
    }

    [Fact]
    public void AVariantStoppedBeforeItsPeakStepClosedHasNoPeakStep()
    {
        // Stopped during the 8-user step: its intervals reached the peak, but only the 4-user step closed.
        var result = Result([4, 8], [Step(4, 0, 10, 3)]);

        Assert.Null(result.PeakStep);
    }

    [Theory]
    [InlineData(39)]
    [InlineData(2026)]
    [InlineData(53334)]
    public void ThePerVariantTablesFigureAtPeakLoadIsThePeakStepsRowInTheStepTable(int seed)
    {
        // Latency grows with the time a request was sent, from a random start and at a random rate, some variants into
        // the 60 s timeout: the peak step's row holds answers, lower bounds or both. Steps and intervals are 2 s apart, so
        // requests sent in the last moments before the peak step belong to the step before.
        var random = new Random(seed);
        var variants = Enumerable.Range(0, random.Next(1, 5)).Select(i => $"v{i}").ToList();
        var shape = variants.ToDictionary(v => v, _ => (BaseMs: 50 + random.NextDouble() * 2_000, GrowthMsPerSecond: random.NextDouble() < 0.5 ? random.NextDouble() * 50 : random.NextDouble() * 5_000));
        var summary = SyntheticReports.LoadRun("fanout", variants, 20 + random.Next(0, 3) * 10, random.Next(2, 12),
            (name, sentSeconds) => shape[name].BaseMs + shape[name].GrowthMsPerSecond * sentSeconds).Analysed();

        AssertThePeakFigureIsThePeakRow(summary);
    }

    public static TheoryData<string> CommittedSummariesOfThisVersion() => FirstScreenTests.CommittedSummariesOfThisVersion();

    [Theory]
    [MemberData(nameof(CommittedSummariesOfThisVersion))]
    public void EveryCommittedPagesFigureAtPeakLoadIsThePeakStepsRowInTheStepTable(string file) =>
        AssertThePeakFigureIsThePeakRow(ReportFolder.ReadSummary(Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results", file), file));

    /// <summary>
    /// Each variant's "at peak load" cell in the per-variant table says what the step table's row of its first step at
    /// the peak load says: its p50 and p99 ("no answer" when neither has one). A run whose load did not step has no
    /// step table; its one step is then the whole run, and the cell says that step's p50 and p99.
    /// </summary>
    private static void AssertThePeakFigureIsThePeakRow(RunSummary summary)
    {
        var table = ReportWriter.VariantTable(summary);
        var column = table.Headers.ToList().FindIndex(h => h.EndsWith("at peak load (ms)", StringComparison.Ordinal));
        Assert.True(column >= 0, string.Join(" | ", table.Headers));
        var steps = ReportWriter.StepTable(summary);
        foreach (var (variant, row) in summary.Variants.Zip(table.Rows))
        {
            var load = ResponseCurve.LoadText(variant.PeakLoad, variant.LoadUnit);
            var (p50, p99) = variant.Steps.Count > 1 ? RowAt(steps!, variant.Name, load) : Cells(Assert.Single(variant.Steps));
            Assert.Equal(p50 == ReportWriter.NoAnswer && p99 == ReportWriter.NoAnswer ? ReportWriter.NoAnswer : $"{p50} / {p99}", row[column]);
        }
    }

    /// <summary>The p50 and p99 cells of the step table's first row of <paramref name="variant"/> at <paramref name="load"/> (marked "(knee)" or not).</summary>
    private static (string P50, string P99) RowAt(TextTable steps, string variant, string load)
    {
        var row = steps.Rows.First(r => r[0] == variant && (r[1] == load || r[1] == $"{load} (knee)"));
        return (row[5], row[6]);
    }

    private static (string P50, string P99) Cells(SummaryStep step) =>
        (ReportWriter.Cell(step.P50Ms, "p50Ms", step.LowerBounds, step.Outcomes.NoAnswer), ReportWriter.Cell(step.P99Ms, "p99Ms", step.LowerBounds, step.Outcomes.NoAnswer));

    private static StepRow Step(double users, double from, double to, int requests) =>
        new(users, from, to, TestStats.Of(Enumerable.Repeat(1_000.0, requests)));

    private static VariantResult Result(IReadOnlyList<double> users, IReadOnlyList<StepRow> steps)
    {
        var key = new VariantKey("v");
        IReadOnlyList<IntervalRow> intervals = [.. users.Select((load, i) => new IntervalRow(key, 10 * (i + 1), "users", load, 0, LatencyStats.Empty))];
        return new VariantResult(key, "/x", "users", intervals[^1].ElapsedSeconds, intervals, [], LatencyStats.Empty) { Steps = steps };
    }

    [Fact]
    public void RecorderGroupsRequestsByWhenTheyWereSent()
    {
        // The variant began 5 s ago; a request that took 2 s was sent about 3 s in.
        var recorder = new LatencyRecorder(Stopwatch.GetTimestamp() - 5 * Stopwatch.Frequency);
        recorder.Record(2_000, RequestOutcome.Success);
        recorder.Record(4_000, RequestOutcome.TimedOut);

        var slices = recorder.SentSlices();

        Assert.Equal(2, slices.Count);
        Assert.InRange(slices[0].FromSeconds, 0.9, 1.5);
        Assert.Equal((0, 1), (slices[0].Completed, slices[0].TimedOut));
        Assert.InRange(slices[1].FromSeconds, 2.9, 3.5);
        Assert.Equal((1, 0), (slices[1].Completed, slices[1].TimedOut));
    }

    [Fact]
    public void RecorderKeepsEachRequestWithItsCompletionTimeSinceTheRecorderStartedWhenAskedTo()
    {
        // A recorder whose run started an hour ago: completion times count from that start, not from the recording.
        var recorder = new LatencyRecorder(Stopwatch.GetTimestamp() - 3600 * Stopwatch.Frequency, keepEveryRequest: true);
        recorder.Record(10, RequestOutcome.Success);
        recorder.Record(20, RequestOutcome.TimedOut);

        var requests = recorder.Requests();

        Assert.Equal([(10.0, RequestEnd.Ok), (20.0, RequestEnd.Timeout)], requests.Select(r => (r.LatencyMs, r.End)));
        Assert.All(requests, r => Assert.InRange(r.CompletedSeconds, 3600, double.MaxValue));
    }
}
