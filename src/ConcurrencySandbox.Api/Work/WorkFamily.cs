using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Api.Work;

/// <summary>
/// Everything the API needs to expose one work unit: its routes' texts, its parameters with the configured caps,
/// and the defaults of its sweep. The endpoints are the same code for every family.
/// </summary>
internal sealed record WorkFamily(
    WorkUnit Unit,
    ApiTag Tag,
    string UnitDescription,
    IntegerParameter Amount,
    IntegerParameter SweepFrom,
    IntegerParameter SweepTo,
    long MaxSweepTotal,
    string MaxSweepSetting)
{
    public static IReadOnlyList<WorkFamily> Create(WorkLimits limits) =>
    [
        Define(
            WorkUnit.Compute,
            new("Compute", "Seed 004: the same CPU loop inline vs Task.Run; one run, a compare row, or the seed's whole sweep table.", Order: 10),
            "the seed's counting loop (pure CPU work, grows linearly with cycles)",
            "Loop cycles per unit (each request runs the unit twice).",
            limits.MaxCycles,
            sweepFrom: 1,
            sweepTo: 1_000_000_000,
            limits.MaxSweepCycles,
            nameof(WorkLimits.MaxSweepCycles)),
        Define(
            WorkUnit.SpinWait,
            new("SpinWait", "Seed 004: Thread.SpinWait as the honest compute substitute, inline vs Task.Run.", Order: 11),
            "Thread.SpinWait (burns CPU without doing arithmetic)",
            "Thread.SpinWait iterations per unit (each request runs the unit twice).",
            limits.MaxSpinIterations,
            sweepFrom: 1,
            sweepTo: 10_000_000,
            limits.MaxSweepSpinIterations,
            nameof(WorkLimits.MaxSweepSpinIterations)),
        Define(
            WorkUnit.Sleep,
            new("Sleep", "Seed 004: Thread.Sleep and Task.Delay instead of a loop: what blocking a thread costs.", Order: 12),
            "a sleep (sync and taskrun block a thread; async awaits Task.Delay and holds none)",
            "Milliseconds each unit sleeps (each request runs the unit twice).",
            limits.MaxSleepMilliseconds,
            sweepFrom: 1,
            sweepTo: 1_000,
            limits.MaxSweepMilliseconds,
            nameof(WorkLimits.MaxSweepMilliseconds)),
    ];

    private static WorkFamily Define(
        WorkUnit unit,
        ApiTag tag,
        string unitDescription,
        string amountDescription,
        long maxAmount,
        long sweepFrom,
        long sweepTo,
        long maxSweepTotal,
        string maxSweepSetting) =>
        new(
            unit,
            tag,
            unitDescription,
            new IntegerParameter(unit.AmountName, 1, maxAmount, null, amountDescription),
            new IntegerParameter("from", 1, maxAmount, Math.Min(sweepFrom, maxAmount), $"First {unit.AmountName} of the sweep."),
            new IntegerParameter("to", 1, maxAmount, Math.Min(sweepTo, maxAmount), $"Last {unit.AmountName} of the sweep (included when the factor reaches it)."),
            maxSweepTotal,
            $"{WorkLimits.SectionName}:{maxSweepSetting}");
}
