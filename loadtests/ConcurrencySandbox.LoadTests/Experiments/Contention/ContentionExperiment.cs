using System.CommandLine;
using ConcurrencySandbox.Experiments.Contention;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments.Contention;

/// <summary>
/// Seeds 000 and 003 on a lock: <c>/api/contention/{lock|semaphore-async}?holdMs=</c>. Every request holds one critical
/// section, so both variants serve at most 1000 / holdMs requests a second; under a ramp the lock variant's waiters
/// each block a pool thread and the pool grows, while the semaphore's waiters are queued continuations holding none.
/// </summary>
public sealed class ContentionExperiment(int holdMs) : Experiment
{
    /// <summary>The lock variant counts as blocking the pool when it peaks at this many times the semaphore's pool threads.</summary>
    public const double ThreadRatio = 2.0;

    private static readonly Option<int> HoldMsOption = new("--hold-ms")
    {
        Description = $"contention: how long each request holds the critical section (at most {ContentionVariant.MaxHoldMs}).",
        DefaultValueFactory = _ => ContentionVariant.DefaultHoldMs,
    };

    public static readonly ExperimentDefinition Definition = new("contention", [HoldMsOption], Create);

    public override string Name => Definition.Name;

    public override string Seed => "003";

    // Pool threads, once injected, outlive the variant that needed them: the semaphore's figure needs its own process.
    public override bool NeedsFreshApi => true;

    public override IReadOnlyList<Variant> Variants =>
        [.. ContentionVariant.Names.Select(name => new Variant(name, new HttpRamp($"/api/contention/{name}?holdMs={holdMs}")))];

    public override IReadOnlyList<VariantFigure> FiguresOf(VariantResult result) =>
        LockContentions(result) is { } count ? [new VariantFigure("runtime lock contentions", count, "count")] : [];

    public override Finding Assess(IReadOnlyList<VariantResult> results)
    {
        var blocking = Find(results, MonitorLockVariant.VariantName);
        var queued = Find(results, SemaphoreAsyncVariant.VariantName);
        if (blocking is not { PeakThreads: { } blockingThreads } || queued is not { PeakThreads: { } queuedThreads } || blocking.Total.Requests == 0 || queued.Total.Requests == 0)
        {
            return Finding.NotAssessed($"both the {MonitorLockVariant.VariantName} and {SemaphoreAsyncVariant.VariantName} variants need completed requests and telemetry.");
        }

        var ratio = (double)blockingThreads / queuedThreads;
        var contentions = LockContentions(blocking) ?? 0;
        List<SeedComparison> comparisons =
        [
            new("pool threads at peak, lock vs semaphore-async", $"not measured (seed 003: blocked pool threads made work wait up to {SeedFigures.Seed003.ClrQueueWaitSeconds} s to start)",
                $"{blockingThreads} vs {queuedThreads} ({ratio:0.0} x)"),
            new("mean latency at peak load, lock vs semaphore-async", "not measured",
                $"{ReportMs(blocking.PeakLoadMeanMs)} vs {ReportMs(queued.PeakLoadMeanMs)} ms"),
            new($"throughput, lock vs semaphore-async (one holder: at most {1000.0 / holdMs:0.#} req/s)", "not measured",
                $"{blocking.RequestsPerSecond:0.#} vs {queued.RequestsPerSecond:0.#} req/s"),
            new("runtime lock contentions during the lock variant", "not measured", $"{contentions}"),
        ];
        var measured = $"at peak the lock variant ran on {blockingThreads} pool threads against {queuedThreads} for semaphore-async ({ratio:0.0} x) with {contentions} runtime lock contentions, " +
            $"serving {blocking.RequestsPerSecond:0.#} vs {queued.RequestsPerSecond:0.#} req/s through the same single holder";
        return ratio >= ThreadRatio && contentions > 0
            ? new(Outcome.Reproduced, comparisons, $"{measured}: each waiter on a lock blocks a pool thread, an awaited semaphore holds none.")
            : new(Outcome.NotReproduced, comparisons, $"{measured}; below the {ThreadRatio:0} x (with contention) that would show blocked waiters growing the pool (the load may have been too light).");
    }

    /// <summary>How far the runtime's Monitor contention count moved while the variant ran; null without two telemetry samples.</summary>
    private static long? LockContentions(VariantResult result) =>
        result.Telemetry.Count < 2 ? null : result.Telemetry[^1].Snapshot.LockContentionCount - result.Telemetry[0].Snapshot.LockContentionCount;

    private static string ReportMs(double ms) => double.IsNaN(ms) ? "n/a" : $"{ms:0}";

    private static ContentionExperiment Create(OptionValues values)
    {
        var holdMs = values.Positive(HoldMsOption);
        return holdMs <= ContentionVariant.MaxHoldMs
            ? new ContentionExperiment(holdMs)
            : throw new UsageException($"{HoldMsOption.Name} must be at most {ContentionVariant.MaxHoldMs}, got {holdMs}");
    }
}
