using System.Globalization;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;

namespace ConcurrencySandbox.Experiments.Work;

public static class Comparison
{
    /// <summary>Warms up, then runs the sync and Task.Run forms back to back, alternating which goes first.</summary>
    public static async Task<ComparisonRow> CompareAsync(WorkUnit unit, long amount, int repeat, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(repeat, 1);
        var warmup = Math.Min(amount, unit.WarmupAmount);
        await WorkRunner.RunTwiceAsync(unit, RunMode.Sync, warmup, cancellationToken);
        await WorkRunner.RunTwiceAsync(unit, RunMode.TaskRun, warmup, cancellationToken);

        var sync = new List<double>(repeat);
        var taskRun = new List<double>(repeat);
        for (var i = 0; i < repeat; i++)
        {
            var order = i % 2 == 0 ? new[] { RunMode.Sync, RunMode.TaskRun } : [RunMode.TaskRun, RunMode.Sync];
            foreach (var mode in order)
            {
                var run = await WorkRunner.RunTwiceAsync(unit, mode, amount, cancellationToken);
                (mode == RunMode.Sync ? sync : taskRun).Add(run.ElapsedSeconds);
            }
        }

        var syncSpread = Spread.Of(sync);
        var taskRunSpread = Spread.Of(taskRun);
        return new ComparisonRow(
            amount,
            repeat,
            syncSpread.Median,
            taskRunSpread.Median,
            syncSpread.Median / taskRunSpread.Median * 100,
            taskRunSpread.Median - syncSpread.Median,
            syncSpread,
            taskRunSpread,
            Seed004Figures.Efficiency(unit, amount));
    }
}
