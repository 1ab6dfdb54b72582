using System.Globalization;
using System.Net;
using System.Net.Sockets;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>What one agent did in one variant: its intervals in order, its done line, or the fault that ended it.</summary>
public sealed record AgentOutcome(int Index, string Host, IReadOnlyList<AgentInterval> Intervals, AgentDone? Done, string? Fault);

/// <summary>
/// The coordinator: listens for <see cref="Count"/> agents, takes each one's hello (same version, a free index), and per
/// variant hands every agent its share, waits for all at the start barrier (up to <see cref="BarrierDeadline"/>), releases
/// them at once and collects their intervals until each says done, dies or goes silent. An agent that misses the
/// barrier, dies or falls behind is named in its <see cref="AgentOutcome.Fault"/>; every other agent's data is kept.
/// </summary>
public sealed class AgentCoordinator : IDisposable
{
    private readonly TcpListener _listener;
    private readonly string _version;
    private readonly TextWriter _console;
    private readonly AgentLink?[] _links;
    private readonly string[] _hosts;
    private readonly string?[] _absentBecause;

    private AgentCoordinator(TcpListener listener, int count, string version, TextWriter console)
    {
        _listener = listener;
        _version = version;
        _console = console;
        _links = new AgentLink?[count];
        _hosts = new string[count];
        _absentBecause = new string?[count];
    }

    public int Count => _links.Length;

    /// <summary>Where agents connect: tcp://address:port (the bound port when 0 was asked for).</summary>
    public Uri Address => new(string.Create(CultureInfo.InvariantCulture, $"tcp://{_listener.LocalEndpoint}"));

    /// <summary>How long the coordinator waits for registration and for every agent at the start barrier.</summary>
    public TimeSpan BarrierDeadline { get; set; } = TimeSpan.FromSeconds(60);

    /// <summary>Told of each interval as it arrives (on the agent's reading task, after the merge took it), for the per-agent console lines.</summary>
    public Action<AgentInterval>? IntervalReceived { get; set; }

    /// <summary>The longest an agent may stay silent while it runs (a multiple of the reporting interval, at least this).</summary>
    public TimeSpan SilenceLimit { get; init; } = TimeSpan.FromSeconds(30);

    public static AgentCoordinator Listen(IPEndPoint endpoint, int count, TextWriter console, string? version = null)
    {
        var listener = new TcpListener(endpoint);
        listener.Start();
        return new AgentCoordinator(listener, count, version ?? AgentWire.Version, console);
    }

    /// <summary>
    /// Why an agent's hello is refused (another version, an index out of range or taken); null when it is taken. An agent
    /// without an index (-1, a compose replica) gets the first free one.
    /// </summary>
    public static string? Refusal(AgentHello hello, string version, IReadOnlyList<bool> taken)
    {
        if (hello.Version != version)
        {
            return $"agent version {hello.Version} differs from the coordinator's {version}; run the same runner build on both sides";
        }
        if (hello.Index >= taken.Count || hello.Index < -1)
        {
            return string.Create(CultureInfo.InvariantCulture, $"agent index {hello.Index} is outside 0..{taken.Count - 1} (the coordinator waits for {taken.Count} agents)");
        }
        if (hello.Index >= 0 && taken[hello.Index])
        {
            return string.Create(CultureInfo.InvariantCulture, $"agent index {hello.Index} is already registered");
        }
        return hello.Index == -1 && taken.All(t => t) ? string.Create(CultureInfo.InvariantCulture, $"all {taken.Count} agent places are taken") : null;
    }

