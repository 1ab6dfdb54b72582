using System.Diagnostics;
using ConcurrencySandbox.Experiments.Telemetry;

namespace ConcurrencySandbox.Experiments.Work;

/// <summary>The timing of one run: the unit done twice in the chosen mode.</summary>
/// <param name="ThreadIds">Managed thread ids that ran each unit (for async, the thread each continuation resumed on).</param>
public sealed record WorkRun(WorkUnit Unit, RunMode Mode, long Amount, double ElapsedSeconds, IReadOnlyList<int> ThreadIds, long Checksum);

/// <summary>Runs a unit twice, as seed 004 did, and times the pair with a Stopwatch.</summary>
public static class WorkRunner
{
    public static async Task<WorkRun> RunTwiceAsync(WorkUnit unit, RunMode mode, long amount, CancellationToken cancellationToken)
    {
        var threadIds = new int[2];
        var checksums = new long[2];
        var stopwatch = Stopwatch.StartNew();
        switch (mode)
        {
            case RunMode.Sync:
                RunOne(0);
                RunOne(1);
                break;
            case RunMode.TaskRun:
                await Task.WhenAll(Task.Run(() => RunOne(0), cancellationToken), Task.Run(() => RunOne(1), cancellationToken));
                break;
            case RunMode.Async:
                await Task.WhenAll(AwaitOneAsync(0), AwaitOneAsync(1));
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(mode), mode, null);
        }

        stopwatch.Stop();
        return new WorkRun(unit, mode, amount, ElapsedSeconds(stopwatch.ElapsedTicks), threadIds, checksums[0] + checksums[1]);

        void RunOne(int slot)
        {
            threadIds[slot] = Environment.CurrentManagedThreadId;
            Counted(() => checksums[slot] = unit.RunBlocking(amount, cancellationToken));
        }

        async Task AwaitOneAsync(int slot)
        {
            await CountedAsync(() => unit.RunAsync(amount, cancellationToken)).ConfigureAwait(false);
            threadIds[slot] = Environment.CurrentManagedThreadId;
        }
    }

    /// <summary>
    /// Seconds at the Stopwatch's own resolution (Elapsed rounds down to 100 ns, so 10 cycles timed 0 s and a per-pair
    /// ratio divided by zero), at least one tick so every ratio is finite.
    /// </summary>
    public static double ElapsedSeconds(long stopwatchTicks) => (double)Math.Max(1, stopwatchTicks) / Stopwatch.Frequency;

    /// <summary>Runs a unit counted in sandbox.work.units.active until it ends, and in sandbox.work.units.cancelled when it ended early.</summary>
    private static void Counted(Action run) => CountedAsync(() =>
    {
        run();
        return Task.CompletedTask;
    }).GetAwaiter().GetResult(); // complete on return: run() finished synchronously

    private static async Task CountedAsync(Func<Task> run)
    {
        WorkInstruments.UnitsActive.Increment();
        var cancelled = false;
        try
        {
            await run().ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            cancelled = true;
            throw;
        }
        finally
        {
            if (cancelled)
            {
                WorkInstruments.UnitsCancelled.Increment();
            }

            WorkInstruments.UnitsActive.Decrement();
        }
    }
}
