using ConcurrencySandbox.Contracts.Work;

namespace ConcurrencySandbox.Experiments.Work;

/// <summary>How the two units of one run are scheduled.</summary>
public enum RunMode
{
    /// <summary>Both units one after the other on the calling thread.</summary>
    Sync,

    /// <summary>Each unit queued with <see cref="Task.Run(Action)"/>, then both awaited.</summary>
    TaskRun,

    /// <summary>Each unit awaited as asynchronous work (sleep only): no thread is held while it waits.</summary>
    Async,
}

/// <summary>
/// One unit of work from seed 004, sized by an amount (cycles, iterations or milliseconds).
/// Every blocking form watches the cancellation token so an abandoned request stops burning a core.
/// </summary>
public sealed class WorkUnit
{
    private readonly Func<long, CancellationToken, long> _runBlocking;
    private readonly Func<long, CancellationToken, Task>? _runAsync;

    private WorkUnit(
        WorkKind kind,
        long warmupAmount,
        Func<long, CancellationToken, long> runBlocking,
        Func<long, CancellationToken, Task>? runAsync)
    {
        Kind = kind;
        WarmupAmount = warmupAmount;
        _runBlocking = runBlocking;
        _runAsync = runAsync;
    }

    /// <summary>The seed's counting loop: a CPU-bound unit whose time grows linearly with cycles.</summary>
    public static WorkUnit Compute { get; } = new(WorkKind.Compute, 1_000_000, WorkLoops.Count, null);

    /// <summary><see cref="Thread.SpinWait(int)"/>: the seed's "honest compute substitute".</summary>
    public static WorkUnit SpinWait { get; } = new(WorkKind.SpinWait, 10_000, WorkLoops.Spin, null);

    /// <summary>A blocking sleep (holds its thread) with an asynchronous twin (holds none).</summary>
    public static WorkUnit Sleep { get; } = new(WorkKind.Sleep, 1, WorkLoops.Sleep, WorkLoops.DelayAsync);

    public static IReadOnlyList<WorkUnit> All { get; } = [Compute, SpinWait, Sleep];

    /// <summary>The unit's names on the wire.</summary>
    public WorkKind Kind { get; }

    /// <summary>The route segment and report name: compute, spinwait or sleep.</summary>
    public string Name => Kind.Name;

    /// <summary>What the amount counts: cycles, iterations or milliseconds.</summary>
    public string AmountName => Kind.AmountName;

    /// <summary>The largest amount used to warm up (JIT, pool threads) before a timed comparison.</summary>
    public long WarmupAmount { get; }

    public bool SupportsAsync => _runAsync is not null;

    public IReadOnlyList<RunMode> Modes => SupportsAsync ? [RunMode.Sync, RunMode.TaskRun, RunMode.Async] : [RunMode.Sync, RunMode.TaskRun];

    /// <summary>Runs one unit on the calling thread; the returned value keeps the JIT from removing the work.</summary>
    public long RunBlocking(long amount, CancellationToken cancellationToken) => _runBlocking(amount, cancellationToken);

    public Task RunAsync(long amount, CancellationToken cancellationToken) =>
        _runAsync is null
            ? throw new NotSupportedException($"'{Name}' has no asynchronous form.")
            : _runAsync(amount, cancellationToken);
}
