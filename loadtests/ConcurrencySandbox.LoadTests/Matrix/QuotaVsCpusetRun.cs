using System.Diagnostics;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.Platform.Machine;
using ConcurrencySandbox.Platform.Statistics;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Matrix;

/// <summary>
/// The <c>limits</c> command's settings: at each of <paramref name="Cores"/>, <paramref name="Rounds"/> paired rounds of a
/// single-threaded request (compute sync, <paramref name="Cycles"/> cycles) and of a fan-out burst
/// (<paramref name="BurstRequests"/> concurrent async fan-outs of <paramref name="BurstCalls"/> calls).
/// </summary>
public sealed record LimitsOptions(IReadOnlyList<int> Cores, int Rounds, string Engine, string Image, long Cycles, int BurstRequests, int BurstCalls, double CiWidthPercent)
{
    public const int MinRounds = 6;
    public const int MaxRounds = 200;
    public const int DefaultRounds = 12;
    public const long DefaultCycles = 100_000_000;
    public const int DefaultBurstRequests = 64;
    public const int DefaultBurstCalls = 50;

    /// <summary>The stub's delay per fan-out call: short, so the burst's time is the server's CPU work more than waiting.</summary>
    public const int BurstDelayMs = 5;

    /// <summary>Warm-up requests per container before the rounds: past tiered JIT's 30 calls, and a few bursts to grow the pool.</summary>
    public const int WarmupRequests = 40;
    public const int WarmupBursts = 3;
}

/// <summary>
/// Runs the API image twice at once, limited to the same N cores by a CFS quota (<c>--cpus N</c>) and by a cpuset
/// (<c>--cpuset-cpus 0-(N-1)</c>), idle but for the one request being timed: each round times the request on both, in
/// alternating order, and each container's cgroup cpu.stat is read before and after each workload's rounds.
/// </summary>
public static class QuotaVsCpusetRun
{
    /// <summary>cgroup v2's cpu.stat, else v1's with cpuacct.usage as a "usage_ns" line (<see cref="CgroupCpuStat.Parse"/>).</summary>
    private static readonly IReadOnlyList<string> ReadCpuStat =
        ["sh", "-c", "cat /sys/fs/cgroup/cpu.stat 2>/dev/null || { cat /sys/fs/cgroup/cpu/cpu.stat; echo usage_ns $(cat /sys/fs/cgroup/cpuacct/cpuacct.usage); }"];

    public static async Task<IReadOnlyList<LimitVerdict>> RunAsync(LimitsOptions options, TextWriter console, CancellationToken cancellationToken)
    {
        var engine = new ContainerEngine(options.Engine);
        console.WriteLine($"limits: {options.Engine} {await engine.ServerVersionAsync(cancellationToken)}, image {options.Image} ({await engine.ImageIdAsync(options.Image, cancellationToken)}), host CPUs {Environment.ProcessorCount}, load {LoadAverage()}");
        var verdicts = new List<LimitVerdict>();
        foreach (var cores in options.Cores)
        {
            if (cores > Environment.ProcessorCount)
            {
                console.WriteLine(Invariant($"skipped: quota vs cpuset at {cores} core(s): the host has only {Environment.ProcessorCount} CPU(s)"));
                continue;
            }
            await using var quota = await Container.StartAsync(engine, options.Image, new ContainerLimit(CpuLimitKind.Quota, cores), cancellationToken);
            await using var cpuset = await Container.StartAsync(engine, options.Image, new ContainerLimit(CpuLimitKind.Pinning, cores), cancellationToken);
            var single = Invariant($"/api/compute/sync?cycles={options.Cycles}");
            var warmup = Invariant($"/api/compute/sync?cycles={Math.Max(1, options.Cycles / 100)}");
            var burst = Invariant($"/api/fanout?strategy=async&calls={options.BurstCalls}&delayMs={LimitsOptions.BurstDelayMs}");
            foreach (var container in new[] { quota, cpuset })
            {
                for (var i = 0; i < LimitsOptions.WarmupRequests; i++)
                {
                    await container.TimeAsync(warmup, 1, cancellationToken);
                }
                for (var i = 0; i < LimitsOptions.WarmupBursts; i++)
                {
                    await container.TimeAsync(burst, options.BurstRequests, cancellationToken);
                }
            }
            var started = Stopwatch.StartNew();
            verdicts.Add(await JudgeAsync(Invariant($"single-threaded request (compute sync, {options.Cycles:N0} cycles)"), cores, quota, cpuset, single, 1, options, cancellationToken));
            console.WriteLine(verdicts[^1].Line());
            verdicts.Add(await JudgeAsync(Invariant($"fan-out burst ({options.BurstRequests} concurrent async fan-outs of {options.BurstCalls} x {LimitsOptions.BurstDelayMs} ms calls)"), cores, quota, cpuset, burst, options.BurstRequests, options, cancellationToken));
            console.WriteLine(verdicts[^1].Line());
            console.WriteLine(Invariant($"limits: {cores} core(s) measured in {started.Elapsed.TotalSeconds:0} s, {options.Rounds} rounds per workload (quota and cpuset alternating which goes first); load {LoadAverage()}"));
        }
        return verdicts;
    }

