using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Platform.Statistics;
using ConcurrencySandbox.Validation;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.Work;

/// <summary>
/// Everything the API needs to expose one work unit: its routes' texts, its amount's meaning, the defaults of its
/// sweep and which limits cap it. The endpoints are the same code for every family.
/// </summary>
internal sealed record WorkFamily(
    WorkUnit Unit,
    ApiTag Tag,
    string UnitDescription,
    string AmountDescription,
    long SweepFrom,
    long SweepTo,
    Func<WorkLimits, long> MaxAmount,
    Func<WorkLimits, long> MaxSweepTotal,
    string MaxSweepSetting)
{
    public static IReadOnlyList<WorkFamily> All { get; } =
    [
        new(
            WorkUnit.Compute,
            new("Compute", "Seed 004: the same CPU loop inline vs Task.Run; one run, a compare row, or the seed's whole sweep table.", Order: 10),
            "the seed's counting loop (pure CPU work, grows linearly with cycles)",
            "Loop cycles per unit (each request runs the unit twice).",
            SweepFrom: 1,
            SweepTo: 1_000_000_000,
            limits => limits.MaxCycles,
            limits => limits.MaxSweepCycles,
            nameof(WorkLimits.MaxSweepCycles)),
        new(
            WorkUnit.SpinWait,
            new("SpinWait", "Seed 004: Thread.SpinWait as the honest compute substitute, inline vs Task.Run.", Order: 11),
            "Thread.SpinWait (burns CPU without doing arithmetic)",
            "Thread.SpinWait iterations per unit (each request runs the unit twice).",
            SweepFrom: 1,
            SweepTo: 10_000_000,
            limits => limits.MaxSpinIterations,
            limits => limits.MaxSweepSpinIterations,
            nameof(WorkLimits.MaxSweepSpinIterations)),
        new(
            WorkUnit.Sleep,
            new("Sleep", "Seed 004: Thread.Sleep and Task.Delay instead of a loop: what blocking a thread costs.", Order: 12),
            "a sleep (sync and taskrun block a thread; async awaits Task.Delay and holds none)",
            "Milliseconds each unit sleeps (each request runs the unit twice).",
            SweepFrom: 1,
            SweepTo: 1_000,
            limits => limits.MaxSleepMilliseconds,
            limits => limits.MaxSweepMilliseconds,
            nameof(WorkLimits.MaxSweepMilliseconds)),
    ];
}

/// <summary>The work queries' declarations, with each family's caps from the Limits section.</summary>
internal sealed class WorkParameters(IOptions<WorkLimits> options)
{
    /// <summary>The measurement policy's target: each median's and the efficiency's 95 % CI within +- this many percent.</summary>
    private static readonly NumberParameter CiWidth = new(
        "ciWidth",
        MeasurementPolicy.MinTargetHalfWidthPercent,
        MeasurementPolicy.MaxTargetHalfWidthPercent,
        MeasurementPolicy.DefaultTargetHalfWidthPercent,
        "Target half-width (percent of the median) of each figure's 95 % CI; pairs are repeated until it is reached or the budget is spent, and a figure left wider is marked inconclusive.");

    private static readonly NumberParameter Budget = new(
        "budgetSeconds",
        MeasurementPolicy.MinBudgetSeconds,
        MeasurementPolicy.MaxBudgetSeconds,
        null,
        "Seconds the measurement may spend repeating pairs to narrow the CIs (the first `repeat` pairs always run).");

    private static readonly NumberParameter CompareBudget = Budget with { Default = 30 };

    private static readonly NumberParameter SweepBudget = Budget with
    {
        Default = 120,
        Description = Budget.Description + " For a sweep: the whole sweep's, shared by its rows, which take pairs in interleaved rounds until each has converged or the budget is spent.",
    };

    private static readonly IntegerParameter Factor = new("factor", 2, 1000, 10, "Each amount of the sweep is the previous one times this.");

    private static readonly ChoiceParameter Format = new(
        "format",
        ["json", "csv", "markdown"],
        "json",
        "Output form. Without it the Accept header decides (text/csv, text/markdown), else JSON.");

    private readonly WorkLimits _limits = options.Value;

    private readonly IntegerParameter _repeat = new("repeat", 1, options.Value.MaxRepeat, MedianInterval.MinimumCount,
        $"The fewest sync/Task.Run pairs measured, budget or not; more follow until the CIs are narrow or the budget is spent. Below {MedianInterval.MinimumCount} there is no 95 % CI.");

    /// <summary>In the order <see cref="WorkRunQuery"/> lists its members.</summary>
    public QueryParameter[] Run(WorkFamily family) => [Amount(family)];

    /// <summary>In the order <see cref="WorkCompareQuery"/> lists its members.</summary>
    public QueryParameter[] Compare(WorkFamily family) => [Amount(family), _repeat, CiWidth, CompareBudget];

    /// <summary>In the order <see cref="WorkSweepQuery"/> lists its members.</summary>
    public QueryParameter[] Sweep(WorkFamily family)
    {
        var maxAmount = family.MaxAmount(_limits);
        return
        [
            new IntegerParameter("from", 1, maxAmount, Math.Min(family.SweepFrom, maxAmount), $"First {family.Unit.AmountName} of the sweep."),
            new IntegerParameter("to", 1, maxAmount, Math.Min(family.SweepTo, maxAmount), $"Last {family.Unit.AmountName} of the sweep (included when the factor reaches it)."),
            Factor,
            _repeat,
            CiWidth,
            SweepBudget,
            Format,
        ];
    }

    /// <summary>A sweep's cap on its total work (sum of amounts x repeat).</summary>
    public long MaxSweepTotal(WorkFamily family) => family.MaxSweepTotal(_limits);

    /// <summary>The amount, named after the unit (cycles, iterations or milliseconds) and filling each record's <c>Amount</c>.</summary>
    private IntegerParameter Amount(WorkFamily family) =>
        new(family.Unit.AmountName, 1, family.MaxAmount(_limits), null, family.AmountDescription) { Member = nameof(WorkRunQuery.Amount) };
}
