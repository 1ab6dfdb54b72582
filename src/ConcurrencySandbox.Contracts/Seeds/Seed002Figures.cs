namespace ConcurrencySandbox.Contracts.Seeds;

/// <summary>Seed 002's figures (shared/seeds), printed beside today's by the API's receive compare and the load runner's receive verdict.</summary>
public static class Seed002Figures
{
    /// <summary>
    /// Seed 002 (clrzmq's Receive under the ANTS profiler), CPU ticks per receive with per-call message objects and
    /// Stopwatch/SpinWait in the timeout path: the seed's own 191,196,025 ticks / 14,548 receives. The profiler's tick
    /// is not a unit we can reproduce, so only the before/after ratio compares with today's.
    /// </summary>
    public const double PerCallCpuTicks = 191_196_025.0 / 14_548;

    /// <summary>Seed 002 after pre-allocated buffers and a narrower timeout path: 5,132,725,522 ticks / 1,903,448 receives.</summary>
    public const double PreallocatedCpuTicks = 5_132_725_522.0 / 1_903_448;

    public const double CpuRatio = PerCallCpuTicks / PreallocatedCpuTicks;
}
