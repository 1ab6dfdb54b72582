using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.Platform.Machine;
using ConcurrencySandbox.Platform.Statistics;
using ConcurrencySandbox.Contracts.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Matrix;

/// <summary>
/// The <c>limits</c> command's settings: at each of <paramref name="Cores"/>, <paramref name="Rounds"/> paired rounds of a
/// single-threaded request (compute sync, <paramref name="Cycles"/> cycles), of a fan-out burst
/// (<paramref name="BurstRequests"/> concurrent async fan-outs of <paramref name="BurstCalls"/> calls) and, below the
/// host's CPUs, of a throttled burst (a compute sync of <paramref name="ThrottleCycles"/> cycles per host CPU, at once,
/// with probes of the control plane's /healthz while it runs).
/// </summary>
internal sealed record LimitsOptions(IReadOnlyList<int> Cores, int Rounds, string Engine, string Image, long Cycles, int BurstRequests, int BurstCalls, double CiWidthPercent, long ThrottleCycles)
{
    public const int MinRounds = 6;
    public const int MaxRounds = 200;
    public const int DefaultRounds = 12;
    public const long DefaultCycles = 100_000_000;
    public const int DefaultBurstRequests = 64;
    public const int DefaultBurstCalls = 50;

    /// <summary>Per request of the throttled burst: about 0.17 s of one CPU on this VM (two took 0.33 s on one CPU), so the burst spans several 100 ms CFS periods.</summary>
    public const long DefaultThrottleCycles = 300_000_000;

    /// <summary>The stub's delay per fan-out call: short, so the burst's time is the server's CPU work more than waiting.</summary>
    public const int BurstDelayMs = 5;

    /// <summary>Warm-up requests per container before the rounds: past tiered JIT's 30 calls, and a few bursts to grow the pool.</summary>
    public const int WarmupRequests = 40;
    public const int WarmupBursts = 3;

    /// <summary>A probe of the control plane is sent this often while a throttled burst runs, each on its own (a stalled probe holds none back).</summary>
    public static readonly TimeSpan ProbeInterval = TimeSpan.FromMilliseconds(10);
}

/// <summary>
/// Runs the API image twice at once, limited to the same N cores by a CFS quota (<c>--cpus N</c>) and by a cpuset
/// (<c>--cpuset-cpus 0-(N-1)</c>), idle but for the one request being timed: each round times the request on both, in
/// alternating order, and each container's cgroup cpu.stat is read before and after each workload's rounds. The throttled
/// burst gets a pair of its own, started with the pool's minimum at the burst's size, so its requests run at once on both.
/// </summary>
internal static class QuotaVsCpusetRun
{
    /// <summary>cgroup v2's cpu.stat, else v1's with cpuacct.usage as a "usage_ns" line (<see cref="CgroupCpuStat.Parse"/>).</summary>
    private static readonly IReadOnlyList<string> ReadCpuStat =
        ["sh", "-c", "cat /sys/fs/cgroup/cpu.stat 2>/dev/null || { cat /sys/fs/cgroup/cpu/cpu.stat; echo usage_ns $(cat /sys/fs/cgroup/cpuacct/cpuacct.usage); }"];

