using System.Diagnostics;
using ConcurrencySandbox.Contracts.Streaming;

namespace ConcurrencySandbox.LoadTests.Experiments.Streaming;

/// <summary>One reading of the streaming server's process, taken from outside it: the API's own answer and when it came.</summary>
internal sealed record StreamingSample(double ElapsedSeconds, StreamingServerCounters Server, StreamingProcessFigures Process);

/// <summary>
/// The shape of one run: seed 001 was 50 clients, 15 ms apart, 128 B every 100 ms, for 5 minutes. After the clients
/// leave, the warm, idle server is read for <paramref name="Idle"/>: what the process allocates and burns with no
/// client (its own telemetry, these readings) is subtracted from the per-message figures.
/// </summary>
internal sealed record StreamingLoad(int Clients, int ConnectIntervalMs, int MessageBytes, int IntervalMs, TimeSpan Duration, TimeSpan Idle)
{
    public static StreamingLoad Seed001Shape { get; } = new(50, 15, 128, 100, TimeSpan.FromMinutes(5), TimeSpan.FromSeconds(10));

    public double MessagesPerSecond => Clients * 1000.0 / IntervalMs;
}

/// <summary>
/// Runs the validating clients (a <c>streaming-clients</c> process of their own, or one per local agent) against a streaming server in another
/// process for the load's duration, reading that process as little as its figures need, and sums up what both sides saw.
/// </summary>
internal static class StreamingRun
{
    /// <summary>Seconds to wait at most for the server to drop every client before the idle readings.</summary>
    private const int MaxTeardownTicks = 10;

    /// <summary>How often the steady state reads the server for its heap, working set and thread series (means and peaks).</summary>
    public static readonly TimeSpan SeriesInterval = TimeSpan.FromSeconds(10);

    /// <summary>How often the client process reports what its clients saw.</summary>
    public static readonly TimeSpan ClientsReportInterval = TimeSpan.FromMilliseconds(500);

    /// <summary>How long the client process may outlive the run it was started for before it stops by itself.</summary>
    public static readonly TimeSpan ClientsHangGuard = TimeSpan.FromMinutes(2);

    public static async Task<StreamingResult> RunAsync(
        int port,
        StreamingLoad load,
        StreamingPinning pinning,
        ReadServer readAsync,
        Action<StreamingClientsReading>? onReading,
        CancellationToken cancellationToken)
    {
        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(1));
        var plan = new StreamingClientsPlan(port, load.Clients, load.ConnectIntervalMs, load.Duration + ClientsHangGuard, ClientsReportInterval, Environment.ProcessId);
        StreamingClientsReading clients;
        List<StreamingSample> samples;
        await using (var process = await StreamingClientGroup.StartAsync(plan, pinning, onReading, cancellationToken))
        {
            samples = await SampleAsync(timer, load.Duration, load.Clients, SeriesInterval, readAsync, cancellationToken);
            clients = await process.StopAsync(cancellationToken);
        }

        // Let the server notice the clients are gone, and finish tearing their connections down (a failed send per
        // connection, its exception and its buffers), before the idle readings start: that garbage is not idle.
        for (var tick = 0; tick < MaxTeardownTicks && await timer.WaitForNextTickAsync(cancellationToken); tick++)
        {
            if ((await readAsync(false, cancellationToken)).Server.ConnectedClients == 0)
            {
                await timer.WaitForNextTickAsync(cancellationToken);
                break;
            }
        }

