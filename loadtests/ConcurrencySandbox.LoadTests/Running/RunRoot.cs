using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Progress;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Running;

/// <summary>
/// What the command line says about a run beyond its load and its target, the same for every command that sends load
/// (each experiment, <c>all</c>, <c>matrix</c>, <c>run --url</c>): how its progress is shown, the limits it is judged
/// by, whether the runtime is observed, how the load is spread over agents, and where the report goes.
/// </summary>
internal sealed record RunSettings(ProgressOptions Progress, IReadOnlyList<Threshold> Thresholds, ObserverOptions Observe, AgentPlan? Agents, string OutputFolder);

/// <summary>
/// The composition root of a run: built once per command from its <see cref="RunSettings"/>, it holds the console (a
/// status line on a terminal, plain lines otherwise), the progress and the live page, the clock, the load agents, the
/// observer's options and the thresholds, and runs each experiment with all of them. Every command that sends load
/// starts one, so each gets every capability the same way; what differs between commands is only the servers they
/// load (one API child per variant, a target, a pinned child or a container per core count, a user's process).
/// </summary>
internal sealed class RunRoot : IAsyncDisposable
{
    private readonly ProgressSession _session;

    private RunRoot(ProgressSession session, RunSettings settings, TimeProvider clock, AgentPool? agents)
    {
        _session = session;
        Settings = settings;
        Clock = clock;
        Agents = agents;
    }

    public RunSettings Settings { get; }

    public TimeProvider Clock { get; }

    /// <summary>The load agents of <c>--agents N</c>, registered and ready; null when this process makes all the load.</summary>
    public AgentPool? Agents { get; }

    /// <summary>Where the run's lines go: above the status line on a terminal.</summary>
    public TextWriter Console => _session.Console;

    public RunProgress Progress => _session.Progress;

    /// <summary>
    /// Builds what a run needs, in the order its lines appear: the progress (the live page's address is the first
    /// line), then the load agents, which must be able to split <paramref name="drivers"/>' load. (How the process's
    /// sockets complete is set once for the whole process, in Program.cs, before its first socket.)
    /// </summary>
    public static async Task<RunRoot> StartAsync(RunPlanned plan, RunSettings settings, IEnumerable<ILoadDriver> drivers, TextWriter output, TimeProvider clock, CancellationToken cancellationToken)
    {
        if (settings.Agents is { } agentPlan)
        {
            AgentPool.CheckSplittable(agentPlan, drivers);
        }
        var session = ProgressSession.Start(plan, output, settings.Progress, clock);
        try
        {
            var agents = settings.Agents is { } started
                ? await AgentPool.StartAsync(started, typeof(RunRoot).Assembly.Location, Path.Combine(settings.OutputFolder, "agents"), session.Console, cancellationToken)
                : null;
            return new RunRoot(session, settings, clock, agents);
        }
        catch
        {
            session.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Runs <paramref name="experiment"/> against <paramref name="servers"/> with the run's console, progress, observer
    /// options, agents and thresholds.
    /// </summary>
    /// <param name="variantFinished">Called with the report so far as each variant finishes (the experiments' commands write it).</param>
    public Task<ExperimentReport> RunAsync(
        Experiment experiment, LoadOptions load, ApiServers servers, CancellationToken cancellationToken,
        int? cpus = null, string? limit = null, int? rounds = null, TimeSpan? roundsBudget = null, Action<ExperimentReport>? variantFinished = null) =>
        ExperimentRunner.RunAsync(experiment, load, servers, Settings.Thresholds, Console, cancellationToken, cpus, limit, Settings.Observe, Agents, Progress, rounds, roundsBudget, variantFinished);

    /// <summary>A report.html was written in <paramref name="folder"/>: the live page's <c>/report</c> serves it.</summary>
    public void ReportWritten(string folder) => _session.ReportWritten(folder);

    /// <summary>The run is over (<paramref name="outcome"/>: finished, cancelled, failed): the page is told and may load the report.</summary>
    public void End(string outcome, string message) => _session.End(outcome, message);

    /// <summary>The run finished (not stopped): whether every threshold passed, and where its report is.</summary>
    public void Finished(bool passed, string folder) => _session.Finished(passed, folder);

    public async ValueTask DisposeAsync()
    {
        if (Agents is not null)
        {
            await Agents.DisposeAsync();
        }
        _session.Dispose();
    }
}
