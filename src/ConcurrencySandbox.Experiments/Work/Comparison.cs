using System.Diagnostics;
using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;

namespace ConcurrencySandbox.Experiments.Work;

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
            Seed004Figures.Efficiency(unit, amount));
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
