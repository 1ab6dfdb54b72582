using System.Collections.Concurrent;
using System.CommandLine;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.Experiments.Streaming;
using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.ApiClient;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Experiments.Streaming;

/// <summary>
/// Seed 001: the same stream (N clients connecting some ms apart, one message each per interval) from a fresh API per
/// server implementation (<c>Streaming__Implementation</c>). The clients run in a process of their own
/// (<see cref="StreamingClientsCommand"/>), pinned apart from the server when the machine has the cpus
/// (<see cref="StreamingPinning"/>), and check every message; the API process is what is measured, through
/// <c>GET /api/streaming</c> at the windows' boundaries and a few times between (<see cref="StreamingRun.SampleAsync"/>).
/// </summary>
internal sealed class StreamingExperiment(StreamingLoad load, StreamingPinning pinning) : Experiment
{
    /// <summary>The pooled variants should allocate at most this share of allocating's bytes per message.</summary>
    public const double PooledAllocationShare = 0.1;

    public const double LatenessP99LimitMs = 20;

    private static readonly StreamingLoad SeedShape = StreamingLoad.Seed001Shape;
    private static readonly RequestOutcome NotIntact = RequestOutcome.Failed("frame lost, corrupt or out of order");
    private static readonly TimeSpan StatusTimeout = TimeSpan.FromSeconds(30);

    private static readonly Option<int> ClientsOption = new("--clients") { Description = "streaming: TCP clients per variant.", DefaultValueFactory = _ => SeedShape.Clients };
    private static readonly Option<int> ConnectIntervalMsOption = new("--connect-interval-ms") { Description = "streaming: milliseconds between two clients connecting.", DefaultValueFactory = _ => SeedShape.ConnectIntervalMs };
    private static readonly Option<int> MessageBytesOption = new("--message-bytes") { Description = "streaming: payload bytes per message (1..65536).", DefaultValueFactory = _ => SeedShape.MessageBytes };
    private static readonly Option<int> IntervalMsOption = new("--interval-ms") { Description = "streaming: each client gets one message per this many milliseconds.", DefaultValueFactory = _ => SeedShape.IntervalMs };

    public static readonly ExperimentDefinition Definition = new(
        "streaming", [ClientsOption, ConnectIntervalMsOption, MessageBytesOption, IntervalMsOption, .. StreamingPinning.Options, .. StreamingCapacity.Options], Create)
    {
        Description = "Seed 001 (Sockets and Bockets 4, 2011): 128 B every 100 ms to many TCP clients from a server that allocates per message vs one that pools.",
    };

    /// <summary>What each variant's run measured, by variant name, for the figures and the verdict.</summary>
    private readonly ConcurrentDictionary<string, StreamingResult> _results = new();

    public override string Name => Definition.Name;

    public override string Seed => "001";

    public override bool NeedsFreshApi => true;

    public override ReportWords Words => ReportWords.Messages;
    /// <summary>Why the starvation diagnosis does not fit seed 001's load (see <see cref="Experiment.DiagnosisDoesNotApplyBecause"/>).</summary>
    internal const string PushStreamIsNoRequestResponse =
        "the starvation diagnosis does not apply to a TCP push stream: the server sends to connected clients on its own timer, no request waits in the pool's queue for a thread to answer it, so Little's law (requests in flight x threads each holds) sizes nothing and raising ThreadPool__MinWorkerThreads is no fix; whether the server keeps up is its send lateness and lost messages, above.";

    public override string? DiagnosisDoesNotApplyBecause => PushStreamIsNoRequestResponse;

    public override string? RuntimeReadAfterwardsBecause =>
        "streaming measures the API's own allocations, which a live reader adds to: the observer's EventCounters, a telemetry request every second";

    public override IReadOnlyList<Variant> Variants => [.. StreamingImplementations.Names.Select(VariantOf)];

