using System.Globalization;
using System.Net;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Platform.Hosting;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// A run's coordinator and, for local agents, their processes (<c>agent --coordinator tcp://127.0.0.1:PORT --index I</c>,
/// each pinned when the plan says so): started before the first variant, told to finish and stopped after the last.
/// </summary>
public sealed class AgentPool : IAsyncDisposable
{
    private readonly List<ChildProcess> _children = [];
    private readonly AgentPlan _plan;

    private AgentPool(AgentCoordinator coordinator, AgentPlan plan) => (Coordinator, _plan) = (coordinator, plan);

    public AgentCoordinator Coordinator { get; }

    /// <summary>
    /// The load driver that runs <paramref name="driver"/>'s load on the agents: the HTTP ramp through the coordinator,
    /// a driver's own client processes (the streaming clients) as one per local agent.
    /// </summary>
    public ILoadDriver Distribute(ILoadDriver driver) => driver switch
    {
        HttpRamp ramp => new DistributedRamp(ramp.Request, Coordinator),
        IOwnClientsDriver own => own.OnLocalAgents(_plan),
        _ => throw NotSplittable(driver),
    };

    /// <summary>
    /// Refuses, before anything starts, a variant whose load cannot be split (a burst, the receive experiment's clients),
    /// and own client processes with agents started elsewhere.
    /// </summary>
    public static void CheckSplittable(AgentPlan plan, IEnumerable<ILoadDriver> drivers)
    {
        foreach (var driver in drivers)
        {
            switch (driver)
            {
                case IOwnClientsDriver when !plan.StartsLocalAgents:
                    throw new UsageException($"'{driver.Request}' connects to the fresh API's loopback port on this machine, which agents started elsewhere cannot reach; use --agents N without --agent-listen");
                case IOwnClientsDriver own:
                    // Spread once here for its checks (agent cpus apart from the server's), before any process starts.
                    own.OnLocalAgents(plan);
                    break;
                case not HttpRamp:
                    throw NotSplittable(driver);
            }
        }
    }

    /// <param name="runnerAssembly">The command-line app's assembly, which each local agent process runs with <c>agent</c>.</param>
    public static async Task<AgentPool> StartAsync(AgentPlan plan, string runnerAssembly, string logFolder, TextWriter console, CancellationToken cancellationToken)
    {
        var coordinator = AgentCoordinator.Listen(plan.Listen ?? new IPEndPoint(IPAddress.Loopback, 0), plan.Count, console);
        coordinator.BarrierDeadline = plan.Deadline;
        coordinator.IntervalReceived = row => console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"agent {row.Index} t={row.ElapsedSeconds,6:0.0}s requests={row.Ok + row.HttpErrors + row.TimedOut + row.ConnectionErrors} cpu={row.CpuSeconds:0.0}s{(row.Partial ? " (tail)" : "")}"));
        var pool = new AgentPool(coordinator, plan);
        try
        {
            await console.WriteLineAsync(string.Create(CultureInfo.InvariantCulture,
                $"agents: coordinator on {coordinator.Address}, waiting for {CountText.Of(plan.Count, "agent")}{(plan.StartsLocalAgents ? " started here" : "")}"));
            for (var i = 0; plan.StartsLocalAgents && i < plan.Count; i++)
            {
                pool._children.Add(ChildProcess.Start(new ChildLaunch(runnerAssembly,
                    ["agent", "--coordinator", coordinator.Address.ToString(), "--index", i.ToString(CultureInfo.InvariantCulture), "--log-dir", Path.GetFullPath(logFolder)])
                {
                    Cpus = plan.CpusOf(i),
                }));
            }
            await coordinator.WaitForAgentsAsync(cancellationToken);
            return pool;
        }
        catch
        {
            await pool.DisposeAsync();
            throw;
        }
    }

    public async ValueTask DisposeAsync()
    {
        Coordinator.Finish();
        foreach (var child in _children)
        {
            try
            {
                await child.WaitForExitAsync(TimeSpan.FromSeconds(10));
            }
            catch (OperationCanceledException)
            {
                // Still running after finish: disposing kills it.
            }
            await child.DisposeAsync();
        }
        Coordinator.Dispose();
    }

    private static UsageException NotSplittable(ILoadDriver driver) =>
        new($"--agents splits the HTTP ramp and the streaming clients only; '{driver.Request}' is loaded another way (a burst or its own clients)");
}
