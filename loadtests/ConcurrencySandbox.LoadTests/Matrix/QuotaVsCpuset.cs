using System.Globalization;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Platform.Machine;
using ConcurrencySandbox.Platform.Statistics;
using ConcurrencySandbox.Contracts.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Matrix;

/// <summary>
/// One round: the same request timed on the quota container and on the cpuset container, back to back; or a figure taken
/// while they ran (a probe's latency, <see cref="Probe"/>), in seconds too.
/// </summary>
/// <param name="QuotaFirst">Which ran first; rounds alternate (AB BA ..., <see cref="MeasurementPolicy.BFirst"/>) so a change in the machine's speed hits both.</param>
internal sealed record LimitRound(bool QuotaFirst, double QuotaSeconds, double CpusetSeconds)
{
    /// <summary>How many times longer the request took under the quota: above 1 the quota cost more.</summary>
    public double Ratio => QuotaSeconds / CpusetSeconds;

    /// <summary>How long the quota container worked in this round, the denominator of its CPU per second: the request's time unless the figure was taken during it.</summary>
    public double QuotaBusySeconds { get; init; } = QuotaSeconds;

    /// <summary>As <see cref="QuotaBusySeconds"/>, for the cpuset container.</summary>
    public double CpusetBusySeconds { get; init; } = CpusetSeconds;

    /// <summary>The round's probe figure (<see cref="ProbedBurst.ProbeSeconds"/>) on each side; the bursts' times are the work the counters are divided by.</summary>
    public static LimitRound Probe(bool quotaFirst, ProbedBurst quota, ProbedBurst cpuset) =>
        new(quotaFirst, quota.ProbeSeconds, cpuset.ProbeSeconds) { QuotaBusySeconds = quota.Seconds, CpusetBusySeconds = cpuset.Seconds };
}

/// <summary>One side of a throttled-burst round: how long the burst took until its last answer, and the latencies of the probes sent while it ran.</summary>
internal sealed record ProbedBurst(double Seconds, IReadOnlyList<double> ProbeLatenciesSeconds)
{
    /// <summary>
    /// The percentile of the round's probe latencies that is its figure: a probe that lands in a throttled stretch waits for
    /// the next CFS period, so the stalls show in the upper tail (about half of a period's 100 ms is stalled when two
    /// threads share a 1-CPU quota); the median of about 40 probes a round would miss them when fewer than half stall.
    /// </summary>
    public const double ProbePercentile = 90;

    /// <summary>The <see cref="ProbePercentile"/>th percentile of <see cref="ProbeLatenciesSeconds"/> (linear between ranks).</summary>
    public double ProbeSeconds => ProbeLatenciesSeconds.Count == 0
        ? throw new InvalidOperationException("A burst with no probe has no probe figure.")
        : Percentile.OfSorted([.. ProbeLatenciesSeconds.Order()], ProbePercentile);
}

internal enum LimitFinding
{
    /// <summary>The ratio's whole 95 % CI is above 1.</summary>
    QuotaCostsMore,

    /// <summary>The ratio's whole 95 % CI is below 1.</summary>
    CpusetCostsMore,

    /// <summary>The CI holds 1 and is within the target width: any difference is smaller than that.</summary>
    NoDifference,

    /// <summary>Too few rounds for a CI, a CI that holds 1 but is wider than the target, or a workload that had to be throttled and was not.</summary>
    Inconclusive,
}

/// <summary>One container's side of a verdict: its request times, their sum, and what its cgroup counted while the rounds ran (null: not read).</summary>
internal sealed record LimitSide(Estimate Seconds, double TotalSeconds, CgroupCpuStat? Stat)
{
    /// <summary>"12 of 40 CFS periods throttled (0.8 s), 1.15 s CPU per second of request time", "no CFS quota periods, ..." (no quota) or "cpu.stat not read".</summary>
    public override string ToString()
    {
        if (Stat is null)
        {
            return "cpu.stat not read";
        }
        var periods = Stat.Periods is { } p and > 0
            ? Invariant($"{Stat.ThrottledPeriods ?? 0} of {p} CFS periods throttled ({(Stat.ThrottledMicroseconds ?? 0) / 1e6:0.###} s)")
            : "no CFS quota periods";
        var usage = Stat.UsageMicroseconds is { } us
            ? Invariant($", {us / 1e6 / TotalSeconds:0.00} s CPU per second of request time")
            : "";
        return periods + usage;
    }
}

/// <summary>
/// The verdict on one workload at one core count: quota / cpuset time per paired round, its median and 95 % CI
/// (<see cref="Estimates"/>), and each container's side.
/// </summary>
internal sealed record LimitVerdict(string Workload, int Cores, LimitFinding Finding, Estimate Ratio, string Reason, LimitSide Quota, LimitSide Cpuset)
{
    /// <summary>"ok: quota vs cpuset at 1 core, ..." or "inconclusive: quota vs cpuset at 2 cores, ...": the container stage's line.</summary>
    public string Line() =>
        Invariant($"{(Finding == LimitFinding.Inconclusive ? "inconclusive" : "ok")}: quota vs cpuset at {CountText.Of(Cores, "core")}, {Workload}: quota / cpuset time {Ratio.Describe("0.00", " x")}; ") +
        Invariant($"quota {Quota.Seconds.Describe("0.000", " s")}, cpuset {Cpuset.Seconds.Describe("0.000", " s")}: {Reason}. ") +
        $"Counters: quota {Quota}; cpuset {Cpuset}";
}

