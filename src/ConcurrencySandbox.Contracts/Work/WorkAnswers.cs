using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.ThreadPools;

namespace ConcurrencySandbox.Contracts.Work;

/// <summary>One run: the unit done twice in one mode, timed by the server.</summary>
/// <param name="ElapsedSeconds">Server-side Stopwatch around both units.</param>
/// <param name="ThreadIds">Managed thread ids that ran the two units (async: the threads the continuations resumed on).</param>
/// <param name="RequestThreadId">The thread that started handling the request.</param>
public sealed record WorkRunResponse(
    string Work,
    string Mode,
    long Amount,
    string AmountName,
    double ElapsedSeconds,
    int ProcessorCount,
    bool IsServerGC,
    IReadOnlyList<int> ThreadIds,
    int RequestThreadId,
    ThreadPoolSnapshot ThreadPool);

/// <summary>Seed 004's row for one amount: sync vs Task.Run medians, efficiency and spread.</summary>
/// <param name="Flags">Figures of this row that cannot be true on <paramref name="ProcessorCount"/> cores (efficiency above cores x 100 %) or whose repeats spread above 20 % of the median.</param>
public sealed record CompareResponse(
    string Work,
    string AmountName,
    long Amount,
    int Repeat,
    double SyncSeconds,
    double TaskRunSeconds,
    double EfficiencyPercent,
    double TaskRunAddedSeconds,
    Spread Sync,
    Spread TaskRun,
    SeedEfficiency? Seed,
    int ProcessorCount,
    IReadOnlyList<FigureFlag> Flags);
