using System.CommandLine;
using ConcurrencySandbox.Contracts.Contention;
using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments.Contention;

/// <summary>
/// Seeds 000 and 003 on a lock: <c>/api/contention/{lock|semaphore-async}?holdMs=</c>. Every request holds one critical
/// section, so both variants serve at most 1000 / holdMs requests a second. The lock variant's waiters each pin a
/// pool thread in the Monitor, so further requests queue for a thread (seed 003's work waiting to start); the
/// semaphore's waiters are queued continuations that hold none, so the pool's queue stays near empty.
/// </summary>
internal sealed class ContentionExperiment(int holdMs) : Experiment
{
    /// <summary>The lock variant counts as pinning the pool when its peak pool queue is at least this many times the semaphore's (or than 1).</summary>
    public const double QueueRatio = 4.0;

    private static readonly Option<int> HoldMsOption = new("--hold-ms")
    {
        Description = $"contention: how long each request holds the critical section (at most {ContentionVariants.MaxHoldMs}).",
        DefaultValueFactory = _ => ContentionVariants.DefaultHoldMs,
    };

    public static readonly ExperimentDefinition Definition = new("contention", [HoldMsOption], Create)
    {
        Description = "A lock vs SemaphoreSlim.WaitAsync around one critical section, under a ramp of users.",
        Colors = [new(ContentionVariants.MonitorLock, "#e6550d"), new(ContentionVariants.SemaphoreAsync, "#31a354")],
    };

    public override string Name => Definition.Name;

    public override string Seed => "003";

    // Pool threads and queued items outlive the variant that caused them: each variant's figures need their own process.
    public override bool NeedsFreshApi => true;

    public override int DefaultRounds => RoundsForACi;

    public override TimeSpan MinimumLoad => RampNeeds;

    public override IReadOnlyList<Variant> Variants =>
        [.. ContentionVariants.Names.Select(name => new Variant(name, new HttpRamp($"/api/contention/{name}?holdMs={holdMs}")))];

    public override IReadOnlyList<VariantFigure> FiguresOf(VariantResult result) =>
        LockContentions(result) is { } count ? [new VariantFigure("runtime lock contentions", count, "count")] : [];

    public override Finding Assess(IReadOnlyList<VariantResult> results)
    {
        var blocking = Find(results, ContentionVariants.MonitorLock);
        var queued = Find(results, ContentionVariants.SemaphoreAsync);
        if (blocking is not { PeakQueue: { } blockingQueue, PeakThreads: { } blockingThreads } || queued is not { PeakQueue: { } queuedQueue, PeakThreads: { } queuedThreads }
            || blocking.Total.Requests == 0 || queued.Total.Requests == 0)
        {
            return Finding.NotAssessed($"both the {ContentionVariants.MonitorLock} and {ContentionVariants.SemaphoreAsync} variants need completed requests and telemetry.");
        }

        var queueRatio = (double)blockingQueue / Math.Max(1, queuedQueue);
        var contentions = LockContentions(blocking) ?? 0;
        List<SeedComparison> comparisons =
        [
            new("requests queued for a pool thread at peak, lock vs semaphore-async", $"work waited up to {Seed003Figures.ClrQueueWaitSeconds} s to start on a blocked pool",
                $"{blockingQueue} vs {queuedQueue} items ({queueRatio:0.0} x)"),
            new("pool threads at peak, lock vs semaphore-async", "not measured", $"{blockingThreads} vs {queuedThreads}"),
            new("p99 latency, lock vs semaphore-async", "not measured", $"{blocking.Total.P99Ms:0} vs {queued.Total.P99Ms:0} ms"),
            new("p99 latency at peak load (the peak step's row), lock vs semaphore-async", "not measured", $"{AtPeak(blocking)} vs {AtPeak(queued)} ms"),
            new($"throughput, lock vs semaphore-async (one holder: at most {1000.0 / holdMs:0.#} req/s)", "not measured",
                $"{blocking.RequestsPerSecond:0.#} vs {queued.RequestsPerSecond:0.#} req/s"),
            new("runtime lock contentions during the lock variant", "not measured", $"{contentions}"),
        ];
        var measured = $"at the same serialized throughput ({blocking.RequestsPerSecond:0.#} vs {queued.RequestsPerSecond:0.#} req/s) up to {blockingQueue} requests queued for a pool thread " +
            $"under the lock against {queuedQueue} under semaphore-async ({queueRatio:0.0} x), with {contentions} runtime lock contentions and p99 {blocking.Total.P99Ms:0} vs {queued.Total.P99Ms:0} ms";
        var figure = new VerdictFigure("peak pool queue, lock / semaphore-async", queueRatio, QueueRatio, ReproducedAbove: true, "0.0", " x");
        return (queueRatio >= QueueRatio && contentions > 0
            ? new Finding(Outcome.Reproduced, comparisons, $"{measured}: waiters on a lock pin the pool's threads so new work waits to start, as in seed 003; an awaited semaphore holds none.")
            : new(Outcome.NotReproduced, comparisons, $"{measured}; below the {QueueRatio:0} x (with contention) that would show waiters pinning the pool (the load may have been too light).")) with { Figure = figure };
    }

    /// <summary>How far the runtime's Monitor contention count moved while the variant ran; null without two telemetry samples.</summary>
    private static long? LockContentions(VariantResult result) =>
        result.Telemetry.Count < 2 ? null : result.Telemetry[^1].Snapshot.LockContentionCount - result.Telemetry[0].Snapshot.LockContentionCount;

    /// <summary>The peak step's p99 as its row prints it ("\u2265 60000" with timeouts, "no answer"); "n/a" without a peak step.</summary>
    private static string AtPeak(VariantResult result) => result.PeakStep?.Stats.P99.Format("0") ?? "n/a";

    private static ContentionExperiment Create(OptionValues values)
    {
        var holdMs = values.Positive(HoldMsOption);
        return holdMs <= ContentionVariants.MaxHoldMs
            ? new ContentionExperiment(holdMs)
            : throw new UsageException($"{HoldMsOption.Name} must be at most {ContentionVariants.MaxHoldMs}, got {holdMs}");
    }
}