    public static async Task<IReadOnlyList<LimitVerdict>> RunAsync(LimitsOptions options, TextWriter console, CancellationToken cancellationToken)
    {
        var engine = new ContainerEngine(options.Engine);
        var hostCpus = Environment.ProcessorCount;
        console.WriteLine($"limits: {options.Engine} {await engine.ServerVersionAsync(cancellationToken)}, image {options.Image} ({await engine.ImageIdAsync(options.Image, cancellationToken)}), host CPUs {hostCpus}, load {LoadAverage()}");
        var single = new Workload(Invariant($"single-threaded request (compute sync, {options.Cycles:N0} cycles)"), Invariant($"/api/compute/sync?cycles={options.Cycles}"), 1);
        var burst = new Workload(Invariant($"fan-out burst ({options.BurstRequests} concurrent async fan-outs of {options.BurstCalls} x {LimitsOptions.BurstDelayMs} ms calls)"),
            Invariant($"/api/fanout?strategy=async&calls={options.BurstCalls}&delayMs={LimitsOptions.BurstDelayMs}"), options.BurstRequests);
        // As many requests as the host has CPUs: under the quota they run on all of them and spend the period's budget early.
        var throttled = new Workload(Invariant($"throttled burst ({hostCpus} concurrent compute sync of {options.ThrottleCycles:N0} cycles, pool minimum {hostCpus})"),
            Invariant($"/api/compute/sync?cycles={options.ThrottleCycles}"), hostCpus);
        var probe = Invariant($"probe during the throttled burst (p{ProbedBurst.ProbePercentile:0} of GET {ControlRoutes.Health} on the control plane every {LimitsOptions.ProbeInterval.TotalMilliseconds:0} ms)");
        var verdicts = new List<LimitVerdict>();
        foreach (var cores in options.Cores)
        {
            if (cores > hostCpus)
            {
                foreach (var name in new[] { single.Name, burst.Name, throttled.Name, probe })
                {
                    console.WriteLine(QuotaVsCpuset.SkippedLine(cores, name, $"the host has only {CountText.Of(hostCpus, "CPU")}"));
                }
                continue;
            }
            var started = Stopwatch.StartNew();
            await using (var pair = await ContainerPair.StartAsync(engine, options.Image, cores, new Dictionary<string, string>(), cancellationToken))
            {
                await pair.WarmUpAsync(Invariant($"/api/compute/sync?cycles={Math.Max(1, options.Cycles / 100)}"), burst, probed: false, cancellationToken);
                foreach (var workload in new[] { single, burst })
                {
                    var (rounds, quotaStat, cpusetStat) = await pair.MeasureAsync(options.Rounds, (container, token) => container.TimeAsync(workload, token), cancellationToken);
                    verdicts.Add(QuotaVsCpuset.Judge(workload.Name, cores, [.. rounds.Select(r => new LimitRound(r.QuotaFirst, r.Quota, r.Cpuset))], options.CiWidthPercent, quotaStat, cpusetStat));
                    console.WriteLine(verdicts[^1].Line());
                }
            }
            if (QuotaVsCpuset.CannotThrottle(cores, hostCpus) is { } why)
            {
                console.WriteLine(QuotaVsCpuset.SkippedLine(cores, throttled.Name, why));
                console.WriteLine(QuotaVsCpuset.SkippedLine(cores, probe, why));
            }
            else
            {
                var minimum = new Dictionary<string, string> { [FixCheck.MinimumSetting] = throttled.Concurrency.ToString(CultureInfo.InvariantCulture) };
                await using var pair = await ContainerPair.StartAsync(engine, options.Image, cores, minimum, cancellationToken);
                await pair.WarmUpAsync(Invariant($"/api/compute/sync?cycles={Math.Max(1, options.ThrottleCycles / 100)}"), throttled, probed: true, cancellationToken);
                var (rounds, quotaStat, cpusetStat) = await pair.MeasureAsync(options.Rounds, (container, token) => container.ProbedBurstAsync(throttled, token), cancellationToken);
                verdicts.Add(QuotaVsCpuset.Judge(throttled.Name, cores, [.. rounds.Select(r => new LimitRound(r.QuotaFirst, r.Quota.Seconds, r.Cpuset.Seconds))], options.CiWidthPercent, quotaStat, cpusetStat, mustThrottle: true));
                console.WriteLine(verdicts[^1].Line());
                verdicts.Add(QuotaVsCpuset.Judge(probe, cores, [.. rounds.Select(r => LimitRound.Probe(r.QuotaFirst, r.Quota, r.Cpuset))], options.CiWidthPercent, quotaStat, cpusetStat, mustThrottle: true));
                console.WriteLine(verdicts[^1].Line());
            }
            console.WriteLine(Invariant($"limits: {CountText.Of(cores, "core")} measured in {started.Elapsed.TotalSeconds:0} s, {CountText.Of(options.Rounds, "round")} per workload (quota and cpuset alternating which goes first); load {LoadAverage()}"));
        }
        return verdicts;
    }

