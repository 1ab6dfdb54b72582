namespace ConcurrencySandbox.Contracts.Receive;

/// <summary>
/// One way to receive a message with a timeout. Seed 002's before and after differ in two things, so two more
/// variants change one at a time: who owns the buffer, and how the timeout is waited for.
/// </summary>
/// <param name="Name">The name used in URLs and reports.</param>
/// <param name="AllocatesPerCall">A new message object and buffer per receive (disposed after) instead of one reused buffer.</param>
/// <param name="SpinsForTimeout">The timeout is kept by Stopwatch.StartNew and SpinWait over a non-blocking socket instead of the socket's own blocking timeout.</param>
public sealed record ReceiveVariant(string Name, bool AllocatesPerCall, bool SpinsForTimeout, string Description)
{
    public static readonly ReceiveVariant PerCall = new(
        "per-call", true, true, "the seed's before: a new message object and buffer per receive, timeout kept by Stopwatch.StartNew and SpinWait polling");

    public static readonly ReceiveVariant Preallocated = new(
        "preallocated", false, false, "the seed's after: one reused buffer, timeout kept by the blocking socket (SO_RCVTIMEO), no spinning");

    public static readonly ReceiveVariant Allocating = new(
        "allocating", true, false, "allocation only: a new message object and buffer per receive, timeout kept by the blocking socket");

    public static readonly ReceiveVariant Spinning = new(
        "spinning", false, true, "spinning only: one reused buffer, timeout kept by Stopwatch.StartNew and SpinWait polling");

    public static IReadOnlyList<ReceiveVariant> All { get; } = [PerCall, Preallocated, Allocating, Spinning];

    public static IReadOnlyList<string> Names { get; } = [.. All.Select(v => v.Name)];

    /// <summary>The variant with this name (case-insensitive), or null.</summary>
    public static ReceiveVariant? Find(string name) =>
        All.FirstOrDefault(v => string.Equals(v.Name, name, StringComparison.OrdinalIgnoreCase));
}
