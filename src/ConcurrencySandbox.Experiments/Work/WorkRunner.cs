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
        if (mode == RunMode.Sync)
        {
            return RunTwiceInline(unit, amount, cancellationToken);
        }

        var threadIds = new int[2];
        var checksums = new long[2];
        var started = Stopwatch.GetTimestamp();
        switch (mode)
        {
            case RunMode.TaskRun:
                await Task.WhenAll(Task.Run(() => RunOne(0), cancellationToken), Task.Run(() => RunOne(1), cancellationToken));
                break;
            case RunMode.Async:
                await Task.WhenAll(AwaitOneAsync(0), AwaitOneAsync(1));
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(mode), mode, null);
        }

        return new WorkRun(unit, mode, amount, ElapsedSeconds(Stopwatch.GetTimestamp() - started), threadIds, checksums[0] + checksums[1]);

        void RunOne(int slot)
        {
            threadIds[slot] = Environment.CurrentManagedThreadId;
            checksums[slot] = Counted(unit, amount, cancellationToken);
        }

        async Task AwaitOneAsync(int slot)
        {
            await CountedAsync(unit, amount, cancellationToken).ConfigureAwait(false);
            threadIds[slot] = Environment.CurrentManagedThreadId;
        }
    }

    /// <summary>
    /// <see cref="RunMode.Sync"/>: both units one after the other on the calling thread, with no task, closure or
    /// delegate of its own, so the cheapest run (compute/sync?cycles=1) costs the API little besides the two units.
    /// </summary>
    public static WorkRun RunTwiceInline(WorkUnit unit, long amount, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        var firstThreadId = Environment.CurrentManagedThreadId;
        var checksum = Counted(unit, amount, cancellationToken);
        var secondThreadId = Environment.CurrentManagedThreadId;
        checksum += Counted(unit, amount, cancellationToken);
        return new WorkRun(unit, RunMode.Sync, amount, ElapsedSeconds(Stopwatch.GetTimestamp() - started), [firstThreadId, secondThreadId], checksum);
    }

    /// <summary>
    /// Seconds at the Stopwatch's own resolution (Elapsed rounds down to 100 ns, so 10 cycles timed 0 s and a per-pair
    /// ratio divided by zero), at least one tick so every ratio is finite.
    /// </summary>
    public static double ElapsedSeconds(long stopwatchTicks) => (double)Math.Max(1, stopwatchTicks) / Stopwatch.Frequency;

    /// <summary>Runs a blocking unit counted in sandbox.work.units.active until it ends, and in sandbox.work.units.cancelled when it ended early.</summary>
    private static long Counted(WorkUnit unit, long amount, CancellationToken cancellationToken)
    {
        WorkInstruments.UnitsActive.Increment();
        try
        {
            return unit.RunBlocking(amount, cancellationToken);
        }
        catch (OperationCanceledException)
        {
            WorkInstruments.UnitsCancelled.Increment();
            throw;
        }
        finally
        {
            WorkInstruments.UnitsActive.Decrement();
        }
    }

    /// <summary>The asynchronous unit (sleep's Task.Delay), counted as <see cref="Counted"/> counts a blocking one.</summary>
    private static async Task CountedAsync(WorkUnit unit, long amount, CancellationToken cancellationToken)
    {
        WorkInstruments.UnitsActive.Increment();
        try
        {
            await unit.RunAsync(amount, cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            WorkInstruments.UnitsCancelled.Increment();
            throw;
        }
        finally
        {
            WorkInstruments.UnitsActive.Decrement();
        }
    }
}
