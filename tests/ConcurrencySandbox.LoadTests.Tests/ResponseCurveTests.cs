using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

public sealed class ResponseCurveTests
{
    private static SummaryCurvePoint Point(double load, double? p99Ms, double okPerSecond, long answered = 30) =>
        new(load, p99Ms / 2, p99Ms, okPerSecond, p99Ms is null ? 0 : answered, 0, 0, null);

    /// <summary>A step none of whose requests got an answer: <paramref name="timedOut"/> of them were given up after 60 s.</summary>
    private static SummaryCurvePoint TimedOut(double load, long timedOut = 25) => new(load, null, null, 0, 0, timedOut, 0, 60_000);

    [Theory]
    [InlineData(3)]
    [InlineData(11)]
    [InlineData(39)]
    public void TheKneesSentenceCountsWhatTheLoadSentInItsOwnNoun(int seed)
    {
        // Streaming's load sends messages: its knee sentence counts messages, never requests; seeded counts, grouped from 1,000.
        var random = new Random(seed);
        long[] counts = [random.NextInt64(20, 1_000), random.NextInt64(1_000, 500_000), random.NextInt64(1_000, 500_000), random.NextInt64(20, 999)];
        var bends = ResponseCurve.Of("pooled", "clients", [Point(200, 2, 200, counts[0]), Point(400, 2.1, 400, counts[3]), Point(800, 9, 800, counts[1]), Point(1_600, 20, 1_600, counts[2])], [0, 1, 2, 3], "messages");
        var firstTooFew = ResponseCurve.Of("pooled", "clients", [Point(200, 2, 200, 1), Point(400, 9, 400, counts[1])], [0, 1], "messages");

        Assert.Equal($"pooled: knee at 800 clients (p99 9 ms > 2 x unloaded 2 ms; confirmed at 1,600 clients; from {CountText.Of(counts[1], "message")} at 800 clients and {CountText.Of(counts[2], "message")} at 1,600 clients, the unloaded p99 from {CountText.Of(counts[0], "message")} at 200 clients)", bends.Line);
        Assert.Contains("had 1 message with a latency", firstTooFew.Line, StringComparison.Ordinal);
        Assert.DoesNotContain("request", bends.Line + firstTooFew.Line, StringComparison.Ordinal);
    }

