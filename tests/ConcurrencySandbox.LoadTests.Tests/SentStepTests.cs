using System.Diagnostics;
using System.Text.Json;
using ConcurrencySandbox.Contracts;
using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// Every request belongs to the step it was SENT in: a starving server's slow answers and timeouts are its step's, not
/// the step they happened to end in. A fake run of two steps (4 users until 500 s, 8 until 800 s, then the tail) whose
/// requests end long after they were sent: the recorder's clock reads about 1000 s, so a latency of L seconds means a
/// request sent at 1000 - L.
/// </summary>
public class SentStepTests
{
    private const double StepEndSeconds = 500;
    private const double LoadEndSeconds = 800;

    // Step 0 (sent before 500 s): 20 answers after 600 s ended while its first interval was open, 5 after 700 s and 3
    // timeouts given up after 650 s ended in the next step, 1 timeout after 900 s in the tail.
    private static readonly double[] Step0AnsweredMs = [.. Enumerable.Repeat(600_000.0, 20), .. Enumerable.Repeat(700_000.0, 5)];

    // Step 1 (sent from 500 s): 20 answers after 300 s and 2 timeouts after 250 s ended in it, 1 answer after 400 s and
    // 4 after 100 s (sent at about 900 s, in the tail: the last moments of the load) ended in the tail.
    private static readonly double[] Step1AnsweredMs = [.. Enumerable.Repeat(300_000.0, 20), 400_000, .. Enumerable.Repeat(100_000.0, 4)];

    [Fact]
    public void SlowAnswersAndTimeoutsCountInTheStepTheyWereSentInNotTheOneTheyEndedIn()
    {
        var recorder = StartedLongAgo();
        var series = new IntervalSeries(new VariantKey("threadpool"), "users", recorder);

        Play([recorder], (end, load, partial) => series.Add(end, load, 0, partial, step => recorder.TakeInterval(end, step)), series.CloseStep);

        var steps = series.Steps;
        Assert.Equal([(4.0, 0.0, StepEndSeconds), (8.0, StepEndSeconds, LoadEndSeconds)], steps.Select(s => (s.Load, s.FromSeconds, s.ToSeconds)));
        Assert.Equal(TestStats.Of(Step0AnsweredMs, failed: 4, timedOutAtMs: 650_000), steps[0].Stats);
        Assert.Equal(TestStats.Of(Step1AnsweredMs, failed: 2, timedOutAtMs: 250_000), steps[1].Stats);
        // By when they ended, the second interval holds step 0's late answers and timeouts: what the step table showed before.
        Assert.Equal(new OutcomeCounts(25, 0, 5, 0), series.Intervals[1].Stats.Outcomes);
        Assert.Equal(steps.Sum(s => s.Stats.Requests), recorder.Total().Requests);

        var curve = ResponseCurve.Of(new VariantResult(new VariantKey("threadpool"), "/x", "users", 1000, series.Intervals, [], recorder.Total()) { Steps = steps }, "requests")!;
        Assert.Equal([(25L, 4L, 650_000.0), (25L, 2L, 250_000.0)], curve.Points.Select(p => (p.Answered, p.SentTimedOut, p.TimedOutAtLeastMs ?? 0)));
        Assert.Equal(steps.Select(s => (s.Stats.P50Ms, s.Stats.P99Ms)), curve.Points.Select(p => (p.P50Ms ?? 0, p.P99Ms ?? 0)));
    }

    [Fact]
    public void AgentsPerSentStepHistogramsMergeIntoTheStepsOfOneRecorderOfEveryRequest()
    {
        var single = StartedLongAgo();
        var taken = new TakenInterval?[2];
        var wired = Enumerable.Range(0, 2).Select(i => StartedLongAgo(t => taken[i] = t)).ToArray();
        var coordinator = new LatencyRecorder();
        var sequence = 0;

        Play([single, .. wired], (end, load, partial) =>
        {
            var step = load == 8 || partial ? 1 : 0;
            single.TakeInterval(end, step);
            var row = new IntervalRow(new VariantKey("async"), end, "users", load, 0, LatencyStats.Empty) { Partial = partial };
            var onTheWire = wired.Select((agent, i) =>
            {
                agent.TakeInterval(end, step);
                // Through the agents' JSON line, as the coordinator reads it.
                var line = JsonSerializer.Serialize<AgentMessage>(AgentWire.IntervalOf(i, sequence, row, 0, taken[i]!, HistogramWire.Encode(taken[i]!.Histogram)), ContractJson.Options);
                return (AgentInterval)JsonSerializer.Deserialize<AgentMessage>(line, ContractJson.Options)!;
            }).ToList();
            sequence++;
            coordinator.AddInterval(AgentWire.Merged(onTheWire));
        }, closeStep: () => { });

        Assert.Equal(single.SentInStep(0), coordinator.SentInStep(0));
        Assert.Equal(single.SentInStep(1), coordinator.SentInStep(1));
        Assert.Equal(TestStats.Of(Step0AnsweredMs, failed: 4, timedOutAtMs: 650_000), coordinator.SentInStep(0));
        Assert.Equal(single.Total(), coordinator.Total());
    }

