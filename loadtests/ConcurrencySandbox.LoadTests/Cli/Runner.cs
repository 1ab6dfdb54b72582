using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments.FanOut;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Progress;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;
using ConcurrencySandbox.LoadTests.Runs;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>Runs what the command line asked for and turns the thresholds into the exit code.</summary>
internal static class Runner
{
    /// <param name="terminalWidth">The terminal's width when the output is one (a status line is drawn), null when it is redirected (plain lines).</param>
    public static async Task<int> RunAsync(RunRequest request, TextWriter console, CancellationToken cancellationToken, Func<int>? terminalWidth = null)
    {
        using var session = ProgressSession.Start(PlanOf(request), console, new ProgressOptions(terminalWidth, request.Verbose, request.LivePort), TimeProvider.System);
        RunResult result;
        try
        {
            result = request.Runs > 1
                ? await RepeatedRuns.RunAsync(request.Runs, request.OutputFolder, folder => RunOnceAsync(request with { OutputFolder = folder }, session, cancellationToken), session.Console)
                : await RunOnceAsync(request, session, cancellationToken);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            session.End("cancelled", "The run was stopped (Ctrl+C or SIGTERM) before it finished: no report was written for the experiment that was running.");
            throw;
        }
        catch (Exception e) when (e is UsageException or FormatException)
        {
            session.End("failed", $"The run stopped: {e.Message}");
            throw;
        }
        if (result.Stopped is { } stopped)
        {
            session.End("cancelled", $"The run was stopped before it finished: the report up to that point is in {Path.GetFullPath(stopped.Folder)}, marked {stopped.Partial}.");
            // The stop as the command line handles every cancellation (its line, exit 130): the result is written, not carried.
            cancellationToken.ThrowIfCancellationRequested();
        }
        session.Finished(result.Passed, request.OutputFolder);
        return result.Passed ? CommandLine.ExitOk : CommandLine.ExitThresholdFailed;
    }

    /// <summary>Every variant the command will run, in order, with its planned length: the status line's "i of n" and remaining time.</summary>
    public static RunPlanned PlanOf(RunRequest request)
    {
        var title = $"{request.Experiment}, {request.Load.ProfileName}";
        if (request.Experiment == "matrix")
        {
            // The matrix's variants depend on the cores the machine has: counted as they start, with no remaining time.
            return new RunPlanned(title, []);
        }
        var once = request.Runnable.SelectMany(e => e.Variants.Select(v =>
        {
            var seconds = v.Driver.PlannedLength(request.Load).TotalSeconds;
            return new PlannedVariant(ProgressEvent.SeriesOf(e.Name, new VariantKey(v.Name)), seconds, seconds > 0 ? request.Load.Shape.Steps.Count : 0);
        })).ToList();
        return new RunPlanned(title, [.. Enumerable.Repeat(once, request.Runs).SelectMany(v => v)]);
    }

    private static async Task<RunResult> RunOnceAsync(RunRequest request, ProgressSession session, CancellationToken cancellationToken)
    {
        var console = session.Console;
        if (request.Experiment == "matrix")
        {
            if (request.Target is not null)
            {
                throw new UsageException("matrix starts its own pinned API per core count, so it cannot use --target");
            }
            if (request.Agents is not null)
            {
                throw new UsageException("matrix starts its own pinned API per core count and loads it itself, so it cannot use --agents");
            }
            // Finished or stopped, the matrix report is written: the live page shows it before the run ends.
            var matrix = await MatrixRunner.RunAsync(request.Matrix!, request.Get<FanOutExperiment>(), request.Load, request.Thresholds, request.OutputFolder, console, cancellationToken, session.Progress);
            session.ReportWritten(request.OutputFolder);
            return matrix;
        }
        var experiments = request.Selected;
        if (request.Target is not null && experiments.Any(e => e.NeedsFreshApi))
        {
            if (experiments.Count == 1)
            {
                throw new UsageException($"{request.Experiment} starts a fresh API per variant, so it cannot use --target");
            }
            foreach (var skipped in experiments.Where(e => e.NeedsFreshApi))
            {
                console.WriteLine($"note: {skipped.Name} is skipped with --target (it needs to start fresh API processes)");
            }
            experiments = request.Runnable;
        }
        ExperimentRunner.CheckThresholdsNameVariants([.. experiments.SelectMany(e => e.Variants).Select(v => new VariantKey(v.Name))], request.Thresholds);

        if (request.Agents is { } agentPlan)
        {
            AgentPool.CheckSplittable(agentPlan, experiments.SelectMany(e => e.Variants).Select(v => v.Driver));
        }
        await using var agents = request.Agents is { } plan ? await AgentPool.StartAsync(plan, typeof(Runner).Assembly.Location, Path.Combine(request.OutputFolder, "agents"), console, cancellationToken) : null;
        ApiServers servers = request.Target is { } target ? new TargetApiServers(target) : new ChildApiServers(ApiLaunch.Default);
        if (request.Target is not null)
        {
            console.WriteLine($"target: {request.Target}");
        }
        var results = new List<RunResult>();
        foreach (var experiment in experiments)
        {
            var folder = request.Experiment == "all" ? Path.Combine(request.OutputFolder, experiment.Name) : request.OutputFolder;
            // The report is written as each variant finishes, so a run killed outright leaves the variants it measured.
            var report = await ExperimentRunner.RunAsync(experiment, request.Load, servers, request.Thresholds, console, cancellationToken, observe: request.Observe, agents: agents, progress: session.Progress,
                rounds: request.Rounds, roundsBudget: request.RoundsBudget, variantFinished: soFar => ReportWriter.Write(folder, soFar, RunnerCommandLine.Current()));
            var summary = ReportWriter.Write(folder, report, RunnerCommandLine.Current());
            session.ReportWritten(folder);
            results.Add(RunResult.Of(summary) with { Passed = ReportWriter.PrintOutcome(summary, folder, console) });
            if (summary.Partial is { } partial)
            {
                return RunResult.Combine(results) with { Stopped = new RunStopped(partial, folder) };
            }
        }
        return RunResult.Combine(results);
    }
}
