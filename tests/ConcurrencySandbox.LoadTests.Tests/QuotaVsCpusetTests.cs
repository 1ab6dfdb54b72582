using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.Platform.Machine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class QuotaVsCpusetTests
{
    /// <summary>Twelve alternating rounds whose quota / cpuset ratios are <paramref name="ratios"/> (cpuset 0.5 s each).</summary>
    private static LimitRound[] Rounds(params double[] ratios) =>
        [.. ratios.Select((ratio, round) => new LimitRound(round % 2 == 0, 0.5 * ratio, 0.5))];

    [Fact]
    public void AQuotaWhoseWholeCiIsAboveOneCostsMoreAndTheLineSaysByHowMuch()
    {
        var verdict = QuotaVsCpuset.Judge("single-threaded request", 1, Rounds(2.0, 2.1, 1.9, 2.2, 2.0, 2.05, 1.95, 2.1, 2.0, 2.3, 1.8, 2.0), 10);

        Assert.Equal(LimitFinding.QuotaCostsMore, verdict.Finding);
        Assert.Equal(2.0, verdict.Ratio.Median, 3);
        Assert.StartsWith("ok: quota vs cpuset at 1 core, single-threaded request: quota / cpuset time 2.00 x [1.95, 2.10] n=12", verdict.Line(), StringComparison.Ordinal);
        Assert.Contains("the quota costs more: 100 % longer, CI [95 %, 110 %]", verdict.Line(), StringComparison.Ordinal);
    }

    [Fact]
    public void AQuotaSeveralTimesAsSlowIsSaidInTimesNotInPercent()
    {
        var verdict = QuotaVsCpuset.Judge("probe", 1, Rounds(10, 11, 9, 10.5, 9.5, 10, 12, 8, 10, 10.2, 9.8, 10), 10);

        Assert.Equal(LimitFinding.QuotaCostsMore, verdict.Finding);
        Assert.Contains("the quota costs more: 10.00 x as long, CI [", verdict.Line(), StringComparison.Ordinal);
        Assert.DoesNotContain("% longer", verdict.Line(), StringComparison.Ordinal);
    }

    [Fact]
    public void AWideCiThatStaysAboveOneStillDecidesTheDirection()
    {
        var verdict = QuotaVsCpuset.Judge("burst", 1, Rounds(1.2, 3.0, 1.5, 2.5, 1.3, 2.8, 1.4, 2.6, 1.6, 2.2, 1.7, 2.0), 10);

        Assert.Equal(LimitFinding.QuotaCostsMore, verdict.Finding);
        Assert.True(verdict.Ratio.HalfWidthPercent > 10);
    }

    [Fact]
    public void ACiBelowOneSaysTheCpusetCostsMore()
    {
        var verdict = QuotaVsCpuset.Judge("burst", 2, Rounds(0.8, 0.82, 0.79, 0.81, 0.8, 0.83, 0.78, 0.8, 0.81, 0.8, 0.79, 0.8), 10);

        Assert.Equal(LimitFinding.CpusetCostsMore, verdict.Finding);
        Assert.Contains("the cpuset costs more: the quota took 20 % less", verdict.Line(), StringComparison.Ordinal);
    }

    [Fact]
    public void ANarrowCiHoldingOneIsNoDifferenceAndAWideOneIsInconclusive()
    {
        var narrow = QuotaVsCpuset.Judge("request", 2, Rounds(0.99, 1.01, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.03, 0.97, 1.0), 10);
        var wide = QuotaVsCpuset.Judge("request", 2, Rounds(0.6, 1.5, 0.7, 1.4, 0.8, 1.3, 0.9, 1.2, 1.0, 1.1, 0.5, 1.6), 10);

        Assert.Equal(LimitFinding.NoDifference, narrow.Finding);
        Assert.StartsWith("ok: ", narrow.Line(), StringComparison.Ordinal);
        Assert.Equal(LimitFinding.Inconclusive, wide.Finding);
        Assert.StartsWith("inconclusive: quota vs cpuset at 2 cores", wide.Line(), StringComparison.Ordinal);
        Assert.Contains("a difference of that size is not ruled out", wide.Line(), StringComparison.Ordinal);
    }

    [Fact]
    public void ACiThatExcludesOneButLiesWithinTheTargetIsNoDifferenceOfThatSize()
    {
        // CI's two quiet stages: 1.02 x [1.00, 1.09] and 1.02 x [0.96, 1.08] at 2 cores; both now read the same way.
        var above = QuotaVsCpuset.Judge("request", 2, Rounds(1.02, 1.01, 1.03, 1.02, 1.05, 1.02, 1.01, 1.04, 1.02, 1.03, 1.02, 1.06), 10);
        var across = QuotaVsCpuset.Judge("request", 2, Rounds(0.97, 1.02, 1.05, 0.99, 1.02, 1.03, 1.0, 1.04, 1.02, 0.98, 1.02, 1.06), 10);
        var beyond = QuotaVsCpuset.Judge("request", 2, Rounds(1.05, 1.12, 1.08, 1.15, 1.06, 1.1, 1.2, 1.07, 1.09, 1.11, 1.13, 1.04), 10);

        Assert.Equal(LimitFinding.NoDifference, above.Finding);
        Assert.StartsWith("no difference beyond +-10 %: the CI [2 %, ", above.Reason, StringComparison.Ordinal);
        Assert.EndsWith("] lies within it", above.Reason, StringComparison.Ordinal);
        Assert.Equal(LimitFinding.NoDifference, across.Finding);
        Assert.Equal(LimitFinding.QuotaCostsMore, beyond.Finding);
    }

    [Fact]
    public void FewerThanSixRoundsGiveNoCiAndNoVerdictHoweverLargeTheRatio()
    {
        var verdict = QuotaVsCpuset.Judge("request", 1, Rounds(3, 3, 3, 3, 3), 10);

        Assert.Equal(LimitFinding.Inconclusive, verdict.Finding);
        Assert.Contains("5 rounds give no 95 % CI (at least 6 needed)", verdict.Line(), StringComparison.Ordinal);
    }

    [Fact]
    public void TheRatioIsTakenWithinEachRoundSoASpeedFlipThatHitsBothSidesCancels()
    {
        // The machine runs at half speed in the second half: both containers' times double, each round's ratio does not.
        LimitRound[] rounds = [.. Enumerable.Range(0, 12).Select(r => new LimitRound(r % 2 == 0, (r < 6 ? 1 : 2) * 0.6, (r < 6 ? 1 : 2) * 0.5))];

        var verdict = QuotaVsCpuset.Judge("request", 1, rounds, 10);

        Assert.Equal(1.2, verdict.Ratio.Low!.Value, 9);
        Assert.Equal(1.2, verdict.Ratio.High!.Value, 9);
        Assert.Equal(LimitFinding.QuotaCostsMore, verdict.Finding);
    }

    [Fact]
    public void TheCountersSayHowOftenTheQuotaThrottledAndHowMuchCpuTheContainerUsedPerSecondOfRequests()
    {
        var before = CgroupCpuStat.Parse("usage_usec 1000000\nnr_periods 100\nnr_throttled 10\nthrottled_usec 500000\n");
        var after = CgroupCpuStat.Parse("usage_usec 7000000\nnr_periods 160\nnr_throttled 55\nthrottled_usec 3700000\n");
        var cpuset = CgroupCpuStat.Parse("usage_usec 4000000\nnr_periods 0\n").Since(CgroupCpuStat.Parse("usage_usec 1000000\nnr_periods 0\n")); // no quota: the period counter stays 0

        var verdict = QuotaVsCpuset.Judge("request", 1, Rounds(2, 2, 2, 2, 2, 2), 10, after.Since(before), cpuset);

        // 6 rounds: quota 6 x 1 s of requests, cpuset 6 x 0.5 s.
        Assert.Contains("Counters: quota 45 of 60 CFS periods throttled (3.2 s), 1.00 s CPU per second of request time; cpuset no CFS quota periods, 1.00 s CPU per second of request time", verdict.Line(), StringComparison.Ordinal);
    }

    [Fact]
    public void AProbeRoundsFigureIsTheNinetiethPercentileOfItsLatenciesAndTheCountersAreDividedByTheBurstsTime()
    {
        // Ten probes a side: under the quota two of them waited out a throttled stretch (45 and 50 ms), under the cpuset none did.
        var quota = new ProbedBurst(0.4, [0.002, 0.003, 0.002, 0.050, 0.004, 0.002, 0.003, 0.045, 0.002, 0.003]);
        var cpuset = new ProbedBurst(0.5, [0.003, 0.002, 0.004, 0.003, 0.002, 0.005, 0.003, 0.002, 0.004, 0.003]);

        var round = LimitRound.Probe(true, quota, cpuset);

        // p90 of ten sorted values: rank 8.1, between the 9th and 10th smallest.
        Assert.Equal(0.0455, quota.ProbeSeconds, 9);
        Assert.Equal(0.0041, cpuset.ProbeSeconds, 9);
        Assert.Equal(0.0455 / 0.0041, round.Ratio, 9);
        Assert.Equal((0.4, 0.5), (round.QuotaBusySeconds, round.CpusetBusySeconds));
    }

    [Fact]
    public void ARequestRoundsWorkIsItsOwnTime()
    {
        var round = new LimitRound(false, 0.3, 0.2);

        Assert.Equal((0.3, 0.2), (round.QuotaBusySeconds, round.CpusetBusySeconds));
    }

    [Fact]
    public void TheProbeVerdictsCountersArePerSecondOfTheBurstNotOfTheProbesLatency()
    {
        ProbedBurst Burst(double seconds, double probeSeconds) => new(seconds, [.. Enumerable.Repeat(probeSeconds, 10)]);
        LimitRound[] rounds = [.. Enumerable.Range(0, 6).Select(r => LimitRound.Probe(r % 2 == 0, Burst(0.5, 0.04), Burst(0.5, 0.004)))];
        var throttled = new CgroupCpuStat(30, 15, 750_000, 3_000_000);

        var verdict = QuotaVsCpuset.Judge("probe", 1, rounds, 10, throttled, new CgroupCpuStat(0, 0, 0, 3_000_000), mustThrottle: true);

        // 6 bursts of 0.5 s on each side used 3 s of CPU: 1 s per second, whatever the probes' 40 and 4 ms.
        Assert.Equal(LimitFinding.QuotaCostsMore, verdict.Finding);
        Assert.Contains("quota / cpuset time 10.00 x", verdict.Line(), StringComparison.Ordinal);
        Assert.Contains("Counters: quota 15 of 30 CFS periods throttled (0.75 s), 1.00 s CPU per second of request time; cpuset no CFS quota periods, 1.00 s CPU per second of request time", verdict.Line(), StringComparison.Ordinal);
    }

    [Fact]
    public void AWorkloadThatHadToBeThrottledAndWasNotGetsNoVerdictHoweverClearItsRatio()
    {
        var unthrottled = new CgroupCpuStat(40, 0, 0, 2_000_000);

        var verdict = QuotaVsCpuset.Judge("throttled burst", 1, Rounds(2.0, 2.1, 1.9, 2.2, 2.0, 2.05, 1.95, 2.1, 2.0, 2.3, 1.8, 2.0), 10, unthrottled, null, mustThrottle: true);
        var unread = QuotaVsCpuset.Judge("throttled burst", 1, Rounds(2.0, 2.1, 1.9, 2.2, 2.0, 2.05, 1.95, 2.1, 2.0, 2.3, 1.8, 2.0), 10, null, null, mustThrottle: true);

        Assert.Equal(LimitFinding.Inconclusive, verdict.Finding);
        Assert.StartsWith("inconclusive: quota vs cpuset at 1 core, throttled burst:", verdict.Line(), StringComparison.Ordinal);
        Assert.Contains("not throttled: 0 of 40 CFS periods of the quota container throttled, so this run says nothing about what throttling costs (no verdict)", verdict.Line(), StringComparison.Ordinal);
        Assert.DoesNotContain("costs more", verdict.Line(), StringComparison.Ordinal);
        Assert.Equal(LimitFinding.Inconclusive, unread.Finding);
        Assert.Contains("cpu.stat was not read, so whether it was throttled is unknown", unread.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void AThrottledPeriodLetsTheThrottledWorkloadsVerdictStand()
    {
        Assert.Null(QuotaVsCpuset.NotThrottled(new CgroupCpuStat(40, 1, 20_000, 2_000_000)));

        var verdict = QuotaVsCpuset.Judge("throttled burst", 1, Rounds(1.0, 1.01, 0.99, 1.0, 1.02, 0.98), 10, new CgroupCpuStat(40, 18, 900_000, 2_000_000), null, mustThrottle: true);

        Assert.Equal(LimitFinding.NoDifference, verdict.Finding);
        Assert.Contains("quota 18 of 40 CFS periods throttled (0.9 s)", verdict.Line(), StringComparison.Ordinal);
    }

    [Fact]
    public void AnUnthrottledRunOfAnOrdinaryWorkloadStillGetsItsVerdict()
    {
        var verdict = QuotaVsCpuset.Judge("single-threaded request", 1, Rounds(2.0, 2.1, 1.9, 2.2, 2.0, 2.05), 10, new CgroupCpuStat(40, 0, 0, 2_000_000));

        Assert.Equal(LimitFinding.QuotaCostsMore, verdict.Finding);
    }

    [Theory]
    [InlineData(2, 2)]
    [InlineData(4, 2)]
    [InlineData(4, 4)]
    public void AQuotaOfEveryHostCpuCannotBeExceededSoTheThrottledWorkloadIsSkippedWithTheReason(int cores, int hostCpus)
    {
        var why = QuotaVsCpuset.CannotThrottle(cores, hostCpus);

        Assert.NotNull(why);
        Assert.StartsWith($"not applicable: a --cpus {cores} quota on a {hostCpus}-CPU host can never be exceeded", why, StringComparison.Ordinal);
        Assert.Equal($"skipped: quota vs cpuset at {cores} cores, throttled burst: {why}", QuotaVsCpuset.SkippedLine(cores, "throttled burst", why));
    }

    [Theory]
    [InlineData(1, 2)]
    [InlineData(2, 4)]
    public void AQuotaBelowTheHostsCpusCanBeExceeded(int cores, int hostCpus) =>
        Assert.Null(QuotaVsCpuset.CannotThrottle(cores, hostCpus));

    [Fact]
    public void CgroupV1CountersAreReadInMicroseconds()
    {
        var stat = CgroupCpuStat.Parse("nr_periods 40\nnr_throttled 3\nthrottled_time 2000000\nusage_ns 5000000\n");

        Assert.Equal(new CgroupCpuStat(40, 3, 2000, 5000), stat);
    }
}