    /// <summary>
    /// A steady load's interval holds its step's requests from several tallies (those sent in it, those sent earlier and
    /// in flight at the previous close): it hands them on as ONE delta per step, their exact sum, so a load agent encodes
    /// and sends one sent-step histogram an interval, not one per tally. Seeded requests, answered and timed out.
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void AnIntervalHandsOnOneExactDeltaPerStep(int seed)
    {
        var random = new Random(seed);
        TakenInterval? taken = null;
        var recorder = StartedLongAgo(t => taken = t);
        for (var interval = 0; interval < 6; interval++)
        {
            var answeredMicros = new List<long>();
            var (timedOut, timedOutAtMs) = (0L, double.PositiveInfinity);
            // Sent in this open interval (the clock reads about 1000 s, the intervals close at 100, 200, ...) or in a closed one.
            foreach (var sentLongAgo in new[] { false, true })
            {
                for (var i = random.Next(interval == 0 && sentLongAgo ? 0 : 1, 40); i > 0; i--)
                {
                    var ms = sentLongAgo ? 1000_000 - 100_000.0 * random.Next(1, interval + 1) + random.Next(1, 50_000) : random.Next(1, 5_000);
                    if (random.Next(5) == 0)
                    {
                        recorder.Record(ms, RequestOutcome.TimedOut);
                        (timedOut, timedOutAtMs) = (timedOut + 1, Math.Min(timedOutAtMs, ms));
                    }
                    else
                    {
                        recorder.Record(ms, RequestOutcome.Success);
                        answeredMicros.Add((long)Math.Round(ms * 1000));
                    }
                }
            }

            recorder.TakeInterval(100 * (interval + 1), sentStep: 0);

            var delta = Assert.Single(taken!.SentSteps);
            Assert.Equal(0, delta.Step);
            Assert.Equal(new OutcomeCounts(answeredMicros.Count, 0, timedOut, 0), delta.Counts);
            Assert.Equal(timedOut == 0 ? null : timedOutAtMs, delta.TimedOutAtMs);
            var expected = LatencyRecorder.NewHistogram();
            answeredMicros.ForEach(micros => expected.RecordValue(micros));
            // The same counts bucket for bucket: the encodings the wire carries are equal.
            Assert.Equal(HistogramWire.Encode(expected), HistogramWire.Encode(delta.Histogram));
            Assert.Equal(expected.TotalCount, delta.Histogram.TotalCount);
        }
    }

    private static LatencyRecorder StartedLongAgo(Action<TakenInterval>? taken = null) =>
        new(Stopwatch.GetTimestamp() - (long)(1000 * Stopwatch.Frequency)) { IntervalTaken = taken };

    /// <summary>
    /// Plays the fake run into <paramref name="recorders"/> (the first gets every request; with more, the rest split them
    /// in turn, as agents do) and closes each interval through <paramref name="close"/> (end, load, partial).
    /// </summary>
    private static void Play(IReadOnlyList<LatencyRecorder> recorders, Action<double, double, bool> close, Action closeStep)
    {
        var turn = 0;
        void Record(double ms, RequestOutcome outcome, int times = 1)
        {
            for (var i = 0; i < times; i++)
            {
                recorders[0].Record(ms, outcome);
                if (recorders.Count > 1)
                {
                    recorders[1 + turn++ % (recorders.Count - 1)].Record(ms, outcome);
                }
            }
        }

        // Interval 0 (step 0) is open: requests sent in it end.
        Record(600_000, RequestOutcome.Success, 20);
        close(StepEndSeconds, 4, false);
        // Interval 1 (step 1) is open: its own requests end, and step 0's late ones.
        Record(300_000, RequestOutcome.Success, 20);
        Record(250_000, RequestOutcome.TimedOut, 2);
        Record(700_000, RequestOutcome.Success, 5);
        Record(650_000, RequestOutcome.TimedOut, 3);
        close(LoadEndSeconds, 8, false);
        closeStep();
        // The tail: the load's last requests and both steps' stragglers end.
        Record(100_000, RequestOutcome.Success, 4);
        Record(400_000, RequestOutcome.Success);
        Record(900_000, RequestOutcome.TimedOut);
        close(1000, 0, true);
    }
}
