namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// Which variant a result belongs to: the experiment's name for it (a strategy, a mode, a pool setting) and, in the
/// matrix, the core count the API was pinned to (and in the container matrix, how: quota or pinning). Reports print <see cref="Label"/>; verdicts and thresholds match on
/// <see cref="Name"/>, so no code strips a suffix back off.
/// </summary>
public sealed record VariantKey(string Name, int? Cpus = null, string? Limit = null)
{
    /// <summary>How reports and progress lines name the variant: "async", "async@2cpu" in the matrix, "async@2cpu-quota" in the container matrix.</summary>
    public string Label => Cpus is { } cpus ? (Limit is null ? $"{Name}@{cpus}cpu" : $"{Name}@{cpus}cpu-{Limit}") : Name;

    public override string ToString() => Label;
}
