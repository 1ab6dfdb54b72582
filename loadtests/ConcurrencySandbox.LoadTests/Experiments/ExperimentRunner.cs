using System.Globalization;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Telemetry;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>Runs an experiment's variants one after another against the servers and builds its report.</summary>
public static class ExperimentRunner
{
    public static async Task<ExperimentReport> RunAsync(
        ExperimentPlan plan,
        LoadOptions load,
        ApiServers servers,
        IReadOnlyList<Threshold> userThresholds,
        TextWriter console,
        CancellationToken cancellationToken,
        string labelSuffix = "")
    {
        var started = DateTimeOffset.Now;
        var results = new List<VariantResult>();
        var shape = plan.BurstCopies is { } copies ? $"a burst of {copies} concurrent requests the moment a fresh API is ready" : load.Describe();
        console.WriteLine($"== {plan.Name}{labelSuffix}: {plan.Variants.Count} variant(s) against {servers.Describe()}; {shape}");
        foreach (var variant in plan.Variants)
        {
            results.Add(await RunVariantAsync(plan, variant, load, servers, console, labelSuffix, cancellationToken));
        }
        var thresholds = Thresholds.Evaluate([.. plan.DefaultThresholds, .. userThresholds], results);
        // The verdict knows the variants by their plain names, without a matrix label such as "@2cpu".
        var finding = plan.Assess([.. results.Select((result, i) => result with { Name = plan.Variants[i].Name })]);
        return new ExperimentReport(plan.Name, plan.Seed, plan.IsColdStart ? "burst" : load.ProfileName, shape, servers.Describe(), started,
            MachineFacts.Current(), results, finding, thresholds);
    }

    /// <summary>Rejects a user threshold that names no variant of any of the plans before anything runs.</summary>
    public static void CheckThresholdsNameVariants(IReadOnlyList<ExperimentPlan> plans, IEnumerable<Threshold> userThresholds)
    {
        var variants = plans.SelectMany(p => p.Variants).Select(v => v.Name).Distinct().ToList();
        foreach (var threshold in userThresholds.Where(t => !variants.Any(t.AppliesTo)))
        {
            throw new UsageException($"threshold '{threshold}' names no variant (variants: {string.Join(", ", variants)}, or *)");
        }
    }

    private static async Task<VariantResult> RunVariantAsync(
        ExperimentPlan plan, Variant variant, LoadOptions load, ApiServers servers, TextWriter console, string labelSuffix, CancellationToken cancellationToken)
    {
        await using var server = await servers.AcquireAsync(variant.Environment, cancellationToken);
        using var telemetry = new SandboxClient(server.BaseAddress);
        if (!servers.StartsOwnProcess && !await telemetry.IsHealthyAsync(cancellationToken))
        {
            throw new UsageException($"target {server.BaseAddress} is unreachable (GET /healthz did not answer 2xx)");
        }
        using var http = new HttpLoadClient(server.BaseAddress, load.RequestTimeout);
        IWorkload workload = plan.BurstCopies is { } copies ? new Burst(copies)
            : load.Shape.IsOpen ? new OpenModel(load.Shape, load.MaxInFlight)
            : new ClosedModel(load.Shape);
        var interval = plan.IsColdStart ? LoadOptions.BurstInterval : load.Shape.ReportingInterval;
        var name = variant.Name + labelSuffix;
        console.WriteLine($"-- {plan.Name}/{name}: GET {variant.Request} on {server.BaseAddress}");
        if (!plan.IsColdStart)
        {
            // One unmeasured request first, so the JIT and the first connection are not in the curves
            // (the cold start is exactly what the coldstart experiment measures, so it gets none).
            await http.Get(variant.Request)(cancellationToken);
        }
        var queueWaits = variant.ReportsQueueWait ? new QueueWaitProbe() : null;
        var result = await VariantRunner.RunAsync(name, variant.Request, workload, http.Get(variant.Request, queueWaits), interval, telemetry,
            (row, latest) => console.WriteLine(ProgressLine(plan.Name, row, latest)), cancellationToken);
        return result with { MaxQueueWaitMs = queueWaits?.MaxMs };
    }

    private static string ProgressLine(string experiment, IntervalRow row, TelemetrySnapshot? latest)
    {
        var s = row.Stats;
        var pool = latest is null ? "threads=n/a queue=n/a" : $"threads={latest.ThreadPool.ThreadCount} queue={latest.ThreadPool.PendingWorkItemCount}";
        return string.Create(CultureInfo.InvariantCulture,
            $"{experiment}/{row.Variant} t={row.ElapsedSeconds,6:0.0}s {row.LoadUnit}={row.Load,6:0.#} rps={row.RequestsPerSecond,8:0.#} ok={s.Ok} failed={s.Failed} mean={s.MeanMs:0}ms p99={s.P99Ms:0}ms max={s.MaxMs:0}ms {pool}");
    }
}
