using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Reports;

using ConcurrencySandbox.LoadTests.Matrix;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>Reports built from made-up but shaped data (no API, no clock): for chart, HTML, compare and size tests and the report benchmark.</summary>
public static class SyntheticReports
{
    /// <summary>The report's one result, as the runner analyses it (<see cref="RunAnalysis"/>).</summary>
    public static RunSummary Analysed(this ExperimentReport report) => RunAnalysis.Of(report, "cmd");

    public static readonly MachineFacts Machine = new("Test CPU", 2, 2, ".NET 10.0.0", "Linux");

    /// <summary>A matrix report into <paramref name="folder"/> of <paramref name="options"/> on <see cref="Machine"/>, as a test renders it.</summary>
    internal static MatrixReport Matrix(MatrixOptions options, int delayMs = 1_000, string folder = "") =>
        new(folder, options, null, delayMs, Machine.ToSummary(), "matrix --cpus 1,2");

    /// <summary>
    /// A closed-model run: users step up ten times over <paramref name="seconds"/>; each variant's latency comes from
    /// <paramref name="latencyMs"/> (variant, seconds since start when sent); one telemetry sample a second. A request
    /// slower than <paramref name="timeoutMs"/> times out there.
    /// </summary>
    public static ExperimentReport LoadRun(string experiment, IReadOnlyList<string> variants, double seconds, int requestsPerSecond, Func<string, double, double> latencyMs, int? cpus = null, double timeoutMs = 60_000)
    {
        var random = new Random(42);
        var results = variants.Select(variant =>
        {
            var (name, key) = (variant, new VariantKey(variant, cpus));
            var requests = new List<RequestSample>();
            for (var sent = 0.0; sent < seconds; sent += 1.0 / requestsPerSecond)
            {
                var latency = Math.Min(latencyMs(name, sent) * (0.9 + 0.2 * random.NextDouble()), timeoutMs);
                requests.Add(new RequestSample(sent + latency / 1000, latency, latency >= timeoutMs ? RequestEnd.Timeout : RequestEnd.Ok));
            }
            requests.Sort((a, b) => a.CompletedSeconds.CompareTo(b.CompletedSeconds));
            var end = Math.Ceiling(requests[^1].CompletedSeconds);
            var bySecond = requests.ToLookup(r => (int)Math.Ceiling(r.CompletedSeconds));
            var intervals = Enumerable.Range(1, (int)end).Select(second => new IntervalRow(
                key, second, "users", UsersAt(second - 0.5, seconds), bySecond[second].Count(), StatsOf(bySecond[second])) { Partial = second == (int)end }).ToList();
            var telemetry = Enumerable.Range(0, (int)end).Select(second => new TelemetryRow(key, second, Snapshot(threads: 2 + second / 10, queue: name == "threadpool" ? second * 3 : 0))).ToList();
            // A step holds the requests sent in it, wherever they ended, as the recorder books them; the drain after the load is no step.
            var steps = intervals.Where(i => !i.Partial && i.Load > 0).GroupBy(i => i.Load)
                .Select(g => (Load: g.Key, From: g.First().ElapsedSeconds - 1, To: g.Last().ElapsedSeconds))
                .Select(s => new StepRow(s.Load, s.From, s.To, StatsOf(requests.Where(r => r.StartedSeconds >= s.From && r.StartedSeconds < s.To)))).ToList();
            var timedOut = requests.Where(r => r.End == RequestEnd.Timeout).ToList();
            return new VariantResult(key, $"/api/{experiment}?strategy={name}", "users", end, intervals, telemetry, StatsOf(requests))
            {
                Sent = [.. requests.GroupBy(r => Math.Floor(r.StartedSeconds / LatencyRecorder.SentSliceSeconds)).OrderBy(g => g.Key).Select(g => new SentSlice(
                    g.Key * LatencyRecorder.SentSliceSeconds,
                    g.Count(r => r.End == RequestEnd.Ok), g.Where(r => r.End == RequestEnd.Ok).Sum(r => r.LatencyMs),
                    g.Count(r => r.End == RequestEnd.Timeout), g.Where(r => r.End == RequestEnd.Timeout).Sum(r => r.LatencyMs), 0))],
                Steps = steps,
                Distribution = LatencyRecorder.DistributionOf(TestStats.Histogram(requests.Where(r => r.End == RequestEnd.Ok).Select(r => r.LatencyMs)), timedOut.Count, timedOut.Count == 0 ? null : timedOut.Min(r => r.LatencyMs)),
                Failures = timedOut.Count == 0 ? [] : [new OutcomeCount("timed out (the client's timeout)", timedOut.Count)],
            };
        }).ToList();
        return Report(experiment, "003", "quick", results);
    }

