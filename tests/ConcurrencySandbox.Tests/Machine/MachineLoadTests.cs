using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Platform.Machine;

namespace ConcurrencySandbox.Tests.Machine;

/// <summary>The machine-state readers on synthetic /proc and cgroup text.</summary>
public sealed class MachineLoadTests
{
    // user nice system idle iowait irq softirq steal guest guest_nice
    private const string ProcStatBefore = "cpu  1000 0 500 8000 100 0 0 0 50 0\ncpu0 500 0 250 4000 50 0 0 0 25 0\nintr 1 2 3\n";
    private const string ProcStatAfter = "cpu  1400 0 600 8400 100 0 0 100 60 0\ncpu0 700 0 300 4200 50 0 0 50 30 0\nintr 1 2 3\n";
    private const string SelfBefore = "4242 (dotnet api (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 200 100 0 0 20 0 12 0 500 1000 100";
    private const string SelfAfter = "4242 (dotnet api (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 350 150 0 0 20 0 12 0 500 1000 100";

    [Fact]
    public void ProcStatsAggregateLineGivesTotalBusyAndSteal()
    {
        var (total, busy, steal) = MachineCounters.ParseProcStat(ProcStatAfter);

        Assert.Equal(1400 + 600 + 8400 + 100 + 100, total);
        Assert.Equal(1400 + 600, busy);
        Assert.Equal(100, steal);
    }

    [Fact]
    public void SelfStatReadsUserAndSystemTicksPastANameWithSpacesAndParentheses()
    {
        Assert.Equal(350 + 150, MachineCounters.ParseSelfStat(SelfAfter));
    }

    [Theory]
    [InlineData("usage_usec 100\nnr_periods 40\nnr_throttled 12\nthrottled_usec 450000\n", 12L, 450000L)]
    [InlineData("nr_periods 40\nnr_throttled 3\nthrottled_time 2000000\n", 3L, 2000L)]
    [InlineData("usage_usec 100\n", null, null)]
    public void CgroupCpuStatGivesThrottledPeriodsAndMicrosecondsForV2AndV1(string text, long? periods, long? microseconds)
    {
        Assert.Equal((periods, microseconds), MachineCounters.ParseCpuStat(text));
    }

    [Fact]
    public void OtherProcessesAreTheMachinesBusyTimeMinusOurOwn()
    {
        var load = Read(ProcStatAfter, SelfAfter, "nr_throttled 5\nthrottled_usec 1500000\n")
            .Since(Read(ProcStatBefore, SelfBefore, "nr_throttled 2\nthrottled_usec 500000\n"), seconds: 2);

        // 1000 ticks passed on all CPUs; the machine was busy for 500 of them, 200 of which were ours; 100 were stolen.
        Assert.Equal(30, load.OtherProcessesPercent, 9);
        Assert.Equal(10, load.StealPercent, 9);
        Assert.Equal(3, load.ThrottledPeriods);
        Assert.Equal(1.0, load.ThrottledSeconds!.Value, 9);
        Assert.True(load.Busy);
        Assert.True(load.Throttled);
    }

    [Theory]
    [InlineData(0.2, false)] // 20 ticks per CPU: too coarse to name a cause
    [InlineData(1, true)]
    public void OnlyAnIntervalOfASecondOrMoreIsJudgedBusy(double seconds, bool busy)
    {
        Assert.Equal(busy, new MachineLoad(seconds, OtherProcessesPercent: 50, StealPercent: 0, null, null).Busy);
    }

    [Fact]
    public void WithoutACgroupCpuStatThereIsNoThrottlingFigure()
    {
        var load = Read(ProcStatAfter, SelfBefore, null).Since(Read(ProcStatBefore, SelfBefore, null), seconds: 2);

        Assert.Null(load.ThrottledPeriods);
        Assert.False(load.Throttled);
        Assert.DoesNotContain("throttled", load.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(MachineCounters.CgroupV1CpuStat)]
    [InlineData(MachineCounters.CgroupV1CpuOnlyStat)]
    public void CgroupV1sCpuStatIsReadWhereverTheCpuControllerIsMounted(string path)
    {
        var counters = MachineCounters.Read(p => p == path ? "nr_throttled 7\nthrottled_time 3000000\n" : p == MachineCounters.ProcStat ? ProcStatAfter : p == MachineCounters.SelfStat ? SelfAfter : null)!;

        Assert.Equal(7, counters.ThrottledPeriods);
        Assert.Equal(3000, counters.ThrottledMicroseconds);
    }

    [Fact]
    public void WithoutProcThereAreNoCounters()
    {
        Assert.Null(MachineCounters.Read(_ => null));
    }

    private static MachineCounters Read(string procStat, string selfStat, string? cpuStat) =>
        MachineCounters.Read(path => path switch
        {
            MachineCounters.ProcStat => procStat,
            MachineCounters.SelfStat => selfStat,
            MachineCounters.CgroupV2CpuStat => cpuStat,
            _ => null,
        })!;
}