/// <summary>Judges whether a CFS quota (<c>--cpus N</c>) costs a request more than a cpuset of the same N cores (<c>--cpuset-cpus</c>).</summary>
internal static class QuotaVsCpuset
{
    public const double DefaultTargetHalfWidthPercent = 10;

    /// <summary>
    /// The ratio's whole CI within 1 +-<paramref name="targetHalfWidthPercent"/> %: no difference of that size (even when it
    /// excludes 1: two runs gave 1.02 x [1.00, 1.09] and 1.02 x [0.96, 1.08], one difference that small read two ways);
    /// else the whole CI above 1: the quota costs more; below 1: the cpuset does; else inconclusive. Fewer than
    /// <see cref="MedianInterval.MinimumCount"/> rounds give no CI: inconclusive. A workload that is there to be throttled
    /// (<paramref name="mustThrottle"/>) gets no verdict unless the quota's counters show a throttled period (<see cref="NotThrottled"/>).
    /// </summary>
    public static LimitVerdict Judge(string workload, int cores, IReadOnlyList<LimitRound> rounds, double targetHalfWidthPercent,
        CgroupCpuStat? quotaStat = null, CgroupCpuStat? cpusetStat = null, bool mustThrottle = false)
    {
        if (rounds.Count == 0)
        {
            throw new ArgumentException("At least one round is needed.", nameof(rounds));
        }
        var ratio = Estimates.Of([.. rounds.Select(r => r.Ratio)]);
        var (finding, reason) = ratio switch
        {
            _ when mustThrottle && NotThrottled(quotaStat) is { } why => (LimitFinding.Inconclusive, why),
            { Low: null } => (LimitFinding.Inconclusive, Invariant($"{CountText.Of(rounds.Count, "round")} {(rounds.Count == 1 ? "gives" : "give")} no 95 % CI (at least {MedianInterval.MinimumCount} needed)")),
            _ when ratio.Low > 1 - (targetHalfWidthPercent / 100) && ratio.High < 1 + (targetHalfWidthPercent / 100) =>
                (LimitFinding.NoDifference, Invariant($"no difference beyond +-{targetHalfWidthPercent:0.#} %: the CI [{Percent(ratio.Low.Value - 1)}, {Percent(ratio.High!.Value - 1)}] lies within it")),
            { Low: > 1, Median: >= TimesFrom } => (LimitFinding.QuotaCostsMore, Invariant($"the quota costs more: {ratio.Median:0.00#} x as long, CI [{ratio.Low.Value:0.00#} x, {ratio.High!.Value:0.00#} x]")),
            { Low: > 1 } => (LimitFinding.QuotaCostsMore, Invariant($"the quota costs more: {Percent(ratio.Median - 1)} longer, CI [{Percent(ratio.Low.Value - 1)}, {Percent(ratio.High!.Value - 1)}]")),
            { High: < 1 } => (LimitFinding.CpusetCostsMore, Invariant($"the cpuset costs more: the quota took {Percent(1 - ratio.Median)} less, CI [{Percent(1 - ratio.High.Value)}, {Percent(1 - ratio.Low.Value)}]")),
            _ => (LimitFinding.Inconclusive, Invariant($"the CI holds 1 but is +-{ratio.HalfWidthPercent:0.#} % wide (target +-{targetHalfWidthPercent:0.#} %): a difference of that size is not ruled out")),
        };
        return new LimitVerdict(workload, cores, finding, ratio, reason,
            new LimitSide(Estimates.Of([.. rounds.Select(r => r.QuotaSeconds)]), rounds.Sum(r => r.QuotaBusySeconds), quotaStat),
            new LimitSide(Estimates.Of([.. rounds.Select(r => r.CpusetSeconds)]), rounds.Sum(r => r.CpusetBusySeconds), cpusetStat));
    }

    /// <summary>
    /// Why a run of a workload meant to be throttled says nothing about throttling: the quota container's counters were not
    /// read, or show no throttled period; null when they show one.
    /// </summary>
    public static string? NotThrottled(CgroupCpuStat? quotaStat) => quotaStat switch
    {
        null => "the quota container's cpu.stat was not read, so whether it was throttled is unknown: no verdict about throttling",
        { ThrottledPeriods: > 0 } => null,
        _ => Invariant($"not throttled: {quotaStat.ThrottledPeriods ?? 0} of {quotaStat.Periods ?? 0} CFS periods of the quota container throttled, so this run says nothing about what throttling costs (no verdict)"),
    };

    /// <summary>
    /// Why a workload meant to exceed the quota cannot at <paramref name="cores"/> on a host of <paramref name="hostCpus"/>,
    /// or null when it can: a quota of every host CPU (or more) is never spent before the period ends.
    /// </summary>
    public static string? CannotThrottle(int cores, int hostCpus) => cores >= hostCpus
        ? Invariant($"not applicable: a --cpus {cores} quota on a {hostCpus}-CPU host can never be exceeded (the container's threads cannot run on more than {CountText.Of(hostCpus, "CPU")} at once), so nothing is throttled and no verdict is given")
        : null;

    /// <summary>"skipped: quota vs cpuset at 2 cores, throttled burst (...): why": the container stage counts it as skipped.</summary>
    public static string SkippedLine(int cores, string workload, string why) => $"skipped: quota vs cpuset at {CountText.Of(cores, "core")}, {workload}: {why}";

    /// <summary>From this ratio up the quota's cost is said in times ("10.05 x as long") rather than percent ("904.7 % longer").</summary>
    private const double TimesFrom = 3;

    private static string Percent(double share) => (share * 100).ToString("0.#", CultureInfo.InvariantCulture) + " %";
}