    /// <summary>
    /// The send slices of a peak step that sent one request per slice: <paramref name="answeredMs"/> answered, then
    /// <paramref name="timedOut"/> given up at <paramref name="timedOutAtMs"/> (what a CI over the peak resamples).
    /// </summary>
    public static IReadOnlyList<SentSlice> OnePerSlice(IEnumerable<double> answeredMs, long timedOut = 0, double timedOutAtMs = 0) =>
        [.. answeredMs.Select(ms => (Completed: 1L, Ms: ms, TimedOut: 0L, TimedOutMs: 0.0))
            .Concat(Enumerable.Repeat((Completed: 0L, Ms: 0.0, TimedOut: 1L, TimedOutMs: timedOutAtMs), (int)timedOut))
            .Select((r, i) => new SentSlice(i * LatencyRecorder.SentSliceSeconds, r.Completed, r.Ms, r.TimedOut, r.TimedOutMs, 0))];

    /// <summary>A cold-start burst: <paramref name="copies"/> requests sent at once, served <paramref name="servedAtOnce"/> at a time per variant.</summary>
    public static ExperimentReport Burst(int copies, IReadOnlyDictionary<string, int> servedAtOnce, double workMs = 500)
    {
        var results = servedAtOnce.Select(pair =>
        {
            var requests = Enumerable.Range(0, copies).Select(i => (i / pair.Value + 1) * workMs).Select(ms => new RequestSample(ms / 1000, ms, RequestEnd.Ok)).ToList();
            var stats = StatsOf(requests);
            var end = requests[^1].CompletedSeconds;
            var key = new VariantKey(pair.Key);
            return new VariantResult(key, "/api/sleep/sync?milliseconds=500", "burst", end, [new IntervalRow(key, end, "burst", copies, copies / end, stats)],
                [.. Enumerable.Range(0, (int)Math.Ceiling(end) + 1).Select(s => new TelemetryRow(key, s, Snapshot(pair.Value, Math.Max(0, copies - pair.Value * (s + 1)))))], stats)
            {
                Requests = requests,
            };
        }).ToList();
        return Report("coldstart", "000", "burst", results);
    }

    /// <summary>What the observer saw during a variant when it saw only <paramref name="adjustments"/> (no stacks, no diagnosis).</summary>
    public static VariantObservation Observed(IReadOnlyList<AdjustmentMark> adjustments) => new("pid 4242", 20, 1, adjustments, null, null, null, null);

    /// <summary>The pool's adjustments a starving variant shows: <paramref name="starvation"/> injections one a second from 2 s, and hill-climbing moves every 3 s.</summary>
    public static IReadOnlyList<AdjustmentMark> StarvingAdjustments(int starvation, int climbing) =>
    [
        .. Enumerable.Range(0, starvation).Select(i => new AdjustmentMark(2 + i, 3 + i, "Starvation")),
        .. Enumerable.Range(0, climbing).Select(i => new AdjustmentMark(1.5 + 3 * i, 2, "ClimbingMove")),
    ];

    public static ExperimentReport Report(string experiment, string seed, string profile, IReadOnlyList<VariantResult> results) => new(
        experiment, seed, profile, "synthetic", "nowhere", new DateTimeOffset(2026, 11, 22, 4, 0, 0, TimeSpan.Zero), Machine, results,
        new Finding(Outcome.Reproduced, [new SeedComparison("a figure", "1 s", "2 s")], "synthetic data."),
        [new ThresholdOutcome("*:failed<=0", results[0].Key.Label, 0, true)]);

    private static LatencyStats StatsOf(IEnumerable<RequestSample> requests)
    {
        var list = requests.ToList();
        var completed = list.Where(r => r.End == RequestEnd.Ok).Select(r => r.LatencyMs);
        var timedOut = list.Where(r => r.End == RequestEnd.Timeout).Select(r => r.LatencyMs).ToList();
        return LatencyStats.From(TestStats.Histogram(completed), new OutcomeCounts(list.Count(r => r.End == RequestEnd.Ok), 0, timedOut.Count, 0), timedOut.Count == 0 ? null : timedOut.Min());
    }

    private static double UsersAt(double t, double seconds) => t >= seconds ? 0 : 4 + 4 * Math.Floor(t / (seconds / 10));

    private static RuntimeSnapshot Snapshot(int threads, long queue) => new(
        DateTimeOffset.UnixEpoch, 1, 2, new ThreadPoolTelemetry(threads, queue, 100, 2, 32767), new GCTelemetry(0, 0, 0, 0, 0, 0), new ProcessTelemetry(0, 0, 0, threads), 0, 0, 0,
        default(SandboxTelemetry));
}
