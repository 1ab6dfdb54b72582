using System.Runtime;

namespace ConcurrencySandbox.Experiments.ThreadPools;

/// <summary>The garbage collector's mode, which decides how many GC threads compete with the pool.</summary>
public static class GCMode
{
    /// <summary>Background (concurrent) GC is on unless the latency mode says batch.</summary>
    public static bool IsConcurrent => GCSettings.LatencyMode != GCLatencyMode.Batch;

    /// <summary>For example "workstation, concurrent".</summary>
    public static string Description =>
        $"{(GCSettings.IsServerGC ? "server" : "workstation")}, {(IsConcurrent ? "concurrent" : "non-concurrent")}";
}
