namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// One agent's row in the report: its requests, its CPU use against its processors, and the fault that ended it, if
/// any. "Client-bound" when its CPU was at its limit: the merged throughput is then a lower bound on the server's capacity.
/// </summary>
public sealed record AgentRow(int Index, string Host, long Requests, double CpuSeconds, double ElapsedSeconds, int ProcessorCount, string? Fault)
{
    /// <summary>At or above this share of its processors an agent counts as client-bound.</summary>
    public const double ClientBoundPercent = 90;

    /// <summary>CPU used as a percentage of the agent's processors over its run (0 when it never ran).</summary>
    public double CpuPercent => ElapsedSeconds > 0 && ProcessorCount > 0 ? CpuSeconds / ElapsedSeconds / ProcessorCount * 100 : 0;

    public bool ClientBound => CpuPercent >= ClientBoundPercent;
}