        // The idle rate is a difference of the window's first and last readings: none in between.
        var idle = await SampleAsync(timer, load.Idle, steadyClients: null, TimeSpan.MaxValue, readAsync, cancellationToken);
        return new StreamingResult(load, idle, samples, clients);
    }

    /// <summary>
    /// Reads the server during a window of <paramref name="duration"/>: at once, at every tick until the steady state
    /// starts (the first reading with <paramref name="steadyClients"/> connected), then once per
    /// <paramref name="seriesInterval"/> for the heap, working set and thread series, and at the window's end. Every
    /// reading is garbage in the process measured (about 3 KB, ASP.NET Core's request and JSON path), so the window
    /// reads no more than its figures use. Only the readings the steady-state lateness uses carry the histogram's
    /// buckets (up to about 16 KB more each): those until the steady state starts, and the last. With
    /// <paramref name="steadyClients"/> null (the idle window) none does.
    /// </summary>
    internal static async Task<List<StreamingSample>> SampleAsync(
        PeriodicTimer timer, TimeSpan duration, int? steadyClients, TimeSpan seriesInterval, ReadServer readAsync, CancellationToken cancellationToken)
    {
        var samples = new List<StreamingSample>();
        var clock = Stopwatch.StartNew();
        var steadyStarted = steadyClients is null;
        var previous = TimeSpan.Zero;
        for (var first = true; ; first = false)
        {
            var now = clock.Elapsed;
            var last = now >= duration;
            if (first || last || !steadyStarted || now - previous >= seriesInterval)
            {
                var (server, process) = await readAsync(steadyClients is not null && (!steadyStarted || last), cancellationToken);
                samples.Add(new StreamingSample(clock.Elapsed.TotalSeconds, server, process));
                steadyStarted |= server.ConnectedClients >= steadyClients;
                previous = now;
            }

            if (last || !await timer.WaitForNextTickAsync(cancellationToken))
            {
                return samples;
            }
        }
    }
}

/// <summary>One reading of the streaming server and its process, with the lateness histogram's buckets or without them.</summary>
internal delegate Task<(StreamingServerCounters Server, StreamingProcessFigures Process)> ReadServer(bool withLatenessBuckets, CancellationToken cancellationToken);

/// <summary>Everything one variant's run measured, and the figures derived from it.</summary>
/// <param name="Idle">Readings of the warm server after the clients left.</param>
/// <param name="Clients">The client process's final report: what every client saw, and what the process cost.</param>
internal sealed record StreamingResult(StreamingLoad Load, IReadOnlyList<StreamingSample> Idle, IReadOnlyList<StreamingSample> Samples, StreamingClientsReading Clients)
{
    /// <summary>The client process's CPU over its life, in % of one core: the load generator's own share of the machine.</summary>
    public double ClientCpuPercentOfCore => Clients.ElapsedSeconds <= 0 ? 0 : Clients.CpuTimeMs / (Clients.ElapsedSeconds * 1000) * 100;

    /// <summary>The client process's CPU per message delivered to it.</summary>
    public double ClientCpuMicrosecondsPerMessage => Clients.Delivered == 0 ? 0 : Clients.CpuTimeMs * 1000 / Clients.Delivered;

    /// <summary>
    /// The samples from the first one with every client connected to the end (all of them if that never happened):
    /// per-message figures leave out the start-up and the connecting.
    /// </summary>
    public IReadOnlyList<StreamingSample> Steady
    {
        get
        {
            var first = Samples.ToList().FindIndex(sample => sample.Server.ConnectedClients >= Load.Clients);
            return first < 0 || Samples.Count - first < 2 ? Samples : Samples.Skip(first).ToList();
        }
    }

    public long MessagesInSteadyState => Steady.Count < 2 ? 0 : Steady[^1].Server.MessagesSent - Steady[0].Server.MessagesSent;

    /// <summary>Everything the process allocated in the steady state over the messages sent.</summary>
    public double AllocatedBytesPerMessage => PerMessage(sample => sample.Process.AllocatedBytes);

    /// <summary>The same, less what the idle process allocated in as much time: the streaming's own cost.</summary>
    public double NetAllocatedBytesPerMessage => NetPerMessage(sample => sample.Process.AllocatedBytes);

    /// <summary>What the server's ticking thread allocated per message: the implementation's own garbage, without the process's noise.</summary>
    public double TickerAllocatedBytesPerMessage => PerMessage(sample => sample.Server.TickerAllocatedBytes);

    public double CpuMicrosecondsPerMessage => PerMessage(sample => sample.Process.CpuTimeMs * 1000);

    public double NetCpuMicrosecondsPerMessage => NetPerMessage(sample => sample.Process.CpuTimeMs * 1000);

    public int Gen0Collections => Delta(sample => sample.Process.Gen0Collections);

    public int Gen1Collections => Delta(sample => sample.Process.Gen1Collections);

    public int Gen2Collections => Delta(sample => sample.Process.Gen2Collections);

    public double HeapMeanBytes => Steady.Count == 0 ? 0 : Steady.Average(sample => sample.Process.HeapSizeBytes);

