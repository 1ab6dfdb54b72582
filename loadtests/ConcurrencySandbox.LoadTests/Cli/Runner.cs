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
    /// <summary>An experiment, <c>all</c> or <c>matrix</c>: checked, then run in the <see cref="RunRoot"/> its settings build.</summary>
    public static async Task<int> RunAsync(RunRequest request, TextWriter console, CancellationToken cancellationToken)
    {
        var experiments = Runnable(request, console);
        await using var root = await RunRoot.StartAsync(PlanOf(request), request.Settings, experiments.SelectMany(e => e.Variants).Select(v => v.Driver), console, TimeProvider.System, cancellationToken);
        return await RunToEndAsync(root, async () =>
        {
            var result = request.Runs > 1
                ? await RepeatedRuns.RunAsync(request.Runs, request.Settings.OutputFolder, folder => RunOnceAsync(request, experiments, folder, root, cancellationToken), root.Console)
                : await RunOnceAsync(request, experiments, request.Settings.OutputFolder, root, cancellationToken);
            if (result.Stopped is { } stopped)
            {
                root.End("cancelled", $"The run was stopped before it finished: the report up to that point is in {Path.GetFullPath(stopped.Folder)}, marked {stopped.Partial}.");
                // The stop as the command line handles every cancellation (its line, exit 130): the result is written, not carried.
                cancellationToken.ThrowIfCancellationRequested();
            }
            return result.Passed ? CommandLine.ExitOk : CommandLine.ExitThresholdFailed;
        }, cancellationToken);
    }

    /// <summary>
    /// Runs a command's <paramref name="body"/> in <paramref name="root"/> and ends its progress as the run ended: finished
    /// (every threshold passed, or one failed), stopped with a partial report or before one, or failed on bad input (a body
    /// may end it first in its own words, which stand). Returns the body's exit code; a stop or bad input is rethrown for
    /// the command to word.
    /// </summary>
    public static async Task<int> RunToEndAsync(RunRoot root, Func<Task<int>> body, CancellationToken cancellationToken)
    {
        var folder = root.Settings.OutputFolder;
        int exitCode;
        try
        {
            exitCode = await body();
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            root.End("cancelled", "The run was stopped (Ctrl+C or SIGTERM) before it finished: no report was written for the experiment that was running.");
            throw;
        }
        catch (Exception e) when (e is UsageException or FormatException)
        {
            root.End("failed", $"The run stopped: {e.Message}");
            throw;
        }
        if (File.Exists(Path.Combine(folder, "report.html")))
        {
            root.ReportWritten(folder);
        }
        switch (exitCode)
        {
            case CommandLine.ExitOk or CommandLine.ExitThresholdFailed:
                root.Finished(exitCode == CommandLine.ExitOk, folder);
                break;
            case CommandLine.ExitCancelled:
                root.End("cancelled", $"The run was stopped before it finished: the report up to that point is in {Path.GetFullPath(folder)}.");
                break;
            default:
                root.End("failed", "The run stopped: see the lines above.");
                break;
        }
        return exitCode;
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

    /// <summary>
    /// The experiments the command can run, checked before anything starts: matrix takes neither --target nor --agents;
    /// with --target those that need fresh API processes are refused (one) or skipped with a note (<c>all</c>); every
    /// threshold must name a variant that runs.
    /// </summary>
    private static IReadOnlyList<Experiment> Runnable(RunRequest request, TextWriter console)
    {
        if (request.Experiment == "matrix")
        {
            if (request.Target is not null)
            {
                throw new UsageException("matrix starts its own pinned API per core count, so it cannot use --target");
            }
            if (request.Settings.Agents is not null)
            {
                throw new UsageException("matrix starts its own pinned API per core count and loads it itself, so it cannot use --agents");
            }
            // Its thresholds name variants by their matrix labels, checked by the matrix.
            return [request.Get<FanOutExperiment>()];
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
        ExperimentRunner.CheckThresholdsNameVariants([.. experiments.SelectMany(e => e.Variants).Select(v => new VariantKey(v.Name))], request.Settings.Thresholds);
        return experiments;
    }

    private static async Task<RunResult> RunOnceAsync(RunRequest request, IReadOnlyList<Experiment> experiments, string outputFolder, RunRoot root, CancellationToken cancellationToken)
    {
        if (request.Experiment == "matrix")
        {
            // Finished or stopped, the matrix report is written: the live page shows it before the run ends.
            var matrix = await MatrixRunner.RunAsync(request.Matrix!, request.Get<FanOutExperiment>(), request.Load, outputFolder, root, cancellationToken);
            root.ReportWritten(outputFolder);
            return matrix;
        }
        ApiServers servers = request.Target is { } target ? new TargetApiServers(target) : new ChildApiServers(ApiLaunch.Default);
        if (request.Target is not null)
        {
            root.Console.WriteLine($"target: {request.Target}");
        }
        var results = new List<RunResult>();
        foreach (var experiment in experiments)
        {
            var folder = request.Experiment == "all" ? Path.Combine(outputFolder, experiment.Name) : outputFolder;
            // The report is written as each variant finishes, so a run killed outright leaves the variants it measured.
            var report = await root.RunAsync(experiment, request.Load, servers, cancellationToken, rounds: request.Rounds, roundsBudget: request.RoundsBudget,
                variantFinished: soFar => ReportWriter.Write(folder, soFar, RunnerCommandLine.Current()));
            var summary = ReportWriter.Write(folder, report, RunnerCommandLine.Current());
            root.ReportWritten(folder);
            results.Add(RunResult.Of(summary) with { Passed = ReportWriter.PrintOutcome(summary, folder, root.Console) });
            if (summary.Partial is { } partial)
            {
                return RunResult.Combine(results) with { Stopped = new RunStopped(partial, folder) };
            }
        }
        return RunResult.Combine(results);
    }
}
