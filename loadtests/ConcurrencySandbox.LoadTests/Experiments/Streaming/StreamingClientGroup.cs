using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments.Streaming;

/// <summary>
/// The validating clients of one plan as <c>streaming-clients</c> processes: one, or with local agents one per agent
/// (<see cref="StreamingPinning.Agents"/>), agent i running its share of the clients (<see cref="LoadSegment.UsersOf"/>,
/// so the shares add up to the plan's clients) pinned to its cpus, connecting as many times further apart so the clients
/// together connect at the plan's pace. Their reports are added up into one reading (<see cref="Sum"/>), which is what
/// <see cref="Latest"/>, the reading callback and <see cref="StopAsync"/> give.
/// </summary>
internal sealed class StreamingClientGroup : IAsyncDisposable
{
    private readonly Lock _gate = new();
    private readonly StreamingClientsReading?[] _latest;
    private readonly Action<StreamingClientsReading>? _onReading;
    // The reading callback runs outside the lock, in the order the sums were made under it.
    private readonly SerialDelivery _delivery = new();
    private StreamingClientsProcess[] _processes = [];

    /// <summary>A group of <paramref name="count"/> processes, none started yet (<see cref="StartAsync"/> starts them; a test hands in readings).</summary>
    internal StreamingClientGroup(int count, Action<StreamingClientsReading>? onReading) => (_latest, _onReading) = (new StreamingClientsReading?[count], onReading);

    /// <summary>Every process's newest report added up; null before the first.</summary>
    public StreamingClientsReading? Latest
    {
        get
        {
            lock (_gate)
            {
                return Sum([.. _latest.OfType<StreamingClientsReading>()]);
            }
        }
    }

    /// <summary>Starts every process of the group at once and waits for each one's first report.</summary>
    public static async Task<StreamingClientGroup> StartAsync(StreamingClientsPlan plan, StreamingPinning pinning, Action<StreamingClientsReading>? onReading, CancellationToken cancellationToken)
    {
        var count = pinning.ClientProcesses;
        var group = new StreamingClientGroup(count, onReading);
        var shares = Enumerable.Range(0, count).Select(i => (Index: i, Clients: new LoadSegment(i, count).UsersOf(plan.Clients))).Where(s => s.Clients > 0).ToList();
        var starting = shares.Select(s => StreamingClientsProcess.StartAsync(
            plan with { Clients = s.Clients, ConnectIntervalMs = plan.ConnectIntervalMs * count }, pinning.ClientCpusOf(s.Index), reading => group.Take(s.Index, reading), cancellationToken)).ToList();
        try
        {
            group._processes = await Task.WhenAll(starting);
            return group;
        }
        catch
        {
            foreach (var started in starting.Where(t => t.IsCompletedSuccessfully))
            {
                await started.Result.DisposeAsync();
            }
            throw;
        }
    }

    /// <summary>Stops every process (SIGTERM) and adds up their final reports.</summary>
    public async Task<StreamingClientsReading> StopAsync(CancellationToken cancellationToken) =>
        Sum(await Task.WhenAll(_processes.Select(process => process.StopAsync(cancellationToken))))!;

    public async ValueTask DisposeAsync()
    {
        foreach (var process in _processes)
        {
            await process.DisposeAsync();
        }
    }

    /// <summary>
    /// Reports of processes that ran side by side as one: counts, lateness buckets and CPU time added, processors added,
    /// the longest elapsed time, final when all are; null for none.
    /// </summary>
    public static StreamingClientsReading? Sum(IReadOnlyList<StreamingClientsReading> readings) => readings.Count switch
    {
        0 => null,
        1 => readings[0],
        _ => new StreamingClientsReading(
            readings.Max(r => r.ElapsedSeconds),
            readings.Sum(r => r.Connected),
            readings.Sum(r => r.Delivered),
            readings.Sum(r => r.Lost),
            readings.Sum(r => r.Corrupt),
            readings.Sum(r => r.OutOfOrder),
            readings.Sum(r => r.ClosedByServer),
            readings.Sum(r => r.Failed),
            [.. readings.SelectMany(r => r.LatenessBuckets).GroupBy(b => b.Index).OrderBy(g => g.Key).Select(g => new LatenessBucket(g.Key, g.Sum(b => b.Count)))],
            readings.Sum(r => r.CpuTimeMs),
            readings.Sum(r => r.ProcessorCount),
            readings.All(r => r.Final)),
    };

    /// <summary>Process <paramref name="index"/>'s newest report: the group's sum goes to the reading callback, outside the group's lock.</summary>
    internal void Take(int index, StreamingClientsReading reading)
    {
        lock (_gate)
        {
            _latest[index] = reading;
            if (_onReading is { } onReading)
            {
                var sum = Sum([.. _latest.OfType<StreamingClientsReading>()])!;
                _delivery.Post(() => onReading(sum));
            }
        }
        _delivery.Run();
    }
}
