using System.Collections.Concurrent;
using System.CommandLine;
using System.Diagnostics;
using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.ApiClient;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.Platform.Hosting;
using ConcurrencySandbox.Platform.Statistics;
using ConcurrencySandbox.Contracts.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Experiments.Streaming;

/// <summary>
/// <c>streaming --find-capacity</c>: how many clients each server keeps on schedule. Per variant, one fresh API; the
/// clients grow x1.5 per step (connected 1 ms apart, then a settling second, then a measured hold) until a step's send
/// lateness p99 passes <see cref="StreamingExperiment.LatenessP99LimitMs"/>, a message is lost, corrupt or out of
/// order, or a client is dropped or fails. The capacity is the largest step held; the verdict puts the pooled / allocating
/// ratio beside seed 001's "doubling your throughput or number of client connections".
/// </summary>
internal sealed class StreamingCapacity(StreamingLoad load, CapacityRamp ramp, StreamingPinning pinning) : Experiment
{
    /// <summary>Seed 001: pooling means "doubling your throughput or number of client connections".</summary>
    public const double SeedCapacityRatio = 2;

    private const int ConnectIntervalMs = 1;
    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(1);

    public static readonly Option<bool> FindCapacityOption = new("--find-capacity") { Description = "streaming: ramp clients x1.5 per step until a server falls behind (lateness p99 over 20 ms, a message lost, a client dropped); report each server's capacity." };
    private static readonly Option<int> FromOption = new("--capacity-from") { Description = "streaming --find-capacity: clients in the first step (1..100000).", DefaultValueFactory = _ => 200 };
    private static readonly Option<int> ToOption = new("--capacity-to") { Description = "streaming --find-capacity: most clients to try (--capacity-from..100000; each client is a socket on both sides, mind ulimit -n).", DefaultValueFactory = _ => 9000 };
    private static readonly Option<int> StepSecondsOption = new("--capacity-step-s") { Description = "streaming --find-capacity: seconds each step is measured for once its clients are connected (1..600).", DefaultValueFactory = _ => 5 };

    public static IReadOnlyList<Option> Options => [FindCapacityOption, FromOption, ToOption, StepSecondsOption];

    /// <summary>
    /// What a step's p99 is, as the figures name it: the server's send lateness over the measured hold only, not the
    /// clients' arrival lateness over the whole step that the per-step table shows (<see cref="ReportWords.Messages"/>).
    /// </summary>
    public const string StepLateness = "server send lateness p99 (measured hold)";

    private readonly ConcurrentDictionary<string, CapacitySearch> _searches = new();

    public override string Name => StreamingExperiment.Definition.Name;

    public override string Seed => "001";

    public override bool NeedsFreshApi => true;

    public override ReportWords Words => ReportWords.Messages;

    public override IReadOnlyList<Variant> Variants => [.. StreamingImplementations.Names.Select(VariantOf)];

    /// <summary>
    /// None: a step that fell behind is what the search is for (its lost messages are data, not a failed run), so no
    /// variant is held to a failed share, and none is "expected to fail" either: each is expected to hold some clients.
    /// </summary>
    public override IReadOnlyList<Threshold> DefaultThresholds => [];

    public override string? DiagnosisDoesNotApplyBecause => StreamingExperiment.PushStreamIsNoRequestResponse;

    /// <summary>The ramp the options ask for; a <see cref="UsageException"/> naming the option when out of range.</summary>
    public static CapacityRamp RampOf(OptionValues values)
    {
        var from = values.Get(FromOption);
        if (from is < 1 or > CapacityRamp.MaxClients)
        {
            throw new UsageException($"{FromOption.Name} must be from 1 to {CapacityRamp.MaxClients}, got {from}");
        }

        var to = values.Get(ToOption);
        if (to < from || to > CapacityRamp.MaxClients)
        {
            throw new UsageException($"{ToOption.Name} must be from {FromOption.Name} ({from}) to {CapacityRamp.MaxClients}, got {to}");
        }

        var stepSeconds = values.Get(StepSecondsOption);
        if (stepSeconds is < 1 or > 600)
        {
            throw new UsageException($"{StepSecondsOption.Name} must be from 1 to 600, got {stepSeconds}");
        }

        return new CapacityRamp(from, to, TimeSpan.FromSeconds(stepSeconds));
    }