    private static CgroupCpuStat? Between(CgroupCpuStat? before, CgroupCpuStat? after) => before is null || after is null ? null : after.Since(before);

    private static string LoadAverage() => File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "n/a";

    /// <summary>A request sent <paramref name="Concurrency"/> times at once, named as the verdict line names it.</summary>
    private sealed record Workload(string Name, string PathAndQuery, int Concurrency);

    /// <summary>One round's figure on each side, and which side went first.</summary>
    private sealed record PairedRound<T>(bool QuotaFirst, T Quota, T Cpuset);

    /// <summary>The quota container and the cpuset container of one core count, started together and removed together.</summary>
    private sealed class ContainerPair(Container quota, Container cpuset) : IAsyncDisposable
    {
        public static async Task<ContainerPair> StartAsync(ContainerEngine engine, string image, int cores, IReadOnlyDictionary<string, string> environment, CancellationToken cancellationToken)
        {
            var quota = await Container.StartAsync(engine, image, new ContainerLimit(CpuLimitKind.Quota, cores), environment, cancellationToken);
            try
            {
                return new ContainerPair(quota, await Container.StartAsync(engine, image, new ContainerLimit(CpuLimitKind.Pinning, cores), environment, cancellationToken));
            }
            catch
            {
                await quota.DisposeAsync();
                throw;
            }
        }

        /// <summary>Small requests past tiered JIT's 30 calls, then a few of <paramref name="burst"/> (with its probes when <paramref name="probed"/>, which opens their connections).</summary>
        public async Task WarmUpAsync(string smallRequest, Workload burst, bool probed, CancellationToken cancellationToken)
        {
            foreach (var container in new[] { quota, cpuset })
            {
                for (var i = 0; i < LimitsOptions.WarmupRequests; i++)
                {
                    await container.TimeAsync(new Workload("warm-up", smallRequest, 1), cancellationToken);
                }
                for (var i = 0; i < LimitsOptions.WarmupBursts; i++)
                {
                    if (probed)
                    {
                        await container.ProbedBurstAsync(burst, cancellationToken);
                    }
                    else
                    {
                        await container.TimeAsync(burst, cancellationToken);
                    }
                }
            }
        }

        /// <summary><paramref name="rounds"/> paired rounds of <paramref name="measure"/>, alternating which side goes first, and what each cgroup counted meanwhile.</summary>
        public async Task<(IReadOnlyList<PairedRound<T>> Rounds, CgroupCpuStat? QuotaStat, CgroupCpuStat? CpusetStat)> MeasureAsync<T>(
            int rounds, Func<Container, CancellationToken, Task<T>> measure, CancellationToken cancellationToken)
        {
            var quotaBefore = await quota.CpuStatAsync(cancellationToken);
            var cpusetBefore = await cpuset.CpuStatAsync(cancellationToken);
            var measured = new List<PairedRound<T>>();
            for (var round = 0; round < rounds; round++)
            {
                var quotaFirst = !MeasurementPolicy.BFirst(round);
                var (first, second) = quotaFirst ? (quota, cpuset) : (cpuset, quota);
                var firstFigure = await measure(first, cancellationToken);
                var secondFigure = await measure(second, cancellationToken);
                measured.Add(quotaFirst ? new(true, firstFigure, secondFigure) : new(false, secondFigure, firstFigure));
            }
            var quotaAfter = await quota.CpuStatAsync(cancellationToken);
            var cpusetAfter = await cpuset.CpuStatAsync(cancellationToken);
            return (measured, Between(quotaBefore, quotaAfter), Between(cpusetBefore, cpusetAfter));
        }

