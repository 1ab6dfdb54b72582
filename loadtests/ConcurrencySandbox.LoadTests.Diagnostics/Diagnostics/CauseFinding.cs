using ConcurrencySandbox.Contracts.Reports;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// One cause seen at the break: what it is (<paramref name="Cause"/>: "pool starvation", "CPU", "a contended lock", "GC",
/// "the upstream"), where to change it (<paramref name="Place"/>: the method in source words with file:line, or the call
/// "GET pricing:5001/quotes/{id}"; null when not known), the evidence in words, the figures it rests on (("p99 at the break", 1840, "ms")), and its
/// <paramref name="Weight"/>: the share (0 to 1) of the break it accounts for by its cause's own measure (see
/// <see cref="CauseFindings"/>), which ranks it among the others.
/// </summary>
public sealed record CauseFinding(string Cause, string? Place, string Evidence, IReadOnlyList<SummaryFigure> Figures, double Weight)
{
    /// <summary>"CPU (the process used 97 % of its 2 cores; ...)": the cause and its evidence, the form the headline's cause takes.</summary>
    public string Describe() => $"{Cause} ({Evidence})";
}

/// <summary>
/// The findings of one break, ranked: the first is the cause the headline names, the others are listed with their evidence.
/// Each weight is the share of the break its cause accounts for: pool starvation 1 (every request waits for a thread);
/// a contended lock, the share of the pool's sampled threads waiting on it; CPU, the process's share of its cores (1 when
/// the machine's cores were spent while the requests waited for one), less the GC's share when the GC is a finding too;
/// GC, its share of the break's time (<see cref="GcShare"/>: its pauses, and the allocator's share of the CPU samples
/// between them); the upstream, the slowest outgoing call's mean share of the requests' time at the break (its p99 over the
/// break's where that is not known). Ties keep the order given.
/// </summary>
public static class CauseFindings
{
    /// <summary>
    /// The share of the break the heaviest finding must account for to be named its cause. Below it the break is said to
    /// have no clear cause, the findings listed as seen: on a busy machine (load average 33, 2026-11-29) a hashing
    /// handler's CPU was not read as its limit and a GC whose pauses were 3 % of the step came first, and a headline that
    /// names a cause it rests 3 % of the break on sends the user to the wrong fix.
    /// </summary>
    public const double LeastShare = 0.10;

    /// <summary>Whether <paramref name="finding"/> accounts for enough of the break (<see cref="LeastShare"/>) to be named its cause.</summary>
    public static bool Accounts(CauseFinding finding) => finding.Weight >= LeastShare;

    /// <summary>The findings by weight, heaviest first (a stable sort: equal weights keep the order given).</summary>
    public static IReadOnlyList<CauseFinding> Rank(IEnumerable<CauseFinding> findings) => [.. findings.OrderByDescending(f => f.Weight)];
}
