namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>Whether the runner attaches the runtime observer to the processes it starts, and whether it re-runs the starving variant with the sized minimum.</summary>
public sealed record ObserverOptions(bool Attach, bool VerifyFix)
{
    public static readonly ObserverOptions Default = new(Attach: true, VerifyFix: false);
}

/// <summary>
/// --verify-fix: the starving variant (<see cref="Before"/>) run again as <see cref="After"/> with the pool's minimum
/// raised to the diagnosis's <see cref="MinimumThreads"/> at start-up, shown side by side in the report.
/// </summary>
public sealed record FixCheck(string Before, string After, int MinimumThreads)
{
    /// <summary>The start-up setting the sandbox API (and the sample service) read for the pool's minimum.</summary>
    public const string MinimumSetting = "ThreadPool__MinWorkerThreads";

    /// <summary>
    /// The runtime's own setting for the pool's minimum, read by any .NET process at start-up (the knob behind
    /// runtimeconfig's <c>System.Threading.ThreadPool.MinThreads</c>); its value is hexadecimal, see <see cref="RuntimeMinimum"/>.
    /// </summary>
    public const string RuntimeMinimumSetting = "DOTNET_ThreadPool_ForceMinWorkerThreads";

    /// <summary>The value of <see cref="RuntimeMinimumSetting"/> for a minimum of <paramref name="threads"/>: the runtime parses it as hexadecimal ("64" would be 100 threads).</summary>
    public static string RuntimeMinimum(int threads) => FormattableString.Invariant($"0x{threads:X}");

    /// <summary>The starved variant short of the most threads, if any.</summary>
    public static (string Label, StarvationDiagnosis Diagnosis)? MostStarved(IReadOnlyDictionary<string, VariantObservation> observations) =>
        observations
            .Where(o => o.Value.Diagnosis is { Starved: true })
            .Select(o => (o.Key, o.Value.Diagnosis!))
            .OrderByDescending(o => o.Item2.NeededThreads - o.Item2.Inputs.PoolThreadsAtPeak)
            .Select(o => ((string, StarvationDiagnosis)?)o)
            .FirstOrDefault();
}
