using System.Globalization;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// What the diagnosis is computed from, all measured: the requests in flight at the peak (Little's law: rate x time
/// in the system; a closed model's users, an open model's arrival rate x the fastest request's latency) and what
/// that is (<paramref name="InFlightBasis"/>), the pool threads one request holds while it blocks, the pool threads
/// the process had at the peak and how fast the pool grew, the queue and the runtime's starvation injections.
/// </summary>
public sealed record DiagnosisInputs(
    double RequestsInFlight,
    string InFlightBasis,
    double ThreadsPerRequest,
    int PoolThreadsAtPeak,
    double GrowthPerSecond,
    long PeakQueueLength,
    int StarvationAdjustments,
    string? CallSite);

/// <summary>
/// Little's law sizes the pool the load needs: N = requests in flight x pool threads each holds while blocked. Starved
/// when the pool had fewer threads than that and the runtime injected threads for starvation or as many items queued as threads were missing; the fix is to stop blocking (make the call async) or to
/// raise the pool's minimum to N, and <see cref="SecondsToGrow"/> says how long the pool's own injection would take
/// instead (null when it did not grow).
/// </summary>
public sealed record StarvationDiagnosis(DiagnosisInputs Inputs, int NeededThreads, bool Starved, double? SecondsToGrow)
{
    public static StarvationDiagnosis From(DiagnosisInputs inputs)
    {
        var needed = (int)Math.Ceiling(inputs.RequestsInFlight * Math.Max(1, inputs.ThreadsPerRequest) - 1e-9);
        var shortBy = needed - inputs.PoolThreadsAtPeak;
        // A pool short of threads starves when the runtime injected threads for starvation, or work piled up for the missing ones.
        var starved = shortBy > 0 && (inputs.StarvationAdjustments > 0 || inputs.PeakQueueLength >= shortBy);
        double? secondsToGrow = starved && inputs.GrowthPerSecond > 0 ? shortBy / inputs.GrowthPerSecond : null;
        return new StarvationDiagnosis(inputs, needed, starved, secondsToGrow);
    }

    /// <summary>
    /// Pool threads one request holds: 1 when only request threads block; when the request also queues blocking work
    /// on the pool (a fan-out), the pool work items each request caused, all counted as holding a thread, so the
    /// minimum errs high rather than low.
    /// </summary>
    public static double ThreadsPerRequest(bool blocksQueuedWork, double workItemsPerRequest) =>
        blocksQueuedWork ? Math.Max(1, workItemsPerRequest) : 1;

    /// <summary>Threads the pool added per second over a run of samples (first to highest), 0 for fewer than two.</summary>
    public static double Growth(IReadOnlyList<(double Seconds, int Threads)> series)
    {
        if (series.Count < 2)
        {
            return 0;
        }
        var first = series[0];
        var peak = series.MaxBy(s => s.Threads);
        return peak.Seconds > first.Seconds ? (peak.Threads - first.Threads) / (peak.Seconds - first.Seconds) : 0;
    }

    /// <summary>The report's paragraph.</summary>
    public string Describe()
    {
        var i = Inputs;
        var where = i.CallSite is null ? "" : $" The blocking call site: {i.CallSite}.";
        var sizing = Invariant($"needed about {NeededThreads} threads ({i.RequestsInFlight:0.#} requests in flight ({i.InFlightBasis}) x {Math.Max(1, i.ThreadsPerRequest):0.#} pool threads each, Little's law)");
        if (!Starved)
        {
            return Invariant($"Not starved: the load {sizing}; the pool had {i.PoolThreadsAtPeak} at the peak (queue peaked at {i.PeakQueueLength}, {i.StarvationAdjustments} starvation injections).{where}");
        }
        var growth = SecondsToGrow is { } s
            ? Invariant($"growing {i.GrowthPerSecond:0.#}/s, it would take about {s:0} s to get there by itself")
            : "and it did not grow during the run";
        return Invariant($"Starved: the load {sizing}; the pool had {i.PoolThreadsAtPeak}, {growth} (queue peaked at {i.PeakQueueLength}, {i.StarvationAdjustments} starvation injections).{where} Fix: make the blocking call async, or set the pool's minimum to {NeededThreads} (ThreadPool.SetMinThreads, or ThreadPool__MinWorkerThreads={NeededThreads} for the sandbox API and the sample service).");
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
