using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// A load driver whose load is client processes of its own rather than the HTTP ramp (the streaming experiment's
/// <c>streaming-clients</c>): with local agents it runs its clients as one such process per agent, each its share, pinned
/// where that agent is (<see cref="AgentPlan.CpusOf"/>), and adds their reports up.
/// </summary>
public interface IOwnClientsDriver : ILoadDriver
{
    /// <summary>The same load with its clients spread over <paramref name="plan"/>'s local agents.</summary>
    ILoadDriver OnLocalAgents(AgentPlan plan);
}
