using System.Diagnostics;

namespace ConcurrencySandbox.Experiments.Work;

/// <summary>The timing of one run: the unit done twice in the chosen mode.</summary>
/// <param name="ThreadIds">Managed thread ids that ran each unit (for async, the thread each continuation resumed on).</param>
public sealed record WorkRun(WorkUnit Unit, RunMode Mode, long Amount, double ElapsedSeconds, IReadOnlyList<int> ThreadIds, long Checksum);

/// <summary>Runs a unit twice, as seed 004 did, and times the pair with a Stopwatch.</summary>
public static class WorkRunner
{
    private static long _activeUnits;
    private static long _cancelledUnits;

    /// <summary>Units running right now in this process, and units that stopped early because their request was abandoned.</summary>
    public static (long Active, long Cancelled) Activity => (Interlocked.Read(ref _activeUnits), Interlocked.Read(ref _cancelledUnits));

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
        return new WorkRun(unit, mode, amount, stopwatch.Elapsed.TotalSeconds, threadIds, checksums[0] + checksums[1]);

        void RunOne(int slot)
        {
            threadIds[slot] = Environment.CurrentManagedThreadId;
            var scope = UnitScope.Enter();
            try
            {
                checksums[slot] = unit.RunBlocking(amount, cancellationToken);
            }
            catch (OperationCanceledException)
            {
                scope.Cancelled = true;
                throw;
            }
            finally
            {
                scope.Exit();
            }
        }

        async Task AwaitOneAsync(int slot)
        {
            var scope = UnitScope.Enter();
            try
            {
                await unit.RunAsync(amount, cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                scope.Cancelled = true;
                throw;
            }
            finally
            {
                scope.Exit();
            }

            threadIds[slot] = Environment.CurrentManagedThreadId;
        }
    }

    /// <summary>Counts a unit as active until it ends, and as cancelled when it ended early.</summary>
    private sealed class UnitScope
    {
        public bool Cancelled { get; set; }

        public static UnitScope Enter()
        {
            Interlocked.Increment(ref _activeUnits);
            return new UnitScope();
        }

        public void Exit()
        {
            if (Cancelled)
            {
                Interlocked.Increment(ref _cancelledUnits);
            }

            Interlocked.Decrement(ref _activeUnits);
        }
    }
}