    /// <summary>Accepts agents until all have registered or the deadline passed; the absent ones are named in every variant's outcome.</summary>
    public async Task WaitForAgentsAsync(CancellationToken cancellationToken)
    {
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(BarrierDeadline);
        try
        {
            while (_links.Any(l => l is null))
            {
                var client = await _listener.AcceptTcpClientAsync(deadline.Token);
                var link = new AgentLink(client);
                if (await link.ReceiveAsync(deadline.Token) is not AgentHello hello)
                {
                    link.Dispose();
                    continue;
                }
                if (Refusal(hello, _version, [.. _links.Select(l => l is not null)]) is { } reason)
                {
                    await _console.WriteLineAsync($"agents: refused {link.Peer}: {reason}");
                    link.Send(new AgentRefused(reason));
                    link.Dispose();
                    continue;
                }
                var index = hello.Index >= 0 ? hello.Index : Array.FindIndex(_links, l => l is null);
                _links[index] = link;
                _hosts[index] = hello.Host;
                await _console.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"agents: {index} registered from {hello.Host} ({link.Peer}, {hello.ProcessorCount} cpus)"));
            }
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            for (var i = 0; i < _links.Length; i++)
            {
                _absentBecause[i] = _links[i] is null ? $"did not register within {BarrierDeadline.TotalSeconds:0} s" : null;
            }
            await _console.WriteLineAsync($"agents: {string.Join(", ", Absent())} did not register within {BarrierDeadline.TotalSeconds:0} s; the run goes on without them and fails");
        }
    }

    /// <summary>
    /// One variant on every registered agent: assignments, the start barrier, then each agent's intervals until it is
    /// done, each handed to <paramref name="merge"/> as it arrives (and each agent's end, so the merge waits for no one gone).
    /// </summary>
    /// <param name="released">Told the moment the barrier is released (the coordinator's clock for the variant's telemetry).</param>
    public async Task<IReadOnlyList<AgentOutcome>> RunVariantAsync(Func<LoadSegment, AgentAssignment> assignmentFor, Action released, AgentMerge merge, CancellationToken cancellationToken)
    {
        var arrived = await Task.WhenAll(_links.Select((link, i) => ArriveAsync(i, link, assignmentFor(new LoadSegment(i, Count)), cancellationToken)));
        for (var i = 0; i < Count; i++)
        {
            if (arrived[i] is null)
            {
                merge.Ended(i, _absentBecause[i]);
            }
        }
        released();
        foreach (var index in arrived.OfType<int>())
        {
            _links[index]!.Send(new AgentStart());
        }
        await _console.WriteLineAsync($"agents: released {arrived.OfType<int>().Count()} of {Count} at once");
        var interval = assignmentFor(LoadSegment.Whole).ReportingIntervalSeconds;
        return await Task.WhenAll(_links.Select((link, i) => arrived[i] is null
            ? Task.FromResult(new AgentOutcome(i, _hosts[i] ?? "?", [], null, _absentBecause[i]))
            : CollectAsync(i, link!, interval, merge, cancellationToken)));
    }

    /// <summary>Tells every agent still connected that there is nothing more to run.</summary>
    public void Finish()
    {
        foreach (var link in _links.OfType<AgentLink>())
        {
            try
            {
                link.Send(new AgentFinish());
            }
            catch (IOException)
            {
                // That agent is gone already; its fault was reported with the variant it died in.
            }
        }
    }

    public void Dispose()
    {
        foreach (var link in _links.OfType<AgentLink>())
        {
            link.Dispose();
        }
        _listener.Stop();
        _listener.Dispose();
    }

    private IEnumerable<string> Absent() => _absentBecause.Select((why, i) => (why, i)).Where(a => a.why is not null).Select(a => a.i.ToString(CultureInfo.InvariantCulture));

    /// <summary>Sends the assignment and waits for the agent's ready line; the index when it arrived in time, else null (and the agent is dropped).</summary>
    private async Task<int?> ArriveAsync(int index, AgentLink? link, AgentAssignment assignment, CancellationToken cancellationToken)
    {
        if (link is null)
        {
            return null;
        }
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(BarrierDeadline);
        try
        {
            link.Send(assignment);
            if (await link.ReceiveAsync(deadline.Token) is AgentReady)
            {
                return index;
            }
            Drop(index, "closed its connection before the start barrier");
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            Drop(index, $"missed the start barrier's deadline ({BarrierDeadline.TotalSeconds:0} s)");
        }
        catch (IOException e)
        {
            Drop(index, $"lost before the start barrier ({e.Message})");
        }
        return null;
    }

    private async Task<AgentOutcome> CollectAsync(int index, AgentLink link, double intervalSeconds, AgentMerge merge, CancellationToken cancellationToken)
    {
        var intervals = new List<AgentInterval>();
        var silence = TimeSpan.FromSeconds(Math.Max(SilenceLimit.TotalSeconds, 3 * intervalSeconds));
        while (true)
        {
            using var quiet = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            quiet.CancelAfter(silence);
            AgentMessage? message;
            try
            {
                message = await link.ReceiveAsync(quiet.Token);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                return Ended($"fell behind: sent nothing for {silence.TotalSeconds:0} s after interval {intervals.Count}");
            }
            switch (message)
            {
                case AgentInterval row:
                    intervals.Add(row);
                    merge.Received(row);
                    IntervalReceived?.Invoke(row);
                    break;
                case AgentDone done:
                    var behind = done.NotSent > 0
                        ? string.Create(CultureInfo.InvariantCulture, $"fell behind its share: {done.NotSent} arrivals found no free slot and were not sent")
                        : null;
                    merge.Ended(index, behind);
                    return new AgentOutcome(index, _hosts[index], intervals, done, behind);
                case null:
                    return Ended(string.Create(CultureInfo.InvariantCulture,
                        $"died mid-run after {CountText.Of(intervals.Count, "interval")} (t = {intervals.LastOrDefault()?.ElapsedSeconds ?? 0:0.0} s); its own log holds what it measured"));
                case var other:
                    return Ended($"sent an unexpected {other.GetType().Name} while running");
            }
        }

        AgentOutcome Ended(string fault)
        {
            Drop(index, fault);
            merge.Ended(index, fault);
            return new AgentOutcome(index, _hosts[index], intervals, null, fault);
        }
    }

    private void Drop(int index, string why)
    {
        _links[index]?.Dispose();
        _links[index] = null;
        _absentBecause[index] = why;
        _console.WriteLine($"agents: agent {index} {why}");
    }
}
