using System.Globalization;
using ConcurrencySandbox.Experiments.Statistics;

namespace ConcurrencySandbox.Experiments.Work;

/// <summary>One row of seed 004's table: the same amount run inline and with Task.Run, side by side in one process.</summary>
/// <param name="EfficiencyPercent">Sync median / Task.Run median x 100: above 100 means Task.Run paid off.</param>
/// <param name="TaskRunAddedSeconds">Task.Run median minus sync median: the pool's overhead when positive.</param>
/// <param name="Seed">Seed 004's efficiency for the same amount, where it measured one.</param>
public sealed record ComparisonRow(
    long Amount,
    int Repeat,
    double SyncSeconds,
    double TaskRunSeconds,
    double EfficiencyPercent,
    double TaskRunAddedSeconds,
    Spread Sync,
    Spread TaskRun,
    SeedEfficiency? Seed)
{
    /// <summary>This row's figures that cannot be true on <paramref name="cores"/> cores or are too noisy to trust, named "10 cycles: ...".</summary>
    public IReadOnlyList<FigureFlag> Flags(string amountName, int cores) =>
        FigureChecks.Comparison(string.Create(CultureInfo.InvariantCulture, $"{Amount:N0} {amountName}"), EfficiencyPercent, Sync, TaskRun, cores);
}

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
            SeedFigures.Seed004(unit, amount));
    }
}
