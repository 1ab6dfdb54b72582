using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>Reports built from made-up but shaped data (no API, no clock): for chart, HTML, compare and size tests and the report benchmark.</summary>
public static class SyntheticReports
{
    public static readonly MachineFacts Machine = new("Test CPU", 2, 2, ".NET 10.0.0", "Linux");

    /// <summary>
    /// A closed-model run: users step up ten times over <paramref name="seconds"/>; each variant's latency comes from
    /// <paramref name="latencyMs"/> (variant, seconds since start when sent); one telemetry sample a second.
    /// </summary>
    public static ExperimentReport LoadRun(string experiment, IReadOnlyList<string> variants, double seconds, int requestsPerSecond, Func<string, double, double> latencyMs, int? cpus = null)
    {
        var random = new Random(42);
        var results = variants.Select(variant =>
        {
            var (name, key) = (variant, new VariantKey(variant, cpus));
            var requests = new List<RequestSample>();
            for (var sent = 0.0; sent < seconds; sent += 1.0 / requestsPerSecond)
            {
                var latency = latencyMs(name, sent) * (0.9 + 0.2 * random.NextDouble());
                requests.Add(new RequestSample(sent + latency / 1000, latency, Ok: true));
            }
            requests.Sort((a, b) => a.CompletedSeconds.CompareTo(b.CompletedSeconds));
            var end = Math.Ceiling(requests[^1].CompletedSeconds);
            var bySecond = requests.ToLookup(r => (int)Math.Ceiling(r.CompletedSeconds), r => r.LatencyMs);
            var intervals = Enumerable.Range(1, (int)end).Select(second =>
            {
                var done = bySecond[second].ToArray();
                return new IntervalRow(key, second, "users", UsersAt(second - 0.5, seconds), done.Length, LatencyStats.From(done, 0));
            }).ToList();
            var telemetry = Enumerable.Range(0, (int)end).Select(second => new TelemetryRow(key, second, Snapshot(threads: 2 + second / 10, queue: name == "threadpool" ? second * 3 : 0))).ToList();
            return new VariantResult(key, $"/api/{experiment}?strategy={name}", "users", end, intervals, telemetry, LatencyStats.From([.. requests.Select(r => r.LatencyMs)], 0))
            {
                Requests = requests,
            };
        }).ToList();
        return Report(experiment, "003", "quick", results);
    }

    /// <summary>A cold-start burst: <paramref name="copies"/> requests sent at once, served <paramref name="servedAtOnce"/> at a time per variant.</summary>
    public static ExperimentReport Burst(int copies, IReadOnlyDictionary<string, int> servedAtOnce, double workMs = 500)
    {
        var results = servedAtOnce.Select(pair =>
        {
            var requests = Enumerable.Range(0, copies).Select(i => (i / pair.Value + 1) * workMs).Select(ms => new RequestSample(ms / 1000, ms, Ok: true)).ToList();
            var stats = LatencyStats.From([.. requests.Select(r => r.LatencyMs)], 0);
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

    private static ExperimentReport Report(string experiment, string seed, string profile, IReadOnlyList<VariantResult> results) => new(
        experiment, seed, profile, "synthetic", "nowhere", new DateTimeOffset(2026, 11, 22, 4, 0, 0, TimeSpan.Zero), Machine, results,
        new Finding(Outcome.Reproduced, [new SeedComparison("a figure", "1 s", "2 s")], "synthetic data."),
        [new ThresholdOutcome("*:failed<=0", results[0].Key.Label, 0, true)]);

    private static double UsersAt(double t, double seconds) => t >= seconds ? 0 : 4 + 4 * Math.Floor(t / (seconds / 10));

    private static RuntimeSnapshot Snapshot(int threads, long queue) => new(
        DateTimeOffset.UnixEpoch, 1, 2, new ThreadPoolTelemetry(threads, queue, 100, 2, 32767), new GCTelemetry(0, 0, 0, 0, 0, 0), new ProcessTelemetry(0, 0, 0, threads), 0, 0,
        new SandboxTelemetry(0, 0, 0, 0, 0));
}