    public override IReadOnlyList<VariantFigure> FiguresOf(VariantResult result)
    {
        if (!_searches.TryGetValue(result.Key.Name, out var search))
        {
            return [];
        }

        List<VariantFigure> figures =
        [
            new("clients held on time (capacity)", search.Capacity, "clients"),
            new("steps run", search.Steps.Count, ""),
        ];
        if (search.Held is { } held)
        {
            figures.Add(new("messages/s at capacity", held.MessagesPerSecond, "messages/s"));
            figures.Add(new($"{StepLateness} at capacity", held.LatenessP99Ms, "ms"));
            figures.Add(new("CPU per message at capacity", held.CpuMicrosecondsPerMessage, "µs"));
            figures.Add(new("server CPU at capacity", held.CpuCoresBusy * 100, "% of a core"));
            figures.Add(new("client processes CPU at capacity", held.ClientCpuCoresBusy * 100, "% of a core"));
        }

        figures.AddRange(search.Steps.Select(step => new VariantFigure($"step {CountText.Of(step.Clients, "client")} ({step.Why}): {StepLateness}", step.LatenessP99Ms, "ms")));
        return figures;
    }

    public override Finding Assess(IReadOnlyList<VariantResult> results) =>
        Judge(results.Where(r => _searches.ContainsKey(r.Key.Name)).ToDictionary(r => r.Key.Name, r => _searches[r.Key.Name]));

    /// <summary>The verdict from each variant's search, keyed by variant name.</summary>
    public static Finding Judge(IReadOnlyDictionary<string, CapacitySearch> searches)
    {
        if (!searches.TryGetValue(StreamingImplementations.NameOf(StreamingImplementation.Allocating), out var allocating))
        {
            return Finding.NotAssessed("the allocating variant did not run, so there is no ratio to take.");
        }

        var pooled = searches.Where(s => s.Value != allocating).ToList();
        if (pooled.Count == 0)
        {
            return Finding.NotAssessed("no pooled variant ran.");
        }

        var capacity = CapacityClaim(allocating, pooled);
        List<SeedComparison> comparisons =
        [
            new("clients held on time (lateness p99 within 20 ms, nothing lost or dropped)", "not measured",
                string.Join("; ", searches.Select(s => $"{s.Key} {s.Value.Describe()}"))),
            new("capacity, pooled / allocating", "about double (\"doubling your throughput or number of client connections\")", $"{capacity.Figure} {capacity.Interval}"),
        ];
        IReadOnlyList<Claim> claims =
        [
            capacity,
            new("garbage gone", ClaimVerdict.Inconclusive, "not measured by --find-capacity", "[no figure]", "run streaming without --find-capacity for the bytes per message"),
            new("heap halved", ClaimVerdict.Inconclusive, "not measured by --find-capacity", "[no figure]", "run streaming without --find-capacity for the heap"),
            CpuClaim(allocating, pooled),
        ];
        return Finding.OfClaims(claims, comparisons, $"capacity: {capacity.Why}. {ClientsLimit(searches)}");
    }

    /// <summary>The client processes' share of their cores above which they, not the server, may have set the capacity.</summary>
    public const double ClientsBusyShare = 0.9;

    /// <summary>
    /// Whether the load generator was the limit: at each variant's deciding step (the first that failed, else the last
    /// held) the client processes' CPU over the cores they had; at or above <see cref="ClientsBusyShare"/> that variant's
    /// capacity may be the clients' and is a lower bound of the server's.
    /// </summary>
    private static string ClientsLimit(IReadOnlyDictionary<string, CapacitySearch> searches)
    {
        var shares = searches
            .Select(s => (Variant: s.Key, Search: s.Value, Step: s.Value.Steps.FirstOrDefault(step => !step.Held) ?? s.Value.Held))
            .Where(s => s.Step is not null)
            .Select(s => (s.Variant, s.Step!.Clients, s.Search.ClientCores, Share: s.Step.ClientCpuCoresBusy / s.Search.ClientCores))
            .ToList();
        if (shares.Count == 0)
        {
            return "";
        }
        var bound = shares.Where(s => s.Share >= ClientsBusyShare).ToList();
        var figures = string.Join(", ", shares.Select(s => Invariant($"{s.Variant} {s.Share * 100:0} % at {CountText.Of(s.Clients, "client")}")));
        return bound.Count == 0
            ? Invariant($"The clients were not the limit: their processes used at most {shares.Max(s => s.Share) * 100:0} % of their {CountText.Of(shares[0].ClientCores, "core")} at the deciding step ({figures}).")
            : $"The clients may have been the limit of {string.Join(", ", bound.Select(s => s.Variant))}: their processes used {ClientsBusyShare * 100:0} % or more of their cores at the deciding step ({figures}), so that capacity is a lower bound of the server's; give the clients more cores (--agents, --client-cpus).";
    }