    private static async Task<LimitVerdict> JudgeAsync(string workload, int cores, Container quota, Container cpuset, string pathAndQuery, int concurrency, LimitsOptions options, CancellationToken cancellationToken)
    {
        var quotaBefore = await quota.CpuStatAsync(cancellationToken);
        var cpusetBefore = await cpuset.CpuStatAsync(cancellationToken);
        var rounds = new List<LimitRound>();
        for (var round = 0; round < options.Rounds; round++)
        {
            var quotaFirst = !MeasurementPolicy.BFirst(round);
            var (first, second) = quotaFirst ? (quota, cpuset) : (cpuset, quota);
            var firstSeconds = await first.TimeAsync(pathAndQuery, concurrency, cancellationToken);
            var secondSeconds = await second.TimeAsync(pathAndQuery, concurrency, cancellationToken);
            rounds.Add(quotaFirst ? new LimitRound(true, firstSeconds, secondSeconds) : new LimitRound(false, secondSeconds, firstSeconds));
        }
        var quotaAfter = await quota.CpuStatAsync(cancellationToken);
        var cpusetAfter = await cpuset.CpuStatAsync(cancellationToken);
        return QuotaVsCpuset.Judge(workload, cores, rounds, options.CiWidthPercent, Between(quotaBefore, quotaAfter), Between(cpusetBefore, cpusetAfter));
    }

    private static CgroupCpuStat? Between(CgroupCpuStat? before, CgroupCpuStat? after) => before is null || after is null ? null : after.Since(before);

    private static string LoadAverage() => File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "n/a";

    /// <summary>One API container: its address, a client to time requests with, and its removal.</summary>
    private sealed class Container(ContainerEngine engine, string id, HttpClient http) : IAsyncDisposable
    {
        public static async Task<Container> StartAsync(ContainerEngine engine, string image, ContainerLimit limit, CancellationToken cancellationToken)
        {
            var id = await engine.StartAsync(image, limit, new Dictionary<string, string>(), null, cancellationToken);
            try
            {
                var address = await engine.PublishedAddressAsync(id, ContainerEngine.ApiPort, cancellationToken);
                await ContainerApiServers.WaitReadyAsync(address, id, limit, cancellationToken);
                return new Container(engine, id, new HttpClient { BaseAddress = address, Timeout = TimeSpan.FromMinutes(2) });
            }
            catch
            {
                await engine.RemoveAsync(id);
                throw;
            }
        }

        /// <summary>Seconds until all of <paramref name="concurrency"/> GETs sent at once have answered 2xx.</summary>
        public async Task<double> TimeAsync(string pathAndQuery, int concurrency, CancellationToken cancellationToken)
        {
            var watch = Stopwatch.StartNew();
            await Task.WhenAll(Enumerable.Range(0, concurrency).Select(async _ =>
            {
                using var response = await http.GetAsync(pathAndQuery, cancellationToken);
                response.EnsureSuccessStatusCode();
            }));
            return watch.Elapsed.TotalSeconds;
        }

        /// <summary>The container's cgroup cpu.stat now, or null when it cannot be read.</summary>
        public async Task<CgroupCpuStat?> CpuStatAsync(CancellationToken cancellationToken) =>
            await engine.ExecAsync(id, ReadCpuStat, cancellationToken) is { } text ? CgroupCpuStat.Parse(text) : null;

        public async ValueTask DisposeAsync()
        {
            http.Dispose();
            await engine.RemoveAsync(id);
        }
    }
}