    public long HeapPeakBytes => Steady.Count == 0 ? 0 : Steady.Max(sample => sample.Process.HeapSizeBytes);

    public double WorkingSetMeanBytes => Steady.Count == 0 ? 0 : Steady.Average(sample => sample.Process.WorkingSetBytes);

    public long WorkingSetPeakBytes => Steady.Count == 0 ? 0 : Steady.Max(sample => sample.Process.WorkingSetBytes);

    public double OsThreadsMean => Steady.Count == 0 ? 0 : Steady.Average(sample => sample.Process.OsThreads);

    public int OsThreadsPeak => Steady.Count == 0 ? 0 : Steady.Max(sample => sample.Process.OsThreads);

    /// <summary>The server's send lateness against schedule over the whole run, warm-up included.</summary>
    public double SendLatenessP99MsWholeRun => Samples.Count == 0 ? 0 : Samples[^1].Server.SendLatenessP99Ms;

    /// <summary>The server's send lateness against schedule in the steady state.</summary>
    public double SendLatenessP50Ms => SendLatenessMs(50);

    public double SendLatenessP99Ms => SendLatenessMs(99);

    public long DroppedSlowClients => Samples.Count == 0 ? 0 : Samples[^1].Server.DroppedSlowClients;

    /// <summary>
    /// The steady state cut at its readings into windows (those in which messages were sent), each with its own figures:
    /// the repeated measurements a claim's 95 % CI is taken over.
    /// </summary>
    public IReadOnlyList<double> Windows(Func<StreamingWindow, double> figure)
    {
        var steady = Steady;
        var idleAllocated = RatePerSecond(Idle, sample => sample.Process.AllocatedBytes);
        return [.. steady.Zip(steady.Skip(1), (from, to) => (from, to, messages: to.Server.MessagesSent - from.Server.MessagesSent))
            .Where(w => w.messages > 0 && w.to.ElapsedSeconds > w.from.ElapsedSeconds)
            .Select(w =>
            {
                var seconds = w.to.ElapsedSeconds - w.from.ElapsedSeconds;
                return figure(new StreamingWindow(
                    (w.to.Process.AllocatedBytes - w.from.Process.AllocatedBytes - idleAllocated * seconds) / w.messages,
                    (w.to.Process.CpuTimeMs - w.from.Process.CpuTimeMs) * 1000 / w.messages,
                    w.to.Process.HeapSizeBytes));
            })];
    }

    private double PerMessage(Func<StreamingSample, double> counter)
    {
        var messages = MessagesInSteadyState;
        return messages == 0 ? 0 : (counter(Steady[^1]) - counter(Steady[0])) / messages;
    }

    /// <summary>The send lateness below which <paramref name="percent"/> of the steady state's messages fell (0 without a steady window).</summary>
    public double SendLatenessMs(double percent) =>
        Steady.Count < 2 ? 0 : StreamingExperiment.LatenessPercentileMsBetween(Steady[0].Server, Steady[^1].Server, percent);

    private double NetPerMessage(Func<StreamingSample, double> counter)
    {
        var messages = MessagesInSteadyState;
        if (messages == 0)
        {
            return 0;
        }

        var idle = RatePerSecond(Idle, counter) * (Steady[^1].ElapsedSeconds - Steady[0].ElapsedSeconds);
        return (counter(Steady[^1]) - counter(Steady[0]) - idle) / messages;
    }

    private static double RatePerSecond(IReadOnlyList<StreamingSample> samples, Func<StreamingSample, double> counter)
    {
        var seconds = samples.Count < 2 ? 0 : samples[^1].ElapsedSeconds - samples[0].ElapsedSeconds;
        return seconds <= 0 ? 0 : (counter(samples[^1]) - counter(samples[0])) / seconds;
    }

    private int Delta(Func<StreamingSample, int> counter) => Steady.Count < 2 ? 0 : counter(Steady[^1]) - counter(Steady[0]);
}

/// <summary>One window of the steady state, between two readings: bytes per message net of the idle process's rate, CPU per message all in, and the heap at its end.</summary>
internal sealed record StreamingWindow(double NetAllocatedBytesPerMessage, double CpuMicrosecondsPerMessage, double HeapBytes);
