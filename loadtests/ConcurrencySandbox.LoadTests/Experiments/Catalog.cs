using System.Globalization;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.LoadTests.Engine;
using Seed004 = ConcurrencySandbox.Experiments.Work.SeedFigures;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>The experiments the runner knows, built from the user's settings.</summary>
public static class Catalog
{
    public static readonly IReadOnlyList<string> Names = ["compute", "spinwait", "sleep", "fanout", "coldstart"];

    /// <summary>A blocking variant counts as starved when its mean at peak load is at least this many times the reference's.</summary>
    public const double StarvationRatio = 2.0;

    /// <summary>Task.Run counts as "gaining nothing" when its throughput is within this factor of the inline form's.</summary>
    public const double NoGainRatio = 1.10;

    private static readonly Threshold NoFailures = new("*", "failed", "<=", 0);

    /// <summary>The fan-out strategies that hold no shared pool thread while they wait, so load must not break them.</summary>
    private static readonly string[] HealthyFanOutStrategies = ["dedicated", "async"];

    public static ExperimentPlan Create(string name, ExperimentSettings s) => name switch
    {
        "compute" => TaskRunPlan("compute", "cycles", s.Cycles, seed004Cycles: s.Cycles),
        "spinwait" => TaskRunPlan("spinwait", "iterations", s.Iterations, seed004Cycles: null),
        "sleep" => new ExperimentPlan(
            "sleep",
            "003",
            [.. new[] { "sync", "taskrun", "async" }.Select(mode => new Variant(mode, $"/api/sleep/{mode}?milliseconds={s.Milliseconds}"))],
            [NoFailures],
            // sync sleeps its two units one after the other, async awaits both at once.
            results => Starvation(results, new("sync", 2.0 * s.Milliseconds), new("async", s.Milliseconds), customPool: null)),
        "fanout" => new ExperimentPlan(
            "fanout",
            "003",
            [.. s.Strategies.Select(strategy => FanOutVariant(strategy, s))],
            // Blocking on the shared pool is expected to starve and time out: that is the finding, not a failed run.
            [
                .. HealthyFanOutStrategies.Where(s.Strategies.Contains).Select(strategy => new Threshold(strategy, "failed", "<=", 0)),
                .. s.Strategies.Contains("async") ? [new Threshold("async", "p99", "<", 1.2 * s.DelayMs)] : Array.Empty<Threshold>(),
            ],
            results => Starvation(results, new("threadpool", s.DelayMs), new(s.Strategies.Contains("async") ? "async" : "dedicated", s.DelayMs), customPool: new("dedicated", s.DelayMs))),
        "coldstart" => new ExperimentPlan(
            "coldstart",
            "000",
            [
                new Variant("default-pool", s.ColdStartRequest),
                new Variant($"min-workers-{s.ColdStartMinWorkerThreads}", s.ColdStartRequest, new Dictionary<string, string>
                {
                    ["ThreadPool__MinWorkerThreads"] = s.ColdStartMinWorkerThreads.ToString(CultureInfo.InvariantCulture),
                }),
            ],
            [NoFailures],
            ColdStart,
            BurstCopies: s.Burst),
        _ => throw new UsageException($"unknown experiment '{name}' (expected one of: {string.Join(", ", Names)}, all, matrix)"),
    };

    private static Variant FanOutVariant(string strategy, ExperimentSettings s)
    {
        var request = $"/api/fanout?calls={s.Calls}&delayMs={s.DelayMs}&strategy={strategy}";
        var environment = strategy == "dedicated"
            ? new Dictionary<string, string> { ["FanOut__DedicatedThreads"] = s.DedicatedThreads.ToString(CultureInfo.InvariantCulture) }
            : new Dictionary<string, string>();
        return new Variant(strategy, request, environment, ReportsQueueWait: true);
    }

