using ConcurrencySandbox.Experiments.Statistics;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Experiments.Work;

namespace ConcurrencySandbox.Api.Work;

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
    int ProcessorCount)
{
    public static CompareResponse From(WorkUnit unit, ComparisonRow row, int processorCount) =>
        new(
            unit.Name,
            unit.AmountName,
            row.Amount,
            row.Repeat,
            row.SyncSeconds,
            row.TaskRunSeconds,
            row.EfficiencyPercent,
            row.TaskRunAddedSeconds,
            row.Sync,
            row.TaskRun,
            row.Seed,
            processorCount);
}
