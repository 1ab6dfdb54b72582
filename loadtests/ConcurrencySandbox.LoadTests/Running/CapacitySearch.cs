using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Running;

/// <summary>
/// <c>run --url --find-capacity</c>: where a service breaks. The ramp starts at <see cref="StartLoad"/> and doubles,
/// each step a fresh run of <see cref="Step"/> (closed users, or an open arrival rate), until p99 passes the SLO or more
/// than <see cref="Experiments.Experiment.MaxFailedPercent"/> % of requests fail, or a bound is reached
/// (<see cref="MaxLoad"/>, <see cref="MaxDuration"/> over all steps).
/// </summary>
public sealed record CapacityOptions(double? SloP99Ms, bool Open, double StartLoad, double MaxLoad, TimeSpan Step, TimeSpan MaxDuration)
{
    /// <summary>The default SLO: p99 within this many times the unloaded p99 (one user, measured first).</summary>
    public const double DefaultSloFactor = 2;

    public string Unit => Open ? "requests/s" : "users";

    /// <summary>The loads the ramp tries, in order: <see cref="StartLoad"/> doubling up to <see cref="MaxLoad"/> (the last one capped at it).</summary>
    public IEnumerable<double> Loads()
    {
        for (var load = StartLoad; ; load *= 2)
        {
            yield return Math.Min(load, MaxLoad);
            if (load >= MaxLoad)
            {
                yield break;
            }
        }
    }

    /// <summary>One step's load shape: <paramref name="load"/> users or requests/s held for <see cref="Step"/>.</summary>
    public LoadShape ShapeAt(double load) => new(
        [Open ? new Inject(load, Step) : new KeepConstant((int)load, Step)],
        TimeSpan.FromSeconds(Math.Max(1, Step.TotalSeconds / 5)));
}

/// <summary>What the ramp found: the unloaded p99 and the SLO, the last load held, the load that broke it and why, or the bound that ended the ramp first.</summary>
public sealed record CapacityFinding(string Unit, double UnloadedP99Ms, double SloP99Ms, double? HeldLoad, double? BrokeAt, string? BrokeBecause, string? Cause, string? Bound)
{
    /// <summary>The report's sentence: "Held 8 users; broke at 16 users (p99 1,234 ms over the SLO's 220 ms): pool starvation (...)".</summary>
    public string Describe()
    {
        var held = HeldLoad is { } h ? Invariant($"Held {h:0.#} {Unit}") : Invariant($"Held no load tried");
        var slo = Invariant($"SLO p99 {SloP99Ms:0.#} ms, unloaded p99 {UnloadedP99Ms:0.#} ms");
        return BrokeAt is { } b
            ? Invariant($"{held}; broke at {b:0.#} {Unit} ({BrokeBecause}; {slo}): {Cause}.")
            : Invariant($"{held} without breaking ({slo}); the break is above: {Bound}.");
    }

    /// <summary>
    /// What a plain load profile says about the break, without an unloaded measure: the peak step against twice the
    /// lowest step's p99 (the default SLO's factor, the lowest step standing for unloaded), its failures, and whether the
    /// pool starved; "held 40 users; the break is above: run --find-capacity" when none of them broke.
    /// </summary>
    public static string OfProfile(VariantResult result, bool starved)
    {
        var unit = result.LoadUnit == "rate" ? "requests/s" : result.LoadUnit;
        var peak = result.Steps.Count > 0 ? result.Steps[^1].Stats : result.Total;
        var peakLoad = result.PeakLoad;
        var lowest = result.Steps.Count >= 2 ? result.Steps[0] : null;
        var why = BrokeBy(peak, lowest is null ? double.PositiveInfinity : CapacityOptions.DefaultSloFactor * lowest.Stats.P99Ms)
            ?? (starved ? "the pool starved" : null);
        var against = lowest is null ? "one load step, so no lower step to compare p99 with" : Invariant($"p99 {peak.P99Ms:0.#} ms against {lowest.Stats.P99Ms:0.#} ms at {lowest.Load:0.#} {unit}");
        return why is null
            ? Invariant($"Held {peakLoad:0.#} {unit} ({against}, no more than 1 % failed, the pool not starved); the break is above: run --find-capacity.")
            : Invariant($"Broke by {peakLoad:0.#} {unit} ({why}; {against}); run --find-capacity for the load it holds and the cause at the break.");
    }

    /// <summary>Why a step broke the SLO: p99 over it, or more than 1 % of requests failed; null when it held.</summary>
    public static string? BrokeBy(LatencyStats stats, double sloP99Ms)
    {
        var failedPercent = stats.Requests == 0 ? 0 : 100.0 * stats.Failed / stats.Requests;
        if (failedPercent > Experiments.Experiment.MaxFailedPercent)
        {
            return Invariant($"{failedPercent:0.#} % of {stats.Requests} requests failed");
        }
        return stats.Completed > 0 && stats.P99Ms > sloP99Ms ? Invariant($"p99 {stats.P99Ms:0.#} ms") : null;
    }

    /// <summary>The process's CPU use (a share of all its processors) at or above which the cores are its limit.</summary>
    public const double CpuLimitPercent = 90;

    /// <summary>
    /// The cause at the break: pool starvation when the observer's diagnosis says starved (queue, injections), else CPU
    /// when the process used its cores' limit, else the upstream (latency grew while the pool did not); without the
    /// observer, why it cannot be said.
    /// </summary>
    public static string CauseOf(VariantResult broke, VariantObservation? observation, double unloadedP99Ms, string? notObservedBecause)
    {
        if (observation?.Diagnosis is not { } diagnosis)
        {
            return $"cause not known: the runtime was not observed ({notObservedBecause ?? "no pool series"})";
        }
        var peakCpuPercent = broke.Telemetry.Count == 0 ? 0 : broke.Telemetry.Max(t => t.Snapshot.Process.CpuPercent);
        if (diagnosis.Starved)
        {
            var spell = diagnosis.Inputs.Spell;
            return Invariant($"pool starvation (queue peaked at {diagnosis.Inputs.PeakQueueLength}, {spell.Injections} thread injections while starved for {spell.StarvedSeconds:0.#} s, {observation.Adjustments.Count} adjustments in all; the pool had {diagnosis.Inputs.PoolThreadsAtPeak} threads, the load needed {diagnosis.NeededThreads})");
        }
        if (peakCpuPercent >= CpuLimitPercent)
        {
            return Invariant($"CPU (the process used {peakCpuPercent:0} % of its {diagnosis.Inputs.ProcessorCount} cores)");
        }
        return Invariant($"the upstream (p99 grew from {unloadedP99Ms:0.#} ms to {broke.Total.P99Ms:0.#} ms while the pool, at {diagnosis.Inputs.PoolThreadsAtPeak} threads, was not short and the CPU peaked at {peakCpuPercent:0} %)");
    }
}
