using ConcurrencySandbox.Contracts.Machine;
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

/// <summary>Seed 004's row for one amount, measured under the API's measurement policy.</summary>
/// <param name="Repeat">Pairs measured (each a sync run and a Task.Run run, back to back).</param>
/// <param name="Sync">Seconds per sync run: median, 95 % CI, n and min.</param>
/// <param name="Efficiency">Total sync time / total Task.Run time x 100 over the pairs: the ratio, its 95 % CI (a ratio estimator's), n and the smallest per-pair ratio.</param>
/// <param name="Load">CPU taken by other processes, steal and CFS throttling while the row was measured (null off Linux).</param>
/// <param name="Speed">The calibration loop's time before and after the row: the machine's own speed drift.</param>
/// <param name="Flags">Figures that are impossible on <paramref name="ProcessorCount"/> cores beyond their CI, inconclusive (CI wider than the target), or taken on a busy or throttled machine.</param>
public sealed record CompareResponse(
    string Work,
    string AmountName,
    long Amount,
    int Repeat,
    double SyncSeconds,
    double TaskRunSeconds,
    double EfficiencyPercent,
    double TaskRunAddedSeconds,
    Estimate Sync,
    Estimate TaskRun,
    Estimate Efficiency,
    StopReason Stopped,
    bool Remeasured,
    MachineLoad? Load,
    SpeedCheck Speed,
    SeedEfficiency? Seed,
    int ProcessorCount,
    string Policy,
    IReadOnlyList<FigureFlag> Flags);
