using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.Experiments.Machine;
using ConcurrencySandbox.Experiments.Statistics;

namespace ConcurrencySandbox.Experiments.Work;

/// <summary>
/// One row of seed 004's table: the same amount run inline and with Task.Run, interleaved in one process under a
/// <see cref="MeasurementPolicy"/>. Every figure is an <see cref="Estimate"/> (median, 95 % CI, n, min).
/// </summary>
/// <param name="Sync">Seconds per sync run (the unit twice on the calling thread).</param>
/// <param name="TaskRun">Seconds per Task.Run run (the unit twice as two work items).</param>
/// <param name="Efficiency">Sync / Task.Run x 100 per pair (the two ran back to back): above 100 means Task.Run paid off.</param>
/// <param name="Remeasured">The first measurement's efficiency was impossible beyond its CI, so the row was measured again.</param>
/// <param name="TargetHalfWidthPercent">The policy's target: a figure whose CI is wider is inconclusive.</param>
/// <param name="Load">What other processes, steal and CFS throttling took while the row was measured; null off Linux.</param>
/// <param name="Speed">The calibration loop before and after the row: the machine's own speed drift.</param>
/// <param name="Seed">Seed 004's efficiency for the same amount, where it measured one.</param>
public sealed record ComparisonRow(
    long Amount,
    Estimate Sync,
    Estimate TaskRun,
    Estimate Efficiency,
    StopReason Stopped,
    bool Remeasured,
    double TargetHalfWidthPercent,
    MachineLoad? Load,
    SpeedCheck Speed,
    SeedEfficiency? Seed)
{
    /// <summary>Pairs measured.</summary>
    public int Repeat => Efficiency.Count;

    public double SyncSeconds => Sync.Median;

    public double TaskRunSeconds => TaskRun.Median;

    public double EfficiencyPercent => Efficiency.Median;

    /// <summary>Task.Run median minus sync median: the pool's overhead when positive.</summary>
    public double TaskRunAddedSeconds => TaskRun.Median - Sync.Median;

    /// <summary>This row's figures that cannot be true on <paramref name="cores"/> cores, are inconclusive, or were taken on a busy or throttled machine, named "10 cycles: ...".</summary>
    public IReadOnlyList<FigureFlag> Flags(string amountName, int cores) =>
        FigureChecks.Comparison(string.Create(CultureInfo.InvariantCulture, $"{Amount:N0} {amountName}"), new ComparisonFigures(Sync, TaskRun, Efficiency, Load, TargetHalfWidthPercent), cores);
}

public static class Comparison
{
    /// <summary>
    /// Warms up, then runs sync and Task.Run in interleaved pairs until the policy stops; measures again once when the
    /// efficiency is impossible on this process's cores beyond its CI.
    /// </summary>
    public static async Task<ComparisonRow> CompareAsync(WorkUnit unit, long amount, MeasurementPolicy policy, CancellationToken cancellationToken)
    {
        var cores = Environment.ProcessorCount;
        var before = Calibration.TimeSeconds(cancellationToken);
        await WarmUpAsync(unit, Math.Min(amount, unit.WarmupAmount), policy.Budget / 4, cancellationToken);
        var measured = await MeasureAsync(unit, amount, policy, cancellationToken);
        var remeasured = FigureChecks.ImpossibleBeyondInterval(measured.Efficiency, cores);
        if (remeasured)
        {
            measured = await MeasureAsync(unit, amount, policy, cancellationToken);
        }

        var after = Calibration.TimeSeconds(cancellationToken);
        return new ComparisonRow(
            amount,
            measured.Sync,
            measured.TaskRun,
            measured.Efficiency,
            measured.Stopped,
            remeasured,
            policy.TargetHalfWidthPercent,
            measured.Load,
            new SpeedCheck(before, after),
            SeedFigures.Seed004(unit, amount));
    }

    /// <summary>Runs both forms at the warm-up amount until their time stops improving (final JIT tier) or the warm-up budget ends.</summary>
    private static async Task WarmUpAsync(WorkUnit unit, long amount, TimeSpan budget, CancellationToken cancellationToken)
    {
        const int invocationsPerRound = 4; // the unit twice inline, twice on the pool
        var started = Stopwatch.GetTimestamp();
        var rounds = new List<double>();
        while (!MeasurementPolicy.WarmedUp(rounds, invocationsPerRound, Stopwatch.GetElapsedTime(started)) && Stopwatch.GetElapsedTime(started) < budget)
        {
            var sync = await WorkRunner.RunTwiceAsync(unit, RunMode.Sync, amount, cancellationToken);
            var taskRun = await WorkRunner.RunTwiceAsync(unit, RunMode.TaskRun, amount, cancellationToken);
            rounds.Add(sync.ElapsedSeconds + taskRun.ElapsedSeconds);
        }
    }

    private sealed record Measured(Estimate Sync, Estimate TaskRun, Estimate Efficiency, StopReason Stopped, MachineLoad? Load);

    private static async Task<Measured> MeasureAsync(WorkUnit unit, long amount, MeasurementPolicy policy, CancellationToken cancellationToken)
    {
        var sync = new List<double>();
        var taskRun = new List<double>();
        var ratios = new List<double>();
        var counters = MachineCounters.Read();
        var started = Stopwatch.GetTimestamp();
        for (var pair = 0; ; pair++)
        {
            var pairStarted = Stopwatch.GetTimestamp();
            var first = MeasurementPolicy.BFirst(pair) ? RunMode.TaskRun : RunMode.Sync;
            var firstRun = await WorkRunner.RunTwiceAsync(unit, first, amount, cancellationToken);
            var secondRun = await WorkRunner.RunTwiceAsync(unit, first == RunMode.Sync ? RunMode.TaskRun : RunMode.Sync, amount, cancellationToken);
            var (syncRun, taskRunRun) = first == RunMode.Sync ? (firstRun, secondRun) : (secondRun, firstRun);
            sync.Add(syncRun.ElapsedSeconds);
            taskRun.Add(taskRunRun.ElapsedSeconds);
            ratios.Add(syncRun.ElapsedSeconds / taskRunRun.ElapsedSeconds * 100);

            Estimate[] figures = [Estimate.Of(sync), Estimate.Of(taskRun), Estimate.Of(ratios)];
            var elapsed = Stopwatch.GetElapsedTime(started);
            if (policy.ShouldStop(figures, pair + 1, elapsed, Stopwatch.GetElapsedTime(pairStarted)) is { } stopped)
            {
                var load = counters is not null && MachineCounters.Read() is { } now ? now.Since(counters, elapsed.TotalSeconds) : null;
                return new Measured(figures[0], figures[1], figures[2], stopped, load);
            }
        }
    }
}
