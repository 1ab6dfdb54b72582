using System.Globalization;
using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.Platform.Machine;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.Experiments.Work;

/// <summary>
/// Seed 004's rows, inline vs Task.Run, measured under a <see cref="MeasurementPolicy"/> in rounds: every row is warmed up
/// once, then each round gives every row that has not stopped <see cref="PairsPerRound"/> interleaved pairs (AB BA), the
/// rows visited in an order shuffled per round. A row's pairs so spread over the whole measurement instead of one
/// few-second block, so a spell of the VM's vCPU running at half speed hits every row and both halves of each.
/// <c>compare</c> is the same measurement with one row.
/// </summary>
public static class Comparison
{
    /// <summary>Pairs a row takes per round: one AB and one BA, so each round is balanced in which half runs first.</summary>
    public const int PairsPerRound = 2;

    /// <summary>The seed of the per-round shuffle of the API's sweeps: fixed, so the visiting order follows from the report's policy line.</summary>
    public const int ShuffleSeed = 20;

    public static async Task<ComparisonRow> CompareAsync(WorkUnit unit, long amount, MeasurementPolicy policy, CancellationToken cancellationToken) =>
        (await MeasureRowsAsync(unit, [amount], policy, Bench.Of(unit), ShuffleSeed, cancellationToken))[0];

    /// <summary>The policy and, for more than one row, the rounds, in words for reports.</summary>
    public static string Describe(MeasurementPolicy policy, int rowCount, int seed) =>
        rowCount <= 1
            ? policy.Describe()
            : policy.Describe() + string.Create(CultureInfo.InvariantCulture,
                $"; the {rowCount} rows measured in rounds, {PairsPerRound} pairs per row per round in an order shuffled each round (seed {seed}), a row leaving the rounds once it stops, the time budget shared by all rows");

    /// <summary>
    /// Measures a row per amount in interleaved rounds until every row has stopped: converged, out of the shared budget
    /// (the policy's, timed from the first round), or at the repeat cap. A row whose efficiency is impossible on this
    /// process's cores beyond its CI when it would stop is measured again once: its pairs are dropped and it takes fresh
    /// pairs in the following rounds (at least the policy's minimum, budget or not).
    /// </summary>
    /// <param name="seed">Seeds the per-round shuffle of the rows.</param>
    public static async Task<IReadOnlyList<ComparisonRow>> MeasureRowsAsync(
        WorkUnit unit, IReadOnlyList<long> amounts, MeasurementPolicy policy, Bench bench, int seed, CancellationToken cancellationToken)
    {
        var cores = Environment.ProcessorCount;
        var warmupBudget = policy.Budget * MeasurementPolicy.WarmupBudgetShare / Math.Max(1, amounts.Count);
        foreach (var amount in amounts)
        {
            await WarmUpAsync(bench, Math.Min(amount, unit.WarmupAmount), warmupBudget, cancellationToken);
        }

        var rows = amounts.Select(a => new RowSamples(a)).ToList();
        var random = new Random(seed);
        var calibrationBefore = bench.CalibrationSeconds(cancellationToken);
        var counters = MachineCounters.Read();
        var started = bench.Time.GetTimestamp();
        while (rows.Where(r => r.Stopped is null).ToArray() is { Length: > 0 } visiting)
        {
            random.Shuffle(visiting);
            foreach (var row in visiting)
            {
                // The stop rule before each pair (the other rows' slices since this row's last pair may have spent the budget)
                // and after the slice's last one (so a row that converged ends in this round).
                for (var pair = 0; pair < PairsPerRound && !Stops(row, policy, cores, bench.Time.GetElapsedTime(started)); pair++)
                {
                    await MeasurePairAsync(bench, row, cancellationToken);
                }

                Stops(row, policy, cores, bench.Time.GetElapsedTime(started));
            }

            // The rows that stopped in this round end here: their calibration and load span the first round to this one.
            if (visiting.Any(r => r.Stopped is not null))
            {
                var load = counters is not null && MachineCounters.Read() is { } now ? now.Since(counters, bench.Time.GetElapsedTime(started).TotalSeconds) : null;
                var speed = new SpeedCheck(calibrationBefore, bench.CalibrationSeconds(cancellationToken));
                foreach (var row in visiting.Where(r => r.Stopped is not null))
                {
                    row.Finish(unit, policy, load, speed);
                }
            }
        }

        return [.. rows.Select(r => r.Result!)];
    }

