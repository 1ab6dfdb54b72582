using System.Diagnostics;
using ConcurrencySandbox.Contracts.Contention;

namespace ConcurrencySandbox.Experiments.Contention;

/// <summary>How long one request waited for the critical section and how long it then held it.</summary>
public sealed record ContentionTiming(double WaitedMs, double HeldMs);

/// <summary>
/// Seed 000 / 003's lesson on a lock: every request enters one critical section (one instance per variant, a singleton in the API) and holds it for
/// <c>holdMs</c>. Throughput is serialized either way; what differs is what a waiting request holds meanwhile:
/// a blocked pool thread (<see cref="MonitorLockVariant"/>) or nothing (<see cref="SemaphoreAsyncVariant"/>).
/// </summary>
public abstract class ContentionVariant
{
    private long _waiting;
    private long _holding;

    /// <summary>Each variant's description by its name, known before any critical section exists (the API documents its routes with them).</summary>
    public static IReadOnlyDictionary<string, string> Descriptions { get; } = new Dictionary<string, string>
    {
        [ContentionVariants.MonitorLock] = MonitorLockVariant.VariantDescription,
        [ContentionVariants.SemaphoreAsync] = SemaphoreAsyncVariant.VariantDescription,
    };

    public abstract string Name { get; }

    public abstract string Description { get; }

    /// <summary>Callers waiting to enter this critical section now.</summary>
    public long Waiting => Interlocked.Read(ref _waiting);

    /// <summary>Callers inside it now (0 or 1).</summary>
    public long Holding => Interlocked.Read(ref _holding);

    /// <summary>
    /// Waits for the critical section, holds it for <paramref name="holdMs"/>, leaves it. A cancelled waiter leaves
    /// the queue without entering; a cancelled holder leaves at once. Either throws <see cref="OperationCanceledException"/>.
    /// </summary>
    public async ValueTask<ContentionTiming> EnterAndHoldAsync(int holdMs, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(holdMs, ContentionVariants.MinHoldMs);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(holdMs, ContentionVariants.MaxHoldMs);
        var started = Stopwatch.GetTimestamp();
        Interlocked.Increment(ref _waiting);
        try
        {
            await EnterAsync(cancellationToken);
        }
        finally
        {
            Interlocked.Decrement(ref _waiting);
        }

        var entered = Stopwatch.GetTimestamp();
        ContentionInstruments.Entries.Increment();
        Interlocked.Increment(ref _holding);
        try
        {
            await HoldAsync(holdMs, cancellationToken);
        }
        finally
        {
            Interlocked.Decrement(ref _holding);
            Exit();
        }

        return new(Stopwatch.GetElapsedTime(started, entered).TotalMilliseconds, Stopwatch.GetElapsedTime(entered).TotalMilliseconds);
    }

    /// <summary>Enters the critical section; a variant that blocks completes synchronously on the caller's thread, so <see cref="Exit"/> runs on it too.</summary>
    protected abstract ValueTask EnterAsync(CancellationToken cancellationToken);

    protected abstract ValueTask HoldAsync(int holdMs, CancellationToken cancellationToken);

    protected abstract void Exit();
}

/// <summary>
/// C#'s <c>lock</c> (Monitor) around a blocking wait: every waiting request blocks the pool thread it runs on.
/// Enters in slices of <see cref="CancellationPoll"/> because Monitor.Enter cannot be cancelled; the thread stays
/// blocked in the Monitor's wait queue either way, and each slice that has to wait counts as lock contention.
/// </summary>
public sealed class MonitorLockVariant : ContentionVariant
{
    private static readonly TimeSpan CancellationPoll = TimeSpan.FromMilliseconds(50);

    private readonly object _gate = new();


    public override string Name => ContentionVariants.MonitorLock;

    public const string VariantDescription = "C# lock (Monitor) around a blocking wait: each waiting request blocks a pool thread";

    public override string Description => VariantDescription;

    protected override ValueTask EnterAsync(CancellationToken cancellationToken)
    {
        var taken = false;
        while (!taken)
        {
            cancellationToken.ThrowIfCancellationRequested();
            Monitor.TryEnter(_gate, CancellationPoll, ref taken);
        }

        return ValueTask.CompletedTask;
    }

    protected override ValueTask HoldAsync(int holdMs, CancellationToken cancellationToken)
    {
        // Thread.Sleep that wakes on cancellation: the holding thread is blocked, as the waiting ones are.
        cancellationToken.WaitHandle.WaitOne(holdMs);
        cancellationToken.ThrowIfCancellationRequested();
        return ValueTask.CompletedTask;
    }

    protected override void Exit() => Monitor.Exit(_gate);
}

/// <summary>SemaphoreSlim(1).WaitAsync around Task.Delay: a waiting request is a queued continuation and holds no thread.</summary>
public sealed class SemaphoreAsyncVariant : ContentionVariant
{
    private readonly SemaphoreSlim _gate = new(1, 1);


    public override string Name => ContentionVariants.SemaphoreAsync;

    public const string VariantDescription = "SemaphoreSlim(1).WaitAsync around Task.Delay: a waiting request holds no thread";

    public override string Description => VariantDescription;

    protected override ValueTask EnterAsync(CancellationToken cancellationToken) => new(_gate.WaitAsync(cancellationToken));

    protected override ValueTask HoldAsync(int holdMs, CancellationToken cancellationToken) => new(Task.Delay(holdMs, cancellationToken));

    protected override void Exit() => _gate.Release();
}
