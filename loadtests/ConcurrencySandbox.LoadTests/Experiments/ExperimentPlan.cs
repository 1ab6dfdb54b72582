using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>
/// One variant of an experiment: the request every user sends, the API child's extra environment, and whether the
/// response reports per-call queue waits (the fan-out endpoint's <c>queueWaitMs</c>).
/// </summary>
public sealed record Variant(string Name, string Request, IReadOnlyDictionary<string, string> Environment, bool ReportsQueueWait = false)
{
    public Variant(string name, string request, bool reportsQueueWait = false) : this(name, request, new Dictionary<string, string>(), reportsQueueWait)
    {
    }
}

/// <summary>A figure from the seed beside today's.</summary>
public sealed record SeedComparison(string Figure, string Seed, string Today);

/// <summary>What the data says about the seed's effect: the figures side by side and one computed sentence.</summary>
public sealed record Finding(IReadOnlyList<SeedComparison> Comparisons, string Verdict);

/// <summary>
/// An experiment: its variants (run one after another under the same load), its default thresholds and how its
/// results are judged against the seed. A cold-start experiment (<see cref="BurstCopies"/> set) fires one burst of
/// that many concurrent requests at each fresh API process instead of following the load shape.
/// </summary>
public sealed record ExperimentPlan(
    string Name,
    string Seed,
    IReadOnlyList<Variant> Variants,
    IReadOnlyList<Threshold> DefaultThresholds,
    Func<IReadOnlyList<VariantResult>, Finding> Assess,
    int? BurstCopies = null)
{
    public bool IsColdStart => BurstCopies is not null;
}

/// <summary>The variant parameters a user can set on the command line.</summary>
public sealed record ExperimentSettings(
    long Cycles,
    long Iterations,
    int Milliseconds,
    int DelayMs,
    int Calls,
    IReadOnlyList<string> Strategies,
    int DedicatedThreads,
    int Burst,
    int ColdStartMinWorkerThreads,
    string ColdStartRequest)
{
    public static readonly IReadOnlyList<string> AllStrategies = ["threadpool", "sync-over-async", "dedicated", "async"];

    public static ExperimentSettings Defaults { get; } = new(
        Cycles: 10_000_000,
        Iterations: 100_000,
        Milliseconds: 100,
        DelayMs: 1000,
        Calls: 10,
        Strategies: AllStrategies,
        // Enough for every call at the built-in profiles' peak (44 users x 10 calls): seed 003's pool was sized to the load.
        DedicatedThreads: 500,
        Burst: 64,
        ColdStartMinWorkerThreads: 200,
        ColdStartRequest: "/api/sleep/sync?milliseconds=500");
}