        public async ValueTask DisposeAsync()
        {
            await quota.DisposeAsync();
            await cpuset.DisposeAsync();
        }
    }

    /// <summary>One API container: its address, clients to time requests and to probe its control plane with, and its removal.</summary>
    private sealed class Container(ContainerEngine engine, string id, HttpClient http, HttpClient control) : IAsyncDisposable
    {
        public static async Task<Container> StartAsync(ContainerEngine engine, string image, ContainerLimit limit, IReadOnlyDictionary<string, string> environment, CancellationToken cancellationToken)
        {
            var id = await engine.StartAsync(image, limit, environment, null, cancellationToken);
            try
            {
                var address = await engine.PublishedAddressAsync(id, ContainerEngine.ApiPort, cancellationToken);
                await ContainerApiServers.WaitReadyAsync(address, id, limit, cancellationToken);
                var controlAddress = await engine.PublishedAddressAsync(id, ContainerEngine.ControlPort, cancellationToken);
                return new Container(engine, id, new HttpClient { BaseAddress = address, Timeout = TimeSpan.FromMinutes(2) }, new HttpClient { BaseAddress = controlAddress, Timeout = TimeSpan.FromSeconds(30) });
            }
            catch
            {
                await engine.RemoveAsync(id);
                throw;
            }
        }

        /// <summary>Seconds until all of the workload's GETs, sent at once, have answered 2xx.</summary>
        public async Task<double> TimeAsync(Workload workload, CancellationToken cancellationToken)
        {
            var watch = Stopwatch.StartNew();
            await Task.WhenAll(Enumerable.Range(0, workload.Concurrency).Select(_ => GetAsync(http, workload.PathAndQuery, cancellationToken)));
            return watch.Elapsed.TotalSeconds;
        }

        /// <summary>
        /// The workload timed as <see cref="TimeAsync"/>, with a GET of the control plane's /healthz sent every
        /// <see cref="LimitsOptions.ProbeInterval"/> from its start until its last answer: the control plane answers on threads
        /// of its own, not the pool's, so a probe's latency is how long a thread of this container waited for a CPU.
        /// </summary>
        public async Task<ProbedBurst> ProbedBurstAsync(Workload workload, CancellationToken cancellationToken)
        {
            var watch = Stopwatch.StartNew();
            var burst = TimeAsync(workload, cancellationToken);
            var probes = new List<Task<double>>();
            for (var next = TimeSpan.Zero; !burst.IsCompleted; next += LimitsOptions.ProbeInterval)
            {
                probes.Add(GetAsync(control, ControlRoutes.Health, cancellationToken));
                if (next + LimitsOptions.ProbeInterval - watch.Elapsed is { Ticks: > 0 } wait)
                {
                    await Task.WhenAny(burst, Task.Delay(wait, cancellationToken));
                }
            }
            return new ProbedBurst(await burst, await Task.WhenAll(probes));
        }

        /// <summary>The container's cgroup cpu.stat now, or null when it cannot be read.</summary>
        public async Task<CgroupCpuStat?> CpuStatAsync(CancellationToken cancellationToken) =>
            await engine.ExecAsync(id, ReadCpuStat, cancellationToken) is { } text ? CgroupCpuStat.Parse(text) : null;

        public async ValueTask DisposeAsync()
        {
            http.Dispose();
            control.Dispose();
            await engine.RemoveAsync(id);
        }

        /// <summary>Seconds until the GET answered 2xx.</summary>
        private static async Task<double> GetAsync(HttpClient client, string pathAndQuery, CancellationToken cancellationToken)
        {
            var started = Stopwatch.GetTimestamp();
            using var response = await client.GetAsync(pathAndQuery, cancellationToken);
            response.EnsureSuccessStatusCode();
            return Stopwatch.GetElapsedTime(started).TotalSeconds;
        }
    }
}