    private static ExperimentPlan TaskRunPlan(string work, string amountName, long amount, long? seed004Cycles) => new(
        work,
        "004",
        [.. new[] { "sync", "taskrun" }.Select(mode => new Variant(mode, $"/api/{work}/{mode}?{amountName}={amount}"))],
        [NoFailures],
        results => TaskRunUnderLoad(results, seed004Cycles));

    /// <summary>Seed 004 measured Task.Run speeding up one request on an idle machine; under load that gain should vanish.</summary>
    private static Finding TaskRunUnderLoad(IReadOnlyList<VariantResult> results, long? seed004Cycles)
    {
        var sync = results.FirstOrDefault(r => r.Name == "sync");
        var taskRun = results.FirstOrDefault(r => r.Name == "taskrun");
        if (sync is null || taskRun is null || sync.RequestsPerSecond <= 0)
        {
            return new Finding([], "Not assessed: both the sync and the taskrun variant need completed requests.");
        }
        var ratio = taskRun.RequestsPerSecond / sync.RequestsPerSecond;
        var seed = seed004Cycles is { } cycles ? Seed004.Seed004Nearest(WorkUnit.Compute, cycles) : null;
        List<SeedComparison> comparisons =
        [
            new("Task.Run vs inline, one request on an idle machine (efficiency)",
                seed is { } row ? $"{row.Efficiency.FourCoresPercent:0.##} % at {row.Amount:N0} cycles, 4 cores" : "not measured (the seed only names SpinWait)",
                "see the API's /compare and /sweep endpoints"),
            new("Task.Run vs inline under load (throughput taskrun / sync)", "not measured (seed 004 ran no load)",
                $"{ratio * 100:0} % ({taskRun.RequestsPerSecond:0.#} vs {sync.RequestsPerSecond:0.#} req/s)"),
        ];
        var verdict = ratio <= NoGainRatio
            ? $"Reproduced: under load Task.Run gained nothing over inline work (taskrun served {ratio * 100:0} % of sync's throughput), so seed 004's per-request speed-up does not survive a busy server."
            : $"Not reproduced: under this load Task.Run still served {ratio * 100:0} % of sync's throughput, more than the {NoGainRatio * 100:0} % that would count as no gain (the load may not have saturated the cores).";
        return new Finding(comparisons, verdict);
    }

    /// <summary>A variant and its latency with no load at all (what one request costs when nothing queues).</summary>
    private sealed record Unloaded(string Name, double LatencyMs);

