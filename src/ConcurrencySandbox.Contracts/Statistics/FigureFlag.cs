namespace ConcurrencySandbox.Contracts.Statistics;

/// <summary>Why a figure is flagged.</summary>
public enum FlagKind
{
    /// <summary>It cannot be true on this machine even at the far end of its CI: no verdict may use it.</summary>
    Impossible,

    /// <summary>Its 95 % CI stayed wider than the target (or it has none): no verdict may use it.</summary>
    Inconclusive,

    /// <summary>Other processes (or the hypervisor) took more than 10 % of the CPUs while it was measured: a cause, printed beside it.</summary>
    Busy,

    /// <summary>The cgroup's CFS quota paused the process while it was measured: a cause, printed beside it.</summary>
    Throttled,
}

/// <summary>A figure that is printed with a warning, and why.</summary>
/// <param name="Figure">Which figure: "10 cycles: % efficiency", "10 cycles: sync", "10 cycles: Task.Run" or "10 cycles: machine".</param>
/// <param name="Value">The figure as measured, with its unit and CI.</param>
/// <param name="Reason">One sentence saying why.</param>
public sealed record FigureFlag(string Figure, string Value, FlagKind Kind, string Reason)
{
    /// <summary>Every mark a table cell can carry, so a table can highlight flagged cells.</summary>
    public static readonly IReadOnlyList<string> AllMarks = [.. Enum.GetValues<FlagKind>().Select(MarkOf)];

    /// <summary>The mark put next to the flagged figure in a table.</summary>
    public string Mark => MarkOf(Kind);

    /// <summary>Whether a verdict must leave this figure out (impossible or inconclusive); busy and throttled only explain.</summary>
    public bool Excludes => Kind is FlagKind.Impossible or FlagKind.Inconclusive;

    public override string ToString() => $"{Figure} = {Value} {Mark}: {Reason}";

    private static string MarkOf(FlagKind kind) => kind switch
    {
        FlagKind.Impossible => "(impossible)",
        FlagKind.Inconclusive => "(inconclusive)",
        FlagKind.Busy => "(busy machine)",
        _ => "(CFS throttled)",
    };
}
