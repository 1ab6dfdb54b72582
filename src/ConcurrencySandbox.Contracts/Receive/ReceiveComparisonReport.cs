using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Contracts.Receive;
using ConcurrencySandbox.Contracts.Statistics;

namespace ConcurrencySandbox.Contracts.Receive;

/// <summary>One variant's medians over the compare's rounds.</summary>
/// <param name="CpuNs">Spread of CPU nanoseconds per receive over the rounds.</param>
/// <param name="Timeouts">Receives that timed out, summed over the rounds.</param>
/// <param name="OutOfOrderMessages">Summed over the rounds; anything but 0 means a message was lost or reordered.</param>
public sealed record ReceiveVariantSummary(
    string Variant,
    string Description,
    double CpuNsPerReceive,
    double AllocatedBytesPerReceive,
    double WallNsPerReceive,
    Spread CpuNs,
    long Timeouts,
    long OutOfOrderMessages);

/// <summary>Seed 002's figures: CPU ticks per receive before (per-call) and after (preallocated), as its profiler counted them.</summary>
public sealed record Seed002Receive(double PerCallCpuTicks, double PreallocatedCpuTicks, double CpuRatio);

/// <summary>Seed 002's row today: the four variants side by side, ratios against preallocated, the seed's ratio and a verdict.</summary>
/// <param name="CpuRatio">per-call / preallocated CPU per receive (medians): the seed measured 4.9.</param>
/// <param name="AllocatedBytesRatio">per-call / preallocated bytes per receive; null when preallocated allocated nothing.</param>
/// <param name="AllocatingCpuRatio">allocating / preallocated CPU: the share of the effect due to allocation alone.</param>
/// <param name="SpinningCpuRatio">spinning / preallocated CPU: the share due to the spinning timeout path alone.</param>
public sealed record ReceiveComparisonReport(
    ReceivePlan Plan,
    int Repeat,
    int WarmupMessages,
    string CpuClock,
    string AllocationCounter,
    IReadOnlyList<ReceiveVariantSummary> Variants,
    double CpuRatio,
    double? AllocatedBytesRatio,
    double AllocatingCpuRatio,
    double SpinningCpuRatio,
    Seed002Receive Seed,
    string Verdict,
    MachineInfo Machine);
