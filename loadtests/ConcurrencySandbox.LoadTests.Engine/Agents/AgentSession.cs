using System.Diagnostics;
using System.Net.Sockets;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// A load agent: connects to its coordinator, says hello, and for each assignment builds its share of the load, waits
/// at the start barrier, runs, and streams each interval's encoded histogram, outcome counts and CPU use. Every interval
/// also goes into the agent's own HdrHistogram log on disk (<c>&lt;variant&gt;-agent-&lt;index&gt;.hlog</c>), so a
/// coordinator that dies loses nothing.
/// </summary>
public sealed class AgentSession(Uri coordinator, int index, string logFolder, TextWriter console)
{
    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(60);

    /// <summary>How the agent reaches the API; tests pass their own.</summary>
    public Func<Uri, TimeSpan, IHttpLoadClient> ClientFor { get; init; } = HttpLoadClient.For;

    /// <summary>Runs assignments until the coordinator says finish (0) or refuses this agent (2); throws when the coordinator goes away.</summary>
    public async Task<int> RunAsync(CancellationToken cancellationToken)
    {
        using var link = new AgentLink(await ConnectAsync(cancellationToken));
        link.Send(new AgentHello(index, AgentWire.Version, Environment.MachineName, Environment.ProcessorCount));
        while (true)
        {
            switch (await link.ReceiveAsync(cancellationToken))
            {
                case AgentAssignment assignment:
                    await RunAssignmentAsync(link, assignment, cancellationToken);
                    break;
                case AgentFinish:
                    return 0;
                case AgentRefused refused:
                    await console.WriteLineAsync($"error: the coordinator refused agent {index}: {refused.Reason}");
                    return 2;
                case null:
                    throw new IOException($"the coordinator at {coordinator} closed the connection; this agent's histogram logs are in {Path.GetFullPath(logFolder)}");
                case var other:
                    throw new FormatException($"unexpected {other.GetType().Name} from the coordinator");
            }
        }
    }

    private async Task<TcpClient> ConnectAsync(CancellationToken cancellationToken)
    {
        // In a Job or a compose scale-out the coordinator may start after its agents: retry until it listens.
        var deadline = Stopwatch.GetTimestamp() + (long)(ConnectTimeout.TotalSeconds * Stopwatch.Frequency);
        while (true)
        {
            var client = new TcpClient();
            try
            {
                await client.ConnectAsync(coordinator.Host, coordinator.Port, cancellationToken);
                return client;
            }
            catch (SocketException) when (Stopwatch.GetTimestamp() < deadline)
            {
                client.Dispose();
                await Task.Delay(TimeSpan.FromMilliseconds(500), cancellationToken);
            }
        }
    }

    private async Task RunAssignmentAsync(AgentLink link, AgentAssignment assignment, CancellationToken cancellationToken)
    {
        var shape = AgentWire.ShapeOf(assignment);
        var segment = new LoadSegment(assignment.Index, assignment.Count);
        var load = new LoadOptions(shape, "agent", TimeSpan.FromSeconds(assignment.RequestTimeoutSeconds), assignment.MaxInFlight);
        var workload = IWorkload.Of(shape, load.MaxInFlight, segment);
        var whole = IWorkload.Of(shape, load.MaxInFlight);
        using var http = ClientFor(new Uri(assignment.BaseAddress), load.RequestTimeout);
        var send = http.Get(assignment.Request);
        Directory.CreateDirectory(logFolder);
        await using var log = File.Create(Path.Combine(logFolder, $"{Safe(assignment.Variant)}-agent-{index}.hlog"));
        // The header now; each interval is appended as it is taken.
        using var intervalLog = new IntervalLog(log, DateTime.UtcNow);

        link.Send(new AgentReady(index));
        switch (await link.ReceiveAsync(cancellationToken))
        {
            case AgentStart:
                break;
            case null:
                throw new IOException($"the coordinator at {coordinator} closed the connection at the start barrier");
            case var other:
                throw new FormatException($"expected start, got {other.GetType().Name}");
        }
        await console.WriteLineAsync($"agent {index}: released; {segment} of {load.Describe()} on {assignment.BaseAddress.TrimEnd('/')}{assignment.Request}");
        // One unmeasured request after the release, as the single runner's ramp makes before it measures.
        await send(cancellationToken);
        var process = Process.GetCurrentProcess();
        var cpuAtStart = process.TotalProcessorTime;
        var sequence = 0;
        // Set by the recorder as it takes each interval, just before the interval's row is reported (its histograms are
        // reused at the next take), with the interval's histogram encoded once for the log and the coordinator.
        TakenInterval? taken = null;
        var encoded = "";
        var result = await VariantRunner.RunAsync(new VariantKey(assignment.Variant), assignment.Request, workload, send, shape.ReportingInterval, null, IVariantProgress.OfIntervals(row =>
        {
            link.Send(AgentWire.IntervalOf(index, sequence++, row, CpuSeconds(), taken!, encoded));
        }), cancellationToken, intervalTaken: interval =>
        {
            encoded = HistogramWire.Encode(interval.Histogram);
            intervalLog.Append(interval.Histogram, encoded);
            taken = interval;
        }, steppedBy: whole);
        // Stopped: the coordinator stops too and keeps what it merged; an agent sends no partial result.
        cancellationToken.ThrowIfCancellationRequested();
        link.Send(new AgentDone(index, result.ElapsedSeconds, CpuSeconds(), Environment.ProcessorCount, (workload as OpenModel)?.NotSent ?? 0,
            [.. result.Failures.Select(f => new AgentFailureCount(f.What, f.Count))],
            [.. result.Sent.Select(s => new AgentSentSlice(s.FromSeconds, s.Completed, s.CompletedSumMs, s.TimedOut, s.TimedOutSumMs, s.ConnectionErrors))]));
        await console.WriteLineAsync($"agent {index}: {assignment.Variant} done, {result.Total.Requests} requests in {result.ElapsedSeconds:0.0} s");

        double CpuSeconds()
        {
            process.Refresh();
            return (process.TotalProcessorTime - cpuAtStart).TotalSeconds;
        }
    }

    private static string Safe(string name) => string.Concat(name.Select(c => char.IsLetterOrDigit(c) || c is '-' or '_' ? c : '_'));
}