    /// <summary>Runs both forms at the warm-up amount until their time stops improving (final JIT tier) or the warm-up budget ends.</summary>
    private static async Task WarmUpAsync(Bench bench, long amount, TimeSpan budget, CancellationToken cancellationToken)
    {
        const int invocationsPerRound = 4; // the unit twice inline, twice on the pool
        var started = bench.Time.GetTimestamp();
        var rounds = new List<double>();
        while (!MeasurementPolicy.WarmedUp(rounds, invocationsPerRound, bench.Time.GetElapsedTime(started)) && bench.Time.GetElapsedTime(started) < budget)
        {
            var sync = await bench.RunSeconds(RunMode.Sync, amount, cancellationToken);
            var taskRun = await bench.RunSeconds(RunMode.TaskRun, amount, cancellationToken);
            rounds.Add(sync + taskRun);
        }
    }

    /// <summary>One sync run and one Task.Run run back to back, in the order the row's pair count says (AB BA ...).</summary>
    private static async Task MeasurePairAsync(Bench bench, RowSamples row, CancellationToken cancellationToken)
    {
        var pairStarted = bench.Time.GetTimestamp();
        var first = MeasurementPolicy.BFirst(row.Pairs) ? RunMode.TaskRun : RunMode.Sync;
        var firstSeconds = await bench.RunSeconds(first, row.Amount, cancellationToken);
        var secondSeconds = await bench.RunSeconds(first == RunMode.Sync ? RunMode.TaskRun : RunMode.Sync, row.Amount, cancellationToken);
        var (sync, taskRun) = first == RunMode.Sync ? (firstSeconds, secondSeconds) : (secondSeconds, firstSeconds);
        row.Add(sync, taskRun, bench.Time.GetElapsedTime(pairStarted));
    }

    /// <summary>Whether <paramref name="row"/> has stopped (marking it so when the policy says it should now); restarts it instead when it would stop on an impossible efficiency for the first time.</summary>
    private static bool Stops(RowSamples row, MeasurementPolicy policy, int cores, TimeSpan elapsed)
    {
        if (row.Stopped is not null)
        {
            return true;
        }

        if (row.Pairs == 0 || policy.ShouldStop(row.Figures(), row.Pairs, elapsed, row.LastPair) is not { } stopped)
        {
            return false;
        }

        if (!row.Remeasured && FigureChecks.ImpossibleBeyondInterval(row.Figures()[2], cores))
        {
            row.Restart();
            return false;
        }

        row.Stopped = stopped;
        return true;
    }

    /// <summary>One row's pairs so far, and once it has stopped, its result.</summary>
    private sealed class RowSamples(long amount)
    {
        private readonly List<double> _sync = [];
        private readonly List<double> _taskRun = [];
        private Estimate[]? _figures;

        public long Amount => amount;

        public int Pairs => _sync.Count;

        public TimeSpan LastPair { get; private set; }

        public bool Remeasured { get; private set; }

        public StopReason? Stopped { get; set; }

        public ComparisonRow? Result { get; private set; }

        /// <summary>
        /// Sync seconds, Task.Run seconds (medians) and the efficiency, total sync time / total Task.Run time x 100 as seed
        /// 004 defines it (<see cref="Estimates.RatioOfTotals"/>), computed once per pair added: the stop rule asks for them
        /// before each pair and after each slice, and each estimate sorts up to 1,000 samples.
        /// </summary>
        public Estimate[] Figures() => _figures ??= [Estimates.Of(_sync), Estimates.Of(_taskRun), Estimates.RatioOfTotals(_sync, _taskRun, 100)];

        public void Add(double syncSeconds, double taskRunSeconds, TimeSpan pair)
        {
            _sync.Add(syncSeconds);
            _taskRun.Add(taskRunSeconds);
            _figures = null;
            LastPair = pair;
        }

        /// <summary>Drops every pair: the row is measured again from its next slice on.</summary>
        public void Restart()
        {
            _sync.Clear();
            _taskRun.Clear();
            _figures = null;
            Remeasured = true;
        }

        public void Finish(WorkUnit unit, MeasurementPolicy policy, MachineLoad? load, SpeedCheck speed)
        {
            var figures = Figures();
            Result = new ComparisonRow(amount, figures[0], figures[1], figures[2], Stopped!.Value, Remeasured, policy.TargetHalfWidthPercent, load, speed, Seed004Figures.Efficiency(unit.Kind, amount));
        }
    }
}
