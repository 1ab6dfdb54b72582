using ConcurrencySandbox.LoadTests.Engine;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Running;

/// <summary>
/// The one rule that says a load broke the service, for --find-capacity's steps and a plain profile's steps alike: its
/// p99 passed the SLO (given by --slo-p99-ms, else <see cref="CapacityOptions.DefaultSloFactor"/> x the unloaded p99,
/// at least <see cref="UnloadedBaseline.SloFloorMs"/>), or more than <see cref="Experiments.Experiment.MaxFailedPercent"/> %
/// of its requests failed or timed out. A starved pool alone never broke it: a spell that did not move p99 past the SLO
/// is "starved for N s; latency held".
/// </summary>
/// <param name="P99Ms">The p99 the service must keep, in ms.</param>
/// <param name="Described">"SLO p99 40 ms (2 x the unloaded p99 of 20 ms: ...)": which SLO and where it came from.</param>
internal sealed record ServiceSlo(double P99Ms, string Described)
{
    /// <summary>The SLO given (<paramref name="givenP99Ms"/>), else the default one of <paramref name="baseline"/>, with how it was set.</summary>
    public static ServiceSlo Of(double? givenP99Ms, UnloadedBaseline baseline)
    {
        var p99Ms = givenP99Ms ?? baseline.DefaultSloMs;
        return new ServiceSlo(p99Ms, baseline.DescribeSlo(p99Ms, given: givenP99Ms is not null));
    }

    /// <summary>Why a load broke the SLO: more than 1 % of its requests failed (timeouts included), or its p99 passed it; null when it held.</summary>
    public string? BrokeBy(LatencyStats stats)
    {
        var failedPercent = stats.Requests == 0 ? 0 : 100.0 * stats.Failed / stats.Requests;
        if (failedPercent > Experiments.Experiment.MaxFailedPercent)
        {
            var timedOut = stats.TimedOut > 0 ? Invariant($" ({stats.TimedOut} timed out)") : "";
            return Invariant($"{failedPercent:0.#} % of {stats.Requests} requests failed{timedOut}");
        }
        return stats.Completed > 0 && stats.P99Ms > P99Ms ? Invariant($"p99 {stats.P99Ms:0.#} ms") : null;
    }
}
