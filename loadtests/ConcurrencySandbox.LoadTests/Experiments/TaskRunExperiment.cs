using System.CommandLine;
using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>
/// Seed 004 under load: the same work inline (<c>sync</c>) and split over Task.Run (<c>taskrun</c>). Seed 004 measured
/// Task.Run speeding up one request on an idle machine; under load that gain should vanish.
/// </summary>
internal abstract class TaskRunExperiment(WorkKind unit, long amount) : Experiment
{
    /// <summary>Task.Run counts as "gaining nothing" when its throughput is within this factor of the inline form's.</summary>
    public const double NoGainRatio = 1.10;

    public override string Name => unit.Name;

    public override string Seed => "004";

    public override int DefaultRounds => RoundsForACi;

    public override TimeSpan MinimumLoad => RampNeeds;

    public override IReadOnlyList<Variant> Variants =>
        [.. new[] { "sync", "taskrun" }.Select(mode => new Variant(mode, new HttpRamp($"/api/{unit.Name}/{mode}?{unit.AmountName}={amount}")))];

    /// <summary>The definition of a subclass: named after the work unit, with one option, <c>--{amount name}</c>.</summary>
    protected static ExperimentDefinition Define(WorkKind unit, long defaultAmount, string description, Func<long, TaskRunExperiment> create)
    {
        var amountOption = new Option<long>($"--{unit.AmountName}") { Description = $"{unit.Name}: {description}", DefaultValueFactory = _ => defaultAmount };
        return new(unit.Name, [amountOption], values => create(values.Positive(amountOption)))
        {
            Colors = [new("sync", "#8c564b"), new("taskrun", "#1f77b4")],
        };
    }

    public override Finding Assess(IReadOnlyList<VariantResult> results)
    {
        var sync = Find(results, "sync");
        var taskRun = Find(results, "taskrun");
        if (sync is null || taskRun is null || sync.RequestsPerSecond <= 0)
        {
            return Finding.NotAssessed("both the sync and the taskrun variant need completed requests.");
        }
        var ratio = taskRun.RequestsPerSecond / sync.RequestsPerSecond;
        var seedRow = Seed004Figures.Nearest(unit, amount);
        List<SeedComparison> comparisons =
        [
            new("Task.Run vs inline, one request on an idle machine (efficiency)",
                seedRow is { } row ? $"{row.Efficiency.FourCoresPercent:0.##} % at {row.Amount:N0} cycles, 4 cores" : "not measured (the seed only names SpinWait)",
                "see the API's /compare and /sweep endpoints"),
            new("Task.Run vs inline under load (throughput taskrun / sync)", "not measured (seed 004 ran no load)",
                $"{ratio * 100:0} % ({taskRun.RequestsPerSecond:0.#} vs {sync.RequestsPerSecond:0.#} req/s)"),
        ];
        if (PhysicalLimits.ThroughputRatio("taskrun / sync throughput", ratio, PhysicalLimits.CoresOf(taskRun)) is { } impossible)
        {
            return Finding.Impossible(comparisons, impossible);
        }
        var figure = new VerdictFigure("taskrun / sync throughput", ratio * 100, NoGainRatio * 100, ReproducedAbove: false, "0", " %");
        return (ratio <= NoGainRatio
            ? new Finding(Outcome.Reproduced, comparisons, $"under load Task.Run gained nothing over inline work (taskrun served {ratio * 100:0} % of sync's throughput), so seed 004's per-request speed-up does not survive a busy server.")
            : new(Outcome.NotReproduced, comparisons, $"under this load Task.Run still served {ratio * 100:0} % of sync's throughput, more than the {NoGainRatio * 100:0} % that would count as no gain (the load may not have saturated the cores).")) with { Figure = figure };
    }
}
