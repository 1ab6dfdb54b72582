using System.Globalization;
using System.Net;
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

    private AgentPool(AgentCoordinator coordinator) => Coordinator = coordinator;

    public AgentCoordinator Coordinator { get; }

    /// <summary>The load driver that runs <paramref name="driver"/>'s requests on the agents; only the HTTP ramp can be split.</summary>
    public ILoadDriver Distribute(ILoadDriver driver) => driver is HttpRamp ramp ? new DistributedRamp(ramp.Request, Coordinator) : throw NotSplittable(driver);

    /// <summary>Refuses, before anything starts, a variant whose load is not the HTTP ramp (a burst, raw TCP clients).</summary>
    public static void CheckSplittable(IEnumerable<ILoadDriver> drivers)
    {
        foreach (var driver in drivers.Where(d => d is not HttpRamp))
        {
            throw NotSplittable(driver);
        }
    }

    public static async Task<AgentPool> StartAsync(AgentPlan plan, string logFolder, TextWriter console, CancellationToken cancellationToken)
    {
        var coordinator = AgentCoordinator.Listen(plan.Listen ?? new IPEndPoint(IPAddress.Loopback, 0), plan.Count, console);
        coordinator.BarrierDeadline = plan.Deadline;
        coordinator.IntervalReceived = row => console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"agent {row.Index} t={row.ElapsedSeconds,6:0.0}s requests={row.Ok + row.HttpErrors + row.TimedOut + row.ConnectionErrors} cpu={row.CpuSeconds:0.0}s{(row.Partial ? " (tail)" : "")}"));
        var pool = new AgentPool(coordinator);
        try
        {
            await console.WriteLineAsync(string.Create(CultureInfo.InvariantCulture,
                $"agents: coordinator on {coordinator.Address}, waiting for {plan.Count} agent(s){(plan.StartsLocalAgents ? " started here" : "")}"));
            for (var i = 0; plan.StartsLocalAgents && i < plan.Count; i++)
            {
                pool._children.Add(ChildProcess.Start(new ChildLaunch(typeof(AgentPool).Assembly.Location,
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
        new($"--agents splits the HTTP ramp only; '{driver.Request}' is loaded another way (a burst or its own clients)");
}
