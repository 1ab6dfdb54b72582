using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.Contracts.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>
/// Figures a load run cannot produce on the machine it ran on. Each check returns why the figure is impossible, with
/// its likely cause, or null; an experiment's Assess turns a non-null answer into <see cref="Finding.Impossible"/>, never a verdict.
/// </summary>
internal static class PhysicalLimits
{
    /// <summary>
    /// The API's cores as it reported them in its telemetry; without telemetry the runner's own cores, a looser bound
    /// (a container's API has at most the host's).
    /// </summary>
    public static int CoresOf(VariantResult result) =>
        result.Telemetry.Count > 0 ? result.Telemetry[0].Snapshot.ProcessorCount : Environment.ProcessorCount;

    /// <summary>
    /// Splitting work over Task.Run can at best use every core: a throughput ratio (or efficiency) above
    /// <paramref name="cores"/> x 100 % means the variants did not run on equal terms.
    /// </summary>
    public static string? ThroughputRatio(string figure, double ratio, int cores) =>
        ratio > cores
            ? Invariant($"{figure} of {ratio * 100:0} % is above what {CountText.Of(cores, "core")} {(cores == 1 ? "allows" : "allow")} ({cores * 100} %); likely cause: one variant paid the JIT's warm-up or ran in a slower stretch of the machine (a speed change or CFS throttling), not the code")
            : null;

    /// <summary>A request that waits <paramref name="floorMs"/> cannot be answered sooner: a latency below that means the clock or the request was not what it claims.</summary>
    public static string? Latency(string figure, double latencyMs, double floorMs) =>
        latencyMs < floorMs
            ? Invariant($"{figure} of {latencyMs:0.#} ms is below the {floorMs:0.#} ms the request waits by design; likely cause: the request did not do the work it names (an error answered early, a cached answer) or the timing was cut short")
            : null;
}