    /// <summary>Bytes allocated per message, the heap (with seed 001's "half the heap" beside: half of the allocating variant's), gen0 collections and CPU per message per variant.</summary>
    public override IReadOnlyList<EvidenceChart> EvidenceOf(IReadOnlyList<VariantResult> results)
    {
        var allocatingHeap = results.FirstOrDefault(r => r.Key.Name == "allocating")?.Figures.FirstOrDefault(f => f.Name == "heap mean")?.Value;
        return
        [
            .. new[]
            {
                EvidenceChart.OfFigure("Bytes allocated per message, net of idle", "allocated per message, net of idle", results, []),
                EvidenceChart.OfFigure("Mean heap while streaming", "heap mean", results,
                    allocatingHeap is > 0 ? [new EvidenceValue("seed 001: pooling halves the heap (half of allocating's)", allocatingHeap.Value / 2)] : []),
                EvidenceChart.OfFigure("Gen0 collections during the run", "gen0 collections", results, []),
                EvidenceChart.OfFigure("CPU per message, net of idle", "CPU per message, net of idle", results, []),
                Lateness(results),
            }.OfType<EvidenceChart>(),
        ];
    }

    /// <summary>The percentiles the lateness distribution is drawn at (100 % has no place on a "nines" axis).</summary>
    private static readonly double[] LatenessPercents = [50, 75, 90, 95, 99, 99.9, 99.99];

    /// <summary>How late the server sent its messages in the steady state, per variant, from the status's lateness histogram; null when no variant ran.</summary>
    private EvidenceChart? Lateness(IReadOnlyList<VariantResult> results) =>
        LatenessChart([.. results.Where(r => _results.ContainsKey(r.Key.Name)).Select(r => (r.Key.Label, _results[r.Key.Name]))]);

    /// <summary>The lateness distribution chart of the variants' runs, by label; null when there are none.</summary>
    internal static EvidenceChart? LatenessChart(IReadOnlyList<(string Label, StreamingResult Result)> runs) =>
        runs.Count == 0 ? null : new EvidenceChart("Send lateness of the steady state's messages (server histogram, 0.1 ms buckets)", "messages", [], [],
            [.. runs.Select(run => new EvidenceDistribution(run.Label, [.. LatenessPercents.Select(p => new PercentilePoint(p, run.Result.SendLatenessMs(p)))]))]);

    public override IReadOnlyList<VariantFigure> FiguresOf(VariantResult result)
    {
        if (!_results.TryGetValue(result.Key.Name, out var r))
        {
            return [];
        }

        return
        [
            new("messages delivered", r.Clients.Delivered, "messages"),
            new("lost / corrupt / out of order", r.Clients.Lost + r.Clients.Corrupt + r.Clients.OutOfOrder, "messages"),
            new("slow clients dropped", r.DroppedSlowClients, "clients"),
            new("send lateness p50 (steady)", r.SendLatenessP50Ms, "ms"),
            new("send lateness p99 (steady)", r.SendLatenessP99Ms, "ms"),
            new("send lateness p99 (whole run)", r.SendLatenessP99MsWholeRun, "ms"),
            new("allocated per message, net of idle", r.NetAllocatedBytesPerMessage, "B"),
            new("allocated per message, all in", r.AllocatedBytesPerMessage, "B"),
            new("allocated per message by the ticking thread", r.TickerAllocatedBytesPerMessage, "B"),
            new("gen0 collections", r.Gen0Collections, ""),
            new("gen1 collections", r.Gen1Collections, ""),
            new("gen2 collections", r.Gen2Collections, ""),
            new("heap mean", r.HeapMeanBytes / 1e6, "MB"),
            new("heap peak", r.HeapPeakBytes / 1e6, "MB"),
            new("working set mean", r.WorkingSetMeanBytes / 1e6, "MB"),
            new("working set peak", r.WorkingSetPeakBytes / 1e6, "MB"),
            new("OS threads mean", r.OsThreadsMean, ""),
            new("OS threads peak", r.OsThreadsPeak, ""),
            new("CPU per message, net of idle", r.NetCpuMicrosecondsPerMessage, "µs"),
            new("CPU per message, all in", r.CpuMicrosecondsPerMessage, "µs"),
            new("client process CPU", r.ClientCpuPercentOfCore, "% of a core"),
            new("client process CPU per message", r.ClientCpuMicrosecondsPerMessage, "µs"),
        ];
    }

