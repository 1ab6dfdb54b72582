using System.Runtime;

namespace ConcurrencySandbox.Experiments.ThreadPools;

/// <summary>The process-wide facts that decide how the pool behaves: processors and GC mode.</summary>
public static class RuntimeFacts
{
    public static int ProcessorCount => Environment.ProcessorCount;

    public static bool IsServerGC => GCSettings.IsServerGC;

    /// <summary>Background (concurrent) GC is on unless the latency mode says batch.</summary>
    public static bool IsConcurrentGC => GCSettings.LatencyMode != GCLatencyMode.Batch;

    /// <summary>For example "workstation, concurrent".</summary>
    public static string GCMode => $"{(IsServerGC ? "server" : "workstation")}, {(IsConcurrentGC ? "concurrent" : "non-concurrent")}";
}
