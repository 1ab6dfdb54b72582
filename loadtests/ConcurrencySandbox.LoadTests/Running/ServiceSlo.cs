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

    /// <summary>
    /// Why a load broke the SLO: no request of it got an answer (<see cref="NoAnswer"/>: a p99 out of reach is no p99
    /// within the SLO, whatever the SLO, an infinite one included), more than 1 % of its requests failed (timeouts
    /// included), or its p99 passed it (read as a lower bound when timed-out requests reach its rank); null when it held.
    /// </summary>
    public string? BrokeBy(LatencyStats stats)
    {
        if (stats.Completed == 0)
        {
            return NoAnswer(stats);
        }
        var failedPercent = 100.0 * stats.Failed / stats.Requests;
        if (failedPercent > Experiments.Experiment.MaxFailedPercent)
        {
            var timedOut = stats.TimedOut > 0 ? Invariant($" ({stats.TimedOut} timed out)") : "";
            return Invariant($"{failedPercent:0.#} % of {stats.Requests} requests failed{timedOut}");
        }
        if (stats.P99Ms <= P99Ms)
        {
            return null;
        }
        var bound = stats.P99.IsLowerBound ? Invariant($" (a lower bound: {stats.TimedOut} of {stats.Requests} requests timed out)") : "";
        return Invariant($"p99 {stats.P99.Format()} ms{bound}");
    }

    /// <summary>
    /// "no request answered in the step: 12 timed out (lower bound >= 30000 ms), 0 failed": a step none of whose requests got
    /// an answer, its timeouts a lower bound on their latency (never a latency), its other failures counted; or none sent
    /// in it at all (every user still waiting on a request sent before it, which the step before counts).
    /// </summary>
    private static string NoAnswer(LatencyStats stats)
    {
        if (stats.Requests == 0)
        {
            return "no request answered in the step: none was sent in it (every user or in-flight slot still waited on an earlier request)";
        }
        var bound = stats.TimedOut == 0 ? ""
            : stats.TimedOutAtMs is { } atMs ? Invariant($" (lower bound >= {atMs:0.#} ms)")
            : " (lower bound: the client's timeout)";
        return Invariant($"no request answered in the step: {stats.TimedOut} timed out{bound}, {stats.Failed - stats.TimedOut} failed");
    }
}
