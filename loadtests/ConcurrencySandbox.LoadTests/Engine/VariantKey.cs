namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// Which variant a result belongs to: the experiment's name for it (a strategy, a mode, a pool setting) and, in the
/// matrix, the core count the API was pinned to. Reports print <see cref="Label"/>; verdicts and thresholds match on
/// <see cref="Name"/>, so no code strips a suffix back off.
/// </summary>
public sealed record VariantKey(string Name, int? Cpus = null)
{
    /// <summary>How reports and progress lines name the variant: "async", or "async@2cpu" in the matrix.</summary>
    public string Label => Cpus is { } cpus ? $"{Name}@{cpus}cpu" : Name;

    public override string ToString() => Label;
}