    /// <summary>
    /// Seed 003: blocking work on the CLR pool starves it under load (mean 2.6 x the stub's wait) while work that holds
    /// no pool thread stays near its unloaded latency. Judged at peak load, each variant against its own unloaded latency.
    /// </summary>
    private static Finding Starvation(IReadOnlyList<VariantResult> results, Unloaded blockingUnloaded, Unloaded referenceUnloaded, Unloaded? customPool)
    {
        var blocking = results.FirstOrDefault(r => r.Name == blockingUnloaded.Name);
        var reference = results.FirstOrDefault(r => r.Name == referenceUnloaded.Name);
        if (blocking is null || reference is null || reference.PeakLoadMeanMs <= 0)
        {
            return new Finding([], $"Not assessed: the {blockingUnloaded.Name} and {referenceUnloaded.Name} variants are both needed.");
        }
        var blockingSlowdown = blocking.PeakLoadMeanMs / blockingUnloaded.LatencyMs;
        var referenceSlowdown = reference.PeakLoadMeanMs / referenceUnloaded.LatencyMs;
        var ratio = blockingSlowdown / referenceSlowdown;
        var peakQueue = blocking.PeakQueue?.ToString(CultureInfo.InvariantCulture) ?? "n/a";
        List<SeedComparison> comparisons =
        [
            new($"{blocking.Name}: mean / unloaded latency", $"{SeedFigures.Seed003ClrMeanSeconds / SeedFigures.Seed003StubSeconds:0.0} x (mean {SeedFigures.Seed003ClrMeanSeconds} s, {SeedFigures.Seed003StubSeconds} s stub)",
                $"{blocking.Total.MeanMs / blockingUnloaded.LatencyMs:0.0} x (mean {blocking.Total.MeanMs / 1000:0.00} s, unloaded {blockingUnloaded.LatencyMs:0} ms)"),
            new($"{blocking.Name}: max", $"{SeedFigures.Seed003ClrMaxSeconds} s", $"{blocking.Total.MaxMs / 1000:0.00} s"),
            new($"{blocking.Name}: longest wait for work to start", $"{SeedFigures.Seed003ClrQueueWaitSeconds} s",
                blocking.MaxQueueWaitMs is { } waitedMs ? $"{waitedMs / 1000:0.00} s (peak queue {peakQueue} items)" : $"not reported by this endpoint (peak queue {peakQueue} items)"),
        ];
        if (customPool is not null && results.FirstOrDefault(r => r.Name == customPool.Name) is { } custom)
        {
            comparisons.Add(new($"{custom.Name}: mean / unloaded latency", $"{SeedFigures.Seed003CustomMeanSeconds / SeedFigures.Seed003StubSeconds:0.00} x (custom pool, mean {SeedFigures.Seed003CustomMeanSeconds} s)",
                $"{custom.Total.MeanMs / customPool.LatencyMs:0.00} x (mean {custom.Total.MeanMs / 1000:0.00} s)"));
        }
        var measured = $"at peak load {blocking.Name}'s mean latency was {blockingSlowdown:0.0} x its unloaded {blockingUnloaded.LatencyMs:0} ms ({blocking.PeakLoadMeanMs:0} ms) against {referenceSlowdown:0.0} x for {reference.Name} ({reference.PeakLoadMeanMs:0} ms)";
        var verdict = ratio >= StarvationRatio
            ? $"Reproduced: {measured}, the pool starvation seed 003 saw."
            : $"Not reproduced: {measured}, a ratio of {ratio:0.0}, below the {StarvationRatio:0} x that would show starvation.";
        return new Finding(comparisons, verdict);
    }

    /// <summary>Seed 000: a burst at a fresh process waits for the pool to grow, unless its minimum worker threads are raised.</summary>
    private static Finding ColdStart(IReadOnlyList<VariantResult> results)
    {
        if (results.Count < 2 || results[1].Total.MaxMs <= 0)
        {
            return new Finding([], "Not assessed: both pool settings need completed requests.");
        }
        var (cold, raised) = (results[0], results[1]);
        var ratio = cold.Total.MaxMs / raised.Total.MaxMs;
        List<SeedComparison> comparisons =
        [
            new("first response, default pool", $"{SeedFigures.Seed000FirstRequest4Seconds} s (4 bindings), {SeedFigures.Seed000FirstRequest40Seconds} s (40 bindings)",
                $"{cold.Total.MinMs / 1000:0.00} s (first of {cold.Total.Requests}), last {cold.Total.MaxMs / 1000:0.00} s"),
            new("with raised minimum worker threads", "the delay vanished (no figure given)",
                $"{raised.Total.MinMs / 1000:0.00} s first, last {raised.Total.MaxMs / 1000:0.00} s"),
        ];
        var verdict = ratio >= StarvationRatio
            ? $"Reproduced: the burst on a fresh default pool took {ratio:0.0} x as long to be served ({cold.Total.MaxMs / 1000:0.00} s vs {raised.Total.MaxMs / 1000:0.00} s) as with raised minimum worker threads, seed 000's cold-start delay and its fix."
            : $"Not reproduced: the burst on a fresh default pool took {ratio:0.0} x as long as with raised minimum worker threads ({cold.Total.MaxMs / 1000:0.00} s vs {raised.Total.MaxMs / 1000:0.00} s), below the {StarvationRatio:0} x that would show the cold-start delay.";
        return new Finding(comparisons, verdict);
    }
}