    [Fact]
    public void KneeIsTheFirstStepWhoseP99ExceedsTwiceTheUnloadedP99()
    {
        // Throughput grows in proportion throughout: only the latency rule can find this knee.
        var knee = ResponseCurve.FindKnee([Point(2, 100, 2), Point(4, 150, 4), Point(6, 200, 6), Point(8, 201, 8), Point(10, 900, 10)]).Knee;

        Assert.Equal(3, knee?.Index);
        Assert.Contains("> 2 x unloaded 100 ms", knee?.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void KneeIsTheFirstStepWhoseThroughputStopsGrowingWithTheLoad()
    {
        // Load +50 % and throughput +20 % (under half the load's rise) at 6 users; p99 stays under 2 x throughout.
        var knee = ResponseCurve.FindKnee([Point(2, 100, 2), Point(4, 110, 4), Point(6, 120, 4.8), Point(8, 130, 4.8)]).Knee;

        Assert.Equal(2, knee?.Index);
        Assert.StartsWith("throughput 4.8/s after 4/s", knee?.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void AStepWhoseRequestsAllTimedOutIsAKneeAtLeastTheirTimeout()
    {
        var knee = ResponseCurve.FindKnee([Point(2, 100, 2), TimedOut(4), TimedOut(6)]).Knee;

        Assert.Equal(1, knee?.Index);
        Assert.StartsWith("p99 \u2265 60 s > 2 x unloaded 100 ms; confirmed at 6 users", knee?.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void ABendAtTheLastStepIsNotConfirmedSoNoKneeIsStatedAndTheSentenceSaysWhy()
    {
        var finding = ResponseCurve.FindKnee([Point(2, 100, 2), Point(4, 110, 4), Point(6, 900, 6)]);

        Assert.Null(finding.Knee);
        Assert.StartsWith("the bend at 6 users (p99 900 ms > 2 x unloaded 100 ms) is the last step", finding.NoKneeBecause, StringComparison.Ordinal);
    }

    [Fact]
    public void ABendTheNextStepDoesNotConfirmIsNoKnee()
    {
        // One slow step between two healthy ones: a blip, not where the curve bends.
        Assert.Equal(new KneeFinding(null, null), ResponseCurve.FindKnee([Point(2, 100, 2), Point(4, 300, 4), Point(6, 110, 6), Point(8, 120, 8)]));
    }

    [Fact]
    public void AStepWithFewerRequestsThanTheMinimumIsNoKneeNorAnUnloadedLatency()
    {
        // A 3-request step's p99 is its maximum: the slow one at 4 users is no knee; a 3-request first step is no baseline.
        var fewAtTheBend = ResponseCurve.FindKnee([Point(2, 100, 2), Point(4, 900, 4, answered: 3), Point(6, 120, 6), Point(8, 130, 8)]);
        var fewAtFirst = ResponseCurve.FindKnee([Point(2, 100, 2, answered: 3), Point(4, 900, 4), Point(6, 950, 6)]);

        Assert.Equal(new KneeFinding(null, null), fewAtTheBend);
        Assert.Null(fewAtFirst.Knee);
        Assert.Equal($"its first step (2 users) had 3 requests with a latency, fewer than the {ResponseCurve.MinimumRequestsPerStep} a step needs to give an unloaded latency", fewAtFirst.NoKneeBecause);
    }

    [Fact]
    public void AHealthyCurveHasNoKnee()
    {
        var healthy = ResponseCurve.FindKnee([Point(2, 100, 2), Point(4, 120, 4), Point(6, 150, 6), Point(8, 199, 7.5)]);

        Assert.Equal(new KneeFinding(null, null), healthy);
    }

    [Fact]
    public void AFirstStepWithNoAnswerLeavesNoUnloadedLatencySoNoKneeIsStated()
    {
        // The first step cannot be a knee (nothing before it) and has no latency to call unloaded: a p99 at 2 users
        // is not an unloaded one when the server answered nothing at 1.
        var points = new[] { Point(1, null, 0), Point(2, 100, 2), Point(4, 300, 4) };

        Assert.Null(ResponseCurve.FindKnee(points).Knee);
    }

    [Fact]
    public void ThroughputFromNothingToNothingIsNoKneeAndTheSentenceSaysWhyNoneIsStated()
    {
        // Fan-out's threadpool in the quick run: no answer in the first two steps, a few late ones at 12 users. The
        // rule used to state "knee at 8 users (throughput 0/s after 0/s)".
        var report = SyntheticReports.LoadRun("fanout", ["threadpool"], 20, 4, (_, t) => t < 10 ? 90_000 : 100);

        var line = RunAnalysis.Of(report, "cmd").Variants[0].Curve!.Line;

        Assert.StartsWith("threadpool: no knee stated: its first step (4 users) got no answer", line, StringComparison.Ordinal);
        Assert.DoesNotContain("0/s after 0/s", line, StringComparison.Ordinal);
    }

    [Fact]
    public void AKneesThroughputFiguresAreNeverRoundedToZero()
    {
        var knee = ResponseCurve.FindKnee([Point(2, 100, 0.04), Point(4, 110, 0.01), Point(8, 120, 0.01)]).Knee;

        Assert.StartsWith("throughput 0.01/s after 0.04/s while the load rose 100 %", knee?.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void CurvesHaveAPointPerStepAndCountTimeoutsByWhenTheyWereSentAsALowerBound()
    {
        // threadpool's requests sent after 10 s take 90 s and time out at 60 s.
        var report = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 ? 90_000 : 100);

        var curves = report.Variants.Select(v => ResponseCurve.Of(v, report.Words.Unit)).ToList();

        Assert.All(report.Variants.Zip(curves), c => Assert.Equal(c.First.Steps.Count(s => s.Load > 0), c.Second!.Points.Count));
        var threadpool = curves[0]!;
        Assert.All(threadpool.Points.Where(p => p.SentTimedOut > 0), p => Assert.Equal(60_000, p.TimedOutAtLeastMs));
        Assert.True(threadpool.Points.Sum(p => p.SentTimedOut) > 0);
        Assert.All(threadpool.Points.Where(p => p.Answered == 0), p => Assert.Null(p.P99Ms));
        Assert.All(curves[1]!.Points, p => Assert.Equal(0, p.SentTimedOut));
    }

    [Fact]
    public void AnUnsteppedLoadHasNoResponseCurve()
    {
        var report = SyntheticReports.Burst(8, new Dictionary<string, int> { ["default-pool"] = 2, ["min-workers-200"] = 8 });

        Assert.Empty(ReportWriter.CurveLines(RunAnalysis.Of(report, "cmd")));
    }
}
