using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments.FanOut;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;
using ConcurrencySandbox.LoadTests.Runs;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>Runs what the command line asked for and turns the thresholds into the exit code.</summary>
public static class Runner
{
    public static async Task<int> RunAsync(RunRequest request, TextWriter console, CancellationToken cancellationToken)
    {
        var passed = request.Runs > 1
            ? await RepeatedRuns.RunAsync(request.Runs, request.OutputFolder, folder => RunOnceAsync(request with { OutputFolder = folder }, console, cancellationToken), console)
            : (await RunOnceAsync(request, console, cancellationToken)).Passed;
        return passed ? CommandLine.ExitOk : CommandLine.ExitThresholdFailed;
    }

    private static async Task<RunResult> RunOnceAsync(RunRequest request, TextWriter console, CancellationToken cancellationToken)
    {
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
            return await MatrixRunner.RunAsync(request.Matrix, request.Get<FanOutExperiment>(), request.Load, request.Thresholds, request.OutputFolder, console, cancellationToken);
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
            experiments = [.. experiments.Where(e => !e.NeedsFreshApi)];
        }
        ExperimentRunner.CheckThresholdsNameVariants([.. experiments.SelectMany(e => e.Variants).Select(v => new VariantKey(v.Name))], request.Thresholds);

        if (request.Agents is not null)
        {
            AgentPool.CheckSplittable(experiments.SelectMany(e => e.Variants).Select(v => v.Driver));
        }
        await using var agents = request.Agents is { } plan ? await AgentPool.StartAsync(plan, Path.Combine(request.OutputFolder, "agents"), console, cancellationToken) : null;
        ApiServers servers = request.Target is { } target ? new TargetApiServers(target) : new ChildApiServers(ApiLaunch.Default);
        if (request.Target is not null)
        {
            console.WriteLine($"target: {request.Target}");
        }
        var results = new List<RunResult>();
        foreach (var experiment in experiments)
        {
            var report = await ExperimentRunner.RunAsync(experiment, request.Load, servers, request.Thresholds, console, cancellationToken, observe: request.Observe, agents: agents);
            var folder = request.Experiment == "all" ? Path.Combine(request.OutputFolder, experiment.Name) : request.OutputFolder;
            ReportWriter.Write(folder, report, RunnerCommandLine.Current());
            results.Add(RunResult.Of(report) with { Passed = ReportWriter.PrintOutcome(report, folder, console) });
        }
        return RunResult.Combine(results);
    }
}
