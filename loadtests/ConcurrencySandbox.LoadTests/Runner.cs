using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests;

/// <summary>Runs what the command line asked for and turns the thresholds into the exit code.</summary>
public static class Runner
{
    public static async Task<int> RunAsync(RunRequest request, TextWriter console, CancellationToken cancellationToken)
    {
        if (request.Experiment == "matrix")
        {
            return await MatrixRunner.RunAsync(request, console, cancellationToken);
        }
        var names = request.Experiment == "all" ? Catalog.Names : [request.Experiment];
        if (request.Target is not null && names.Contains("coldstart"))
        {
            if (request.Experiment == "coldstart")
            {
                throw new UsageException("coldstart starts a fresh API per pool setting, so it cannot use --target");
            }
            console.WriteLine("note: coldstart is skipped with --target (it needs to start fresh API processes)");
            names = [.. names.Where(n => n != "coldstart")];
        }
        var plans = names.Select(n => Catalog.Create(n, request.Settings)).ToList();
        ExperimentRunner.CheckThresholdsNameVariants(plans, request.Thresholds);

        ApiServers servers = request.Target is { } target ? new TargetApiServers(target) : new ChildApiServers(ApiLaunch.Default);
        if (request.Target is not null)
        {
            console.WriteLine($"target: {request.Target}");
        }
        var passed = true;
        foreach (var plan in plans)
        {
            var report = await ExperimentRunner.RunAsync(plan, request.Load, servers, request.Thresholds, console, cancellationToken);
            var folder = request.Experiment == "all" ? Path.Combine(request.OutputFolder, plan.Name) : request.OutputFolder;
            ReportWriter.Write(folder, report, RunnerCommandLine.Current());
            passed &= PrintOutcome(report, folder, console);
        }
        return passed ? CommandLine.ExitOk : CommandLine.ExitThresholdFailed;
    }

    /// <summary>Prints the verdict and every failed limit; true when all thresholds passed.</summary>
    public static bool PrintOutcome(ExperimentReport report, string folder, TextWriter console)
    {
        console.WriteLine($"== {report.Experiment}: {report.Finding.Verdict}");
        foreach (var failed in report.Thresholds.Where(t => !t.Passed))
        {
            console.WriteLine($"THRESHOLD FAILED: {failed.Threshold} on {failed.Variant} (actual {failed.Actual:0.###})");
        }
        console.WriteLine($"report: {Path.GetFullPath(folder)}");
        return report.Passed;
    }
}
