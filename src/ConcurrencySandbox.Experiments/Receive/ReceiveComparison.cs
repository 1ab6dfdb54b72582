using System.Globalization;
using ConcurrencySandbox.Contracts.Receive;
using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.Platform.Machine;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.Experiments.Receive;

public static class ReceiveComparison
{
    /// <summary>Messages each variant receives once, untimed, before the measured rounds (fewer if the plan has fewer).</summary>
    public const int WarmupMessages = 1000;

    /// <summary>Warms every variant up, then runs them <paramref name="repeat"/> times, rotating which goes first, and takes medians.</summary>
    public static async Task<ReceiveComparisonReport> CompareAsync(ReceivePlan plan, int repeat, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(repeat, 1);
        var variants = ReceiveVariant.All;
        var warmup = plan with { Messages = Math.Min(plan.Messages, WarmupMessages), IntervalMs = 0 };
        foreach (var variant in variants)
        {
            await ReceiveRunner.RunAsync(variant, warmup, cancellationToken);
        }

        var runs = variants.ToDictionary(v => v, _ => new List<ReceiveResult>(repeat));
        for (var round = 0; round < repeat; round++)
        {
            for (var i = 0; i < variants.Count; i++)
            {
                var variant = variants[(round + i) % variants.Count];
                runs[variant].Add(await ReceiveRunner.RunAsync(variant, plan, cancellationToken));
            }
        }

        var summaries = variants.Select(v => Summarise(v, runs[v])).ToList();
        var perCall = summaries[0];
        var preallocated = summaries[1];
        var cpuRatio = perCall.CpuNsPerReceive / preallocated.CpuNsPerReceive;
        var allocatingRatio = summaries[2].CpuNsPerReceive / preallocated.CpuNsPerReceive;
        var spinningRatio = summaries[3].CpuNsPerReceive / preallocated.CpuNsPerReceive;
        var seed = new Seed002Receive(Seed002Figures.PerCallCpuTicks, Seed002Figures.PreallocatedCpuTicks, Seed002Figures.CpuRatio);
        return new ReceiveComparisonReport(
            plan,
            repeat,
            warmup.Messages,
            ThreadCpuClock.Name,
            MessageReceiver.AllocationCounter,
            summaries,
            cpuRatio,
            preallocated.AllocatedBytesPerReceive > 0 ? perCall.AllocatedBytesPerReceive / preallocated.AllocatedBytesPerReceive : null,
            allocatingRatio,
            spinningRatio,
            seed,
            Verdict(plan, perCall, preallocated, cpuRatio, allocatingRatio, spinningRatio),
            CurrentMachine.Info);
    }

    private static ReceiveVariantSummary Summarise(ReceiveVariant variant, List<ReceiveResult> runs)
    {
        var cpu = Spreads.Of(runs.Select(r => r.CpuNsPerReceive).ToList());
        return new ReceiveVariantSummary(
            variant.Name,
            variant.Description,
            cpu.Median,
            Spreads.Of(runs.Select(r => r.AllocatedBytesPerReceive).ToList()).Median,
            Spreads.Of(runs.Select(r => r.WallNsPerReceive).ToList()).Median,
            cpu,
            runs.Sum(r => r.Timeouts),
            runs.Sum(r => r.OutOfOrderMessages));
    }

    /// <summary>The comparison in words: is seed 002's effect still there, which cause carries it, and what the plan could not show.</summary>
    private static string Verdict(
        ReceivePlan plan, ReceiveVariantSummary perCall, ReceiveVariantSummary preallocated, double cpuRatio, double allocatingRatio, double spinningRatio)
    {
        var seedRatio = Seed002Figures.CpuRatio;
        var headline = cpuRatio >= seedRatio * 0.75 ? "Still there"
            : cpuRatio >= 1.25 ? "Smaller than in the seed"
            : cpuRatio > 0.8 ? "Gone at this message rate"
            : "Reversed at this message rate";
        var text = string.Create(
            CultureInfo.InvariantCulture,
            $"{headline}: per-call used {cpuRatio:0.0}x preallocated's CPU per receive ({perCall.CpuNsPerReceive:0} vs {preallocated.CpuNsPerReceive:0} ns), " +
            $"against the seed's {seedRatio:0.0}x. It allocated {perCall.AllocatedBytesPerReceive:0} bytes per receive, preallocated {preallocated.AllocatedBytesPerReceive:0.##}. " +
            $"Allocation alone cost {allocatingRatio:0.00}x and the spinning timeout path alone {spinningRatio:0.00}x preallocated's CPU.");
        return plan.IntervalMs == 0
            ? text + string.Create(
                CultureInfo.InvariantCulture,
                $" Messages were sent back to back ({preallocated.WallNsPerReceive:0} ns apart for preallocated), so every wait was short and a spin soon found the next one: intervalMs=1 shows the spinning timeout path when messages are sparse.")
            : text + string.Create(CultureInfo.InvariantCulture, $" One message every {plan.IntervalMs} ms: every receive waited, spinning or blocked in the kernel.");
    }
}