    public override Finding Assess(IReadOnlyList<VariantResult> results)
    {
        var measured = results.Where(r => _results.ContainsKey(r.Key.Name)).ToDictionary(r => r.Key.Name, r => _results[r.Key.Name]);
        if (!measured.TryGetValue(StreamingImplementations.NameOf(StreamingImplementation.Allocating), out var allocating) || allocating.NetAllocatedBytesPerMessage <= 0)
        {
            return Finding.NotAssessed("the allocating variant needs messages sent in its steady state (all clients connected).");
        }

        var pooled = measured.Where(m => m.Value != allocating).ToList();
        if (pooled.Count == 0)
        {
            return Finding.NotAssessed("no pooled variant ran.");
        }

        var claims = StreamingClaims.Judge(allocating, [.. pooled.Select(p => (p.Key, p.Value))]);
        // The claims' own figures in the seed table, so the page quotes one figure per claim.
        string Today(string claim) => claims.First(c => c.What == claim) is var c ? $"{c.Figure} {c.Interval}" : "";
        List<SeedComparison> comparisons =
        [
            new("garbage, pooled / allocation-heavy (bytes per message, net of idle)", $"{Seed001Figures.AllocationsRemoved:N0} allocations, {Seed001Figures.AllocationsRemovedShareOfGarbage * 100:0} % of all garbage, removed",
                $"{Today("garbage gone")}; whole steady state: " + Each(pooled, p => $"{p.Key} {Noise.Amount(p.Value.NetAllocatedBytesPerMessage, "B", "0.#")} vs {allocating.NetAllocatedBytesPerMessage:0.#} B; on the ticking thread {p.Value.TickerAllocatedBytesPerMessage:0.#} B vs {allocating.TickerAllocatedBytesPerMessage:0.#} B")),
            new("heap, pooled / allocation-heavy", $"about {Seed001Figures.PooledHeapShare * 100:0} % (\"around half the size\")",
                $"{Today("heap halved")}; steady means " + Each(pooled, p => $"{p.Key} {p.Value.HeapMeanBytes / 1e6:0.0} MB vs {allocating.HeapMeanBytes / 1e6:0.0} MB")),
            new("CPU, pooled / allocation-heavy (per message, all in)", "less",
                $"{Today("less CPU")}; whole steady state: " + Each(measured, m => $"{m.Key} {m.Value.CpuMicrosecondsPerMessage:0.#} µs all in, {Noise.Amount(m.Value.NetCpuMicrosecondsPerMessage, "µs", "0.#")} net of idle")),
            new("process memory saved by pooling", $"{Seed001Figures.ProcessMemorySavedMegabytes:0} MB",
                Each(pooled, p => $"{p.Key} {(allocating.WorkingSetMeanBytes - p.Value.WorkingSetMeanBytes) / 1e6:0.0} MB (working set mean {p.Value.WorkingSetMeanBytes / 1e6:0.0} vs {allocating.WorkingSetMeanBytes / 1e6:0.0} MB)")),
            new("threads, pooled vs allocation-heavy", "fewer", Each(measured, m => $"{m.Key} mean {m.Value.OsThreadsMean:0.#}, peak {m.Value.OsThreadsPeak}")),
            new($"send lateness p99 (steady), limit {LatenessP99LimitMs:0} ms", "not measured", Each(measured, m => $"{m.Key} {m.Value.SendLatenessP99Ms:0.#} ms")),
        ];
        var late = measured.Where(m => m.Value.SendLatenessP99Ms > LatenessP99LimitMs).Select(m => $"{m.Key} {m.Value.SendLatenessP99Ms:0.#} ms").ToList();
        var timing = late.Count == 0
            ? $"Every variant kept its steady send lateness p99 within {LatenessP99LimitMs:0} ms."
            : $"Behind schedule (steady send lateness p99 over {LatenessP99LimitMs:0} ms): {string.Join(", ", late)}.";
        return Finding.OfClaims(claims, comparisons, timing);
    }

    private static string Each<T>(IEnumerable<KeyValuePair<string, T>> items, Func<KeyValuePair<string, T>, string> describe) => string.Join("; ", items.Select(describe));

    /// <summary>The API's environment for one variant's server: a free port, the implementation and the load's shape.</summary>
    internal static Dictionary<string, string> ServerEnvironment(string implementation, StreamingLoad load) => new()
    {
        ["Streaming__Port"] = FreeLoopbackPort().ToString(CultureInfo.InvariantCulture),
        ["Streaming__Implementation"] = implementation,
        ["Streaming__MessageBytes"] = load.MessageBytes.ToString(CultureInfo.InvariantCulture),
        ["Streaming__IntervalMs"] = load.IntervalMs.ToString(CultureInfo.InvariantCulture),
        ["Streaming__MaxClients"] = load.Clients.ToString(CultureInfo.InvariantCulture),
    };

    /// <summary>The port the API's streaming server listens on; a <see cref="UsageException"/> when it runs none.</summary>
    internal static async Task<int> StreamingPortAsync(LoadContext context, CancellationToken cancellationToken)
    {
        var status = await context.Api.GetAsync<StreamingStatus>("/api/streaming", StatusTimeout, cancellationToken);
        return status is { Enabled: true, Port: { } port }
            ? port
            : throw new UsageException($"the API at {context.BaseAddress} runs no streaming server (GET /api/streaming says enabled=false)");
    }

    /// <summary>
    /// The streaming server's counters and its process's figures now, with the lateness histogram's buckets only when
    /// <paramref name="withLatenessBuckets"/> (they are the answer's largest part); a <see cref="UsageException"/> when it stopped.
    /// </summary>
    internal static async Task<(StreamingServerCounters Server, StreamingProcessFigures Process)> ReadServerAsync(
        SandboxClient api, bool withLatenessBuckets, CancellationToken cancellationToken)
    {
        var status = await api.GetAsync<StreamingStatus>(withLatenessBuckets ? "/api/streaming" : "/api/streaming?buckets=false", StatusTimeout, cancellationToken);
        return status is { Server: { } server, Process: { } process }
            ? (server, process)
            : throw new UsageException("the API's streaming server stopped during the run (GET /api/streaming says enabled=false)");
    }

    /// <summary>The send lateness below which <paramref name="percent"/> of the messages sent between two readings fell; both must carry the lateness buckets.</summary>
    internal static double LatenessPercentileMsBetween(StreamingServerCounters earlier, StreamingServerCounters later, double percent) =>
        LatenessHistogram.PercentileMsBetween(BucketsOf(earlier), BucketsOf(later), percent);

    private static IReadOnlyList<LatenessBucket> BucketsOf(StreamingServerCounters counters) =>
        counters.SendLatenessBuckets ?? throw new InvalidOperationException("a reading used for lateness percentiles was taken without its lateness buckets (buckets=false)");

    /// <summary>
    /// Replays each report of one client process into the curves: every frame delivered since its previous report is one
    /// "request" at its lateness bucket's edge, every frame lost, corrupt or out of order one failed "request".
    /// </summary>
    internal static Action<StreamingClientsReading> RecordInto(LatencyRecorder recorder)
    {
        var recorded = new Dictionary<int, long>();
        var notIntact = 0L;
        return reading =>
        {
            foreach (var bucket in reading.LatenessBuckets)
            {
                var latenessMs = LatenessHistogram.UpperEdgeMs(bucket.Index);
                for (var frame = recorded.GetValueOrDefault(bucket.Index); frame < bucket.Count; frame++)
                {
                    recorder.Record(latenessMs, RequestOutcome.Success);
                }

                recorded[bucket.Index] = bucket.Count;
            }

            for (; notIntact < reading.NotIntact; notIntact++)
            {
                recorder.Record(0, NotIntact);
            }
        };
    }

    private static Experiment Create(OptionValues values) =>
        values.Get(StreamingCapacity.FindCapacityOption)
            ? new StreamingCapacity(LoadOf(values), StreamingCapacity.RampOf(values), StreamingPinning.Of(values))
            : new StreamingExperiment(LoadOf(values), StreamingPinning.Of(values));

    private static StreamingLoad LoadOf(OptionValues values)
    {
        var messageBytes = values.Positive(MessageBytesOption);
        if (messageBytes > StreamProtocol.MaxMessageBytes)
        {
            throw new UsageException($"{MessageBytesOption.Name} must be from {StreamProtocol.MinMessageBytes} to {StreamProtocol.MaxMessageBytes}, got {messageBytes}");
        }

        var intervalMs = values.Positive(IntervalMsOption);
        if (intervalMs > 60_000)
        {
            throw new UsageException($"{IntervalMsOption.Name} must be from 1 to 60000, got {intervalMs}");
        }

        var connectIntervalMs = values.Get(ConnectIntervalMsOption);
        if (connectIntervalMs is < 0 or > 60_000)
        {
            throw new UsageException($"{ConnectIntervalMsOption.Name} must be from 0 to 60000, got {connectIntervalMs}");
        }

        // The duration comes from the profile (quick 60 s, seed001 5 min, smoke 3 s); the driver reads it from the load options.
        return new StreamingLoad(values.Positive(ClientsOption), connectIntervalMs, messageBytes, intervalMs, TimeSpan.Zero, TimeSpan.Zero);
    }

    private Variant VariantOf(string implementation) => new(
        implementation,
        new StreamingClients(load, pinning, result => _results[implementation] = result),
        ServerEnvironment(implementation, load)) { ServerCpus = pinning.Server };

    private static int FreeLoopbackPort()
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }

    /// <summary>
    /// The load: TCP clients in their own process on the port the API announces, for the profile's duration, then the idle
    /// process. Every message is one "request" of the curves: its latency is its arrival lateness, lost/corrupt/out-of-order ones fail.
    /// </summary>
    private sealed class StreamingClients(StreamingLoad load, StreamingPinning pinning, Action<StreamingResult> measured) : IOwnClientsDriver
    {
        public string Request => $"{load.Clients} TCP clients ({(pinning.Agents is { } agents ? $"{agents.Count} {StreamingClientsCommand.Name} processes, one per local agent" : $"a {StreamingClientsCommand.Name} process")}), {load.ConnectIntervalMs} ms apart, {load.MessageBytes} B every {load.IntervalMs} ms, on the port GET /api/streaming announces";

        public (string Profile, string Shape) Describe(LoadOptions options) =>
            (options.ProfileName, $"{load.Clients} clients {load.ConnectIntervalMs} ms apart, {load.MessageBytes} B every {load.IntervalMs} ms ({load.MessagesPerSecond:0} messages/s), {options.Shape.Duration.TotalSeconds:0} s, then {IdleOf(options.Shape.Duration).TotalSeconds:0} s idle; {pinning.Describe()}");

        public TimeSpan PlannedLength(LoadOptions options) => options.Shape.Duration + IdleOf(options.Shape.Duration);

        public async Task<VariantResult> RunAsync(LoadContext context, CancellationToken cancellationToken)
        {
            var port = await StreamingPortAsync(context, cancellationToken);
            var run = load with { Duration = context.Load.Shape.Duration, Idle = IdleOf(context.Load.Shape.Duration) };
            var workload = new Workload(run, port, pinning, context.Api, measured);
            return await VariantRunner.RunAsync(
                context.Key, Request, workload, _ => ValueTask.FromResult(RequestOutcome.Success), context.Load.Shape.ReportingInterval, context.Telemetry, context.Progress, cancellationToken, observed: context.Observed, telemetryLive: context.TelemetryLive);
        }

        public ILoadDriver OnLocalAgents(AgentPlan plan) => new StreamingClients(load, pinning.OnAgents(plan), measured);

        private static TimeSpan IdleOf(TimeSpan duration) => TimeSpan.FromSeconds(Math.Clamp(duration.TotalSeconds / 6, 2, 10));
    }

    private sealed class Workload(StreamingLoad load, int port, StreamingPinning pinning, SandboxClient api, Action<StreamingResult> measured) : IWorkload
    {
        private StreamingClientsReading? _latest;

        public string LoadUnit => "clients";

        public double LoadBetween(TimeSpan from, TimeSpan to) => Volatile.Read(ref _latest) is { } latest ? latest.Connected - latest.ClosedByServer : 0;

        public async Task RunAsync(SendRequest send, LatencyRecorder recorder, CancellationToken cancellationToken)
        {
            var record = RecordInto(recorder);
            measured(await StreamingRun.RunAsync(port, load, pinning, (withLatenessBuckets, token) => ReadServerAsync(api, withLatenessBuckets, token), reading =>
            {
                record(reading);
                Volatile.Write(ref _latest, reading);
            }, cancellationToken));
        }

    }
}