    /// <summary>
    /// Seed 001's "doubling ... client connections": each variant's capacity is known to the ramp's step, between the
    /// largest step held and the first that failed (no upper end when the top held, no lower end but 0 when none held), so
    /// the ratio is an interval; a ratio of two capacities that both reached the top (two lower bounds) is no figure.
    /// </summary>
    private static Claim CapacityClaim(CapacitySearch allocating, IReadOnlyList<KeyValuePair<string, CapacitySearch>> pooled)
    {
        const string what = "capacity doubled";
        if (allocating.FailedAt is not { } allocatingFailedAt)
        {
            // Allocating held every step it ran: its capacity has no upper end, so any ratio to it is no figure.
            var top = pooled.Where(p => p.Value.ReachedTop).Select(p => p.Key).ToList();
            var figure = top.Count == pooled.Count && top.Count > 0
                ? $"allocating{(top.Count > 1 ? ", " + string.Join(", ", top.SkipLast(1)) : "")} and {top[^1]} {(top.Count > 1 ? "all" : "both")} at least {CountText.Of(allocating.Capacity)}: no ratio"
                : $"allocating at least {CountText.Of(allocating.Capacity)}, the top of the ramp: no ratio";
            return new(what, ClaimVerdict.Inconclusive, figure, "[no interval: a lower bound]", "allocating held the top of the ramp; raise --capacity-to");
        }
        var ratios = pooled.Select(p => (p.Key, Low: p.Value.Capacity / (double)allocatingFailedAt, High: p.Value.FailedAt is { } failed && allocating.Capacity > 0 ? failed / (double)allocating.Capacity : double.PositiveInfinity)).ToList();
        var text = string.Join("; ", ratios.Select(r => Invariant($"{r.Key} {Describe(pooled.First(p => p.Key == r.Key).Value)} / allocating {Describe(allocating)}")));
        var interval = "[" + string.Join("; ", ratios.Select(r => Invariant($"{r.Low:0.##} x to {(double.IsPositiveInfinity(r.High) ? "unbounded" : Invariant($"{r.High:0.##} x"))}"))) + "]";
        return ratios.All(r => r.Low >= SeedCapacityRatio)
            ? new(what, ClaimVerdict.Confirmed, text, interval, Invariant($"pooling holds at least {SeedCapacityRatio:0} x the clients on time even at the interval's low end"))
            : ratios.All(r => r.High < SeedCapacityRatio)
                ? new(what, ClaimVerdict.Refuted, text, interval, Invariant($"pooling holds less than {SeedCapacityRatio:0} x the clients on time even at the interval's high end; the send syscall, not the garbage, sets the limit"))
                : new(what, ClaimVerdict.Inconclusive, text, interval, Invariant($"the interval (the ramp's x1.5 step on both sides) straddles {SeedCapacityRatio:0} x; narrow the ramp around the capacities"));
    }

    /// <summary>"between 1,519 and 2,278" (held, first failed), "below 200" (none held), "at least 9,000" (the top held).</summary>
    private static string Describe(CapacitySearch search) =>
        search.ReachedTop ? $"at least {CountText.Of(search.Capacity)}"
        : search.FailedAt is not { } failedAt ? "below the ramp's first step"
        : search.Held is null ? $"below {CountText.Of(failedAt)}"
        : $"between {CountText.Of(search.Capacity)} and {CountText.Of(failedAt)}";

    /// <summary>Seed 001's "less CPU": the pooled / allocating CPU per message at each client count both held, a paired ratio per step, its median with a 95 % CI.</summary>
    private static Claim CpuClaim(CapacitySearch allocating, IReadOnlyList<KeyValuePair<string, CapacitySearch>> pooled)
    {
        const string what = "less CPU";
        var perVariant = pooled.Select(p => (p.Key, Ratios: p.Value.Steps.Where(s => s.Held && s.CpuMicrosecondsPerMessage > 0)
            .Join(allocating.Steps.Where(s => s.Held && s.CpuMicrosecondsPerMessage > 0), s => s.Clients, s => s.Clients, (ps, a) => ps.CpuMicrosecondsPerMessage / a.CpuMicrosecondsPerMessage)
            .ToList())).ToList();
        if (perVariant.Any(v => v.Ratios.Count == 0))
        {
            return new(what, ClaimVerdict.Inconclusive, "no client count held by allocating and every pooled variant", "[no figure]", "CPU per message is compared at equal client counts");
        }
        var estimates = perVariant.Select(v => (v.Key, Estimate: Estimates.Of(v.Ratios))).ToList();
        var text = string.Join("; ", estimates.Select(e => Invariant($"{e.Key} {e.Estimate.Median * 100:0.#} % of allocating's CPU per message")));
        var interval = "[" + string.Join("; ", estimates.Select(e => e.Estimate.Interval("0.##", 100))) + Invariant($" %, over {estimates.Min(e => e.Estimate.Count)}+ steps both held]");
        return estimates.All(e => e.Estimate.High < 1) ? new(what, ClaimVerdict.Confirmed, text, interval, "every interval below 100 %")
            : estimates.All(e => e.Estimate.Low >= 1) ? new(what, ClaimVerdict.Refuted, text, interval, "every interval at or above 100 %")
            : new(what, ClaimVerdict.Inconclusive, text, interval, "an interval straddles 100 %, or has too few steps for a 95 % CI (6)");
    }

    private Variant VariantOf(string implementation) => new(
        implementation,
        new CapacityDriver(load, ramp, pinning, search => _searches[implementation] = search),
        StreamingExperiment.ServerEnvironment(implementation, load with { Clients = ramp.To })) { ServerCpus = pinning.Server };

    private sealed class CapacityDriver(StreamingLoad load, CapacityRamp ramp, StreamingPinning pinning, Action<CapacitySearch> measured) : IOwnClientsDriver
    {
        public string Request => $"TCP clients x1.5 per step from {ramp.From} to {ramp.To} (one {StreamingClientsCommand.Name} process per step{(pinning.Agents is { } agents ? $" and local agent, {agents.Count} agents" : "")}), {load.MessageBytes} B every {load.IntervalMs} ms, on the port GET /api/streaming announces";

        public (string Profile, string Shape) Describe(LoadOptions options) =>
            ("find-capacity", $"clients from {ramp.From} x1.5 per step up to {ramp.To}, connected {ConnectIntervalMs} ms apart, {Settle.TotalSeconds:0} s to settle, {ramp.Step.TotalSeconds:0} s measured per step, {load.MessageBytes} B every {load.IntervalMs} ms; a step holds when send lateness p99 <= {StreamingExperiment.LatenessP99LimitMs:0} ms and nothing is lost or dropped; {pinning.Describe()}");

        public ILoadDriver OnLocalAgents(AgentPlan plan) => new CapacityDriver(load, ramp, pinning.OnAgents(plan), measured);

        /// <summary>The search stops at the first step that does not hold, so its length is not known in advance.</summary>
        public TimeSpan PlannedLength(LoadOptions options) => TimeSpan.Zero;

        public async Task<VariantResult> RunAsync(LoadContext context, CancellationToken cancellationToken)
        {
            var port = await StreamingExperiment.StreamingPortAsync(context, cancellationToken);
            var workload = new CapacityWorkload(load, ramp, port, pinning, context.Api, measured);
            return await VariantRunner.RunAsync(
                context.Key, Request, workload, _ => ValueTask.FromResult(RequestOutcome.Success), context.Load.Shape.ReportingInterval, context.Telemetry, context.Progress, cancellationToken, observed: context.Observed, telemetryLive: context.TelemetryLive);
        }
    }

    /// <summary>The ramp: each step starts one more client process (one per local agent with --agents) with the clients it adds, pinned like the others.</summary>
    private sealed class CapacityWorkload(StreamingLoad load, CapacityRamp ramp, int port, StreamingPinning pinning, SandboxClient api, Action<CapacitySearch> measured) : IWorkload
    {
        private readonly List<StreamingClientGroup> _processes = [];

        public string LoadUnit => "clients";

        public double LoadBetween(TimeSpan from, TimeSpan to)
        {
            var totals = Totals();
            return totals.Connected - totals.ClosedByServer;
        }

        public async Task RunAsync(SendRequest send, LatencyRecorder recorder, CancellationToken cancellationToken)
        {
            var steps = new List<CapacityStep>();
            var started = 0;
            try
            {
                foreach (var target in ramp.Counts())
                {
                    var plan = new StreamingClientsPlan(port, target - started, ConnectIntervalMs, MaxRampDuration, StreamingRun.ClientsReportInterval, Environment.ProcessId);
                    var process = await StreamingClientGroup.StartAsync(plan, pinning, StreamingExperiment.RecordInto(recorder), cancellationToken);
                    lock (_processes)
                    {
                        _processes.Add(process);
                    }

                    started = target;
                    var step = await MeasureStepAsync(target, cancellationToken);
                    steps.Add(step);
                    if (!step.Held)
                    {
                        break;
                    }
                }
            }
            finally
            {
                foreach (var process in Processes())
                {
                    await process.DisposeAsync();
                }
            }

            measured(new CapacitySearch(ramp, steps) { ClientCores = ClientCores() });
        }

        /// <summary>The distinct cpus the client processes are pinned to, or the machine's when any runs unpinned.</summary>
        private int ClientCores()
        {
            var sets = Enumerable.Range(0, pinning.ClientProcesses).Select(pinning.ClientCpusOf).ToList();
            return sets.Any(set => set is null) ? Environment.ProcessorCount : sets.SelectMany(set => set!.Cpus).Distinct().Count();
        }

        /// <summary>A hang guard for every client process: the whole ramp at its longest (each step's connecting, settling and hold), and some.</summary>
        private TimeSpan MaxRampDuration => StreamingRun.ClientsHangGuard
            + TimeSpan.FromSeconds(ramp.Counts().Sum(clients => 3 + (clients * ConnectIntervalMs * 2 / 1000.0) + Settle.TotalSeconds + ramp.Step.TotalSeconds));

        private List<StreamingClientGroup> Processes()
        {
            lock (_processes)
            {
                return [.. _processes];
            }
        }

        /// <summary>What every client process reported last, added up; CPU in ms.</summary>
        private ClientTotals Totals()
        {
            var totals = new ClientTotals(0, 0, 0, 0, 0);
            foreach (var latest in Processes().Select(process => process.Latest).OfType<StreamingClientsReading>())
            {
                totals = new(
                    totals.Connected + latest.Connected,
                    totals.ClosedByServer + latest.ClosedByServer,
                    totals.NotIntact + latest.NotIntact,
                    totals.Gone + latest.ClosedByServer + latest.Failed,
                    totals.CpuTimeMs + latest.CpuTimeMs);
            }

            return totals;
        }

        private async Task<CapacityStep> MeasureStepAsync(int clients, CancellationToken cancellationToken)
        {
            // Connecting takes clients x 1 ms; allow twice that and a little, then measure whatever connected.
            var connectBy = Stopwatch.GetTimestamp() + Stopwatch.Frequency * (2 + (clients * ConnectIntervalMs * 2 / 1000));
            var status = await StreamingExperiment.ReadServerAsync(api, withLatenessBuckets: false, cancellationToken);
            while (status.Server.ConnectedClients < clients && Stopwatch.GetTimestamp() < connectBy)
            {
                await Task.Delay(200, cancellationToken);
                status = await StreamingExperiment.ReadServerAsync(api, withLatenessBuckets: false, cancellationToken);
            }

            await Task.Delay(Settle, cancellationToken);
            var (before, clientsBefore, startedAt) = (await StreamingExperiment.ReadServerAsync(api, withLatenessBuckets: true, cancellationToken), Totals(), Stopwatch.GetTimestamp());
            await Task.Delay(ramp.Step, cancellationToken);

            // The client processes report every half second: wait for one more report so the step's last frames are counted.
            await Task.Delay(StreamingRun.ClientsReportInterval, cancellationToken);
            var (after, clientsAfter) = (await StreamingExperiment.ReadServerAsync(api, withLatenessBuckets: true, cancellationToken), Totals());
            var seconds = Stopwatch.GetElapsedTime(startedAt).TotalSeconds;
            var messages = after.Server.MessagesSent - before.Server.MessagesSent;
            return new CapacityStep(
                clients,
                after.Server.ConnectedClients,
                messages / seconds,
                StreamingExperiment.LatenessPercentileMsBetween(before.Server, after.Server, 99),
                clientsAfter.NotIntact - clientsBefore.NotIntact,
                after.Server.DroppedSlowClients - before.Server.DroppedSlowClients + clientsAfter.Gone - clientsBefore.Gone,
                messages == 0 ? 0 : (after.Process.CpuTimeMs - before.Process.CpuTimeMs) * 1000 / messages,
                (after.Process.CpuTimeMs - before.Process.CpuTimeMs) / 1000 / seconds,
                load.MessagesPerSecond / load.Clients * clients)
            {
                ClientCpuCoresBusy = (clientsAfter.CpuTimeMs - clientsBefore.CpuTimeMs) / 1000 / seconds,
            };
        }

        private sealed record ClientTotals(long Connected, long ClosedByServer, long NotIntact, long Gone, double CpuTimeMs);
    }
}

/// <summary>The client counts to try: <paramref name="From"/>, then x1.5 (at least +1) per step, up to <paramref name="To"/>.</summary>
internal sealed record CapacityRamp(int From, int To, TimeSpan Step)
{
    public const int MaxClients = 100_000;

    public IEnumerable<int> Counts()
    {
        for (var clients = From; ; clients = Math.Min(To, Math.Max(clients + 1, (int)Math.Round(clients * 1.5))))
        {
            yield return clients;
            if (clients >= To)
            {
                yield break;
            }
        }
    }
}

/// <summary>One measured step: the clients asked for and connected, and what the server and the clients saw.</summary>
/// <param name="CpuCoresBusy">The server process's CPU time over the step's wall time (1 = one core).</param>
/// <param name="ScheduledMessagesPerSecond">What the clients asked for would be if all were served on time.</param>
internal sealed record CapacityStep(
    int Clients,
    int ConnectedClients,
    double MessagesPerSecond,
    double LatenessP99Ms,
    long LostMessages,
    long DroppedClients,
    double CpuMicrosecondsPerMessage,
    double CpuCoresBusy,
    double ScheduledMessagesPerSecond)
{
    /// <summary>The client processes' CPU time over the step's wall time (1 = one core): the load generator's share.</summary>
    public double ClientCpuCoresBusy { get; init; }

    /// <summary>Every client connected and served, lateness p99 within the limit, nothing lost or dropped.</summary>
    public bool Held => ConnectedClients >= Clients
        && LatenessP99Ms <= StreamingExperiment.LatenessP99LimitMs
        && LostMessages == 0
        && DroppedClients == 0
        && MessagesPerSecond >= ScheduledMessagesPerSecond * 0.95;

    public string Why => Held ? "held"
        : ConnectedClients < Clients ? $"only {CountText.Of(ConnectedClients)} of {CountText.Of(Clients)} connected"
        : LostMessages > 0 ? $"{CountText.Of(LostMessages, "message")} lost, corrupt or out of order"
        : DroppedClients > 0 ? $"{CountText.Of(DroppedClients, "client")} dropped or failed"
        : LatenessP99Ms > StreamingExperiment.LatenessP99LimitMs ? $"lateness p99 {LatenessP99Ms:0.#} ms"
        : $"{MessagesPerSecond:0} of {ScheduledMessagesPerSecond:0} messages/s sent";
}

/// <summary>A variant's ramp: the steps run, the largest held, and whether the top of the ramp was reached without failing.</summary>
internal sealed record CapacitySearch(CapacityRamp Ramp, IReadOnlyList<CapacityStep> Steps)
{
    /// <summary>The cores the client processes could use (their pinned cpus, else the machine's): the denominator of their CPU share.</summary>
    public int ClientCores { get; init; } = Environment.ProcessorCount;

    /// <summary>The last step that held (the ramp stops at the first that does not).</summary>
    public CapacityStep? Held => Steps.LastOrDefault(step => step.Held);

    public int Capacity => Held?.Clients ?? 0;

    /// <summary>The clients of the first step that did not hold (the capacity is below it); null when every step held.</summary>
    public int? FailedAt => Steps.FirstOrDefault(step => !step.Held)?.Clients;

    /// <summary>No step failed: the capacity is only a lower bound.</summary>
    public bool ReachedTop => Steps.Count > 0 && Steps.All(step => step.Held);

    public string Describe()
    {
        var failed = Steps.FirstOrDefault(step => !step.Held);
        var held = Held is { } h ? $"{CountText.Of(h.Clients, "client")} ({h.MessagesPerSecond:0} messages/s, p99 {h.LatenessP99Ms:0.#} ms, {h.CpuMicrosecondsPerMessage:0.#} µs CPU per message)" : $"no step (fewer than {Ramp.From} clients)";
        return failed is null ? $"at least {held}, the top of the ramp" : $"{held}; {CountText.Of(failed.Clients)} not: {failed.Why}";
    }
}
