using System.Globalization;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.ApiClient;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Running;

/// <summary>Runs an experiment's variants one after another against the servers and builds its report.</summary>
public static class ExperimentRunner
{
    /// <param name="cpus">The core count the servers pin the API to (the matrix), carried in every variant's key.</param>
    /// <param name="limit">How a container matrix limits the API to <paramref name="cpus"/> ("quota", "pinning"), also in the key.</param>
    public static async Task<ExperimentReport> RunAsync(
        Experiment experiment,
        LoadOptions load,
        ApiServers servers,
        IReadOnlyList<Threshold> userThresholds,
        TextWriter console,
        CancellationToken cancellationToken,
        int? cpus = null,
        string? limit = null)
    {
        var started = DateTimeOffset.Now;
        var variants = experiment.Variants;
        var results = new List<VariantResult>();
        var (profile, shape) = variants[0].Driver.Describe(load);
        var label = new VariantKey(experiment.Name, cpus, limit).Label;
        console.WriteLine($"== {label}: {variants.Count} variant(s) against {servers.Describe()}; {shape}");
        foreach (var variant in variants)
        {
            var result = await RunVariantAsync(experiment, variant, new VariantKey(variant.Name, cpus, limit), load, servers, console, cancellationToken);
            results.Add(result with { Figures = experiment.FiguresOf(result) });
        }
        var thresholds = Thresholds.Evaluate([.. experiment.DefaultThresholds, .. userThresholds], results);
        return new ExperimentReport(experiment.Name, experiment.Seed, profile, shape, servers.Describe(), started,
            MachineFacts.Current(), results, experiment.Assess(results), thresholds)
        {
            ExpectedToFail = experiment.ExpectedToFail,
            Evidence = experiment.EvidenceOf(results),
        };
    }

    /// <summary>Rejects a user threshold that names none of the variants about to run, before anything runs.</summary>
    public static void CheckThresholdsNameVariants(IReadOnlyList<VariantKey> variants, IEnumerable<Threshold> userThresholds)
    {
        foreach (var threshold in userThresholds.Where(t => !variants.Any(t.AppliesTo)))
        {
            throw new UsageException($"threshold '{threshold}' names no variant (variants: {string.Join(", ", variants.Select(v => v.Label).Distinct())}, or *)");
        }
    }

    private static async Task<VariantResult> RunVariantAsync(
        Experiment experiment, Variant variant, VariantKey key, LoadOptions load, ApiServers servers, TextWriter console, CancellationToken cancellationToken)
    {
        await using var server = await servers.AcquireAsync(variant.Environment, cancellationToken);
        using var api = new SandboxClient(server.BaseAddress);
        if (!servers.StartsOwnProcess && !await api.IsHealthyAsync(cancellationToken))
        {
            throw new UsageException($"target {server.BaseAddress} is unreachable (GET /healthz did not answer 2xx)");
        }
        console.WriteLine($"-- {experiment.Name}/{key.Label}: GET {variant.Driver.Request} on {server.BaseAddress}");
        var context = new LoadContext(key, server.BaseAddress, api, load, (row, latest) => console.WriteLine(ProgressLine(experiment.Name, row, latest)));
        return await variant.Driver.RunAsync(context, cancellationToken);
    }

    private static string ProgressLine(string experiment, IntervalRow row, RuntimeSnapshot? latest)
    {
        var s = row.Stats;
        var pool = latest is null ? "threads=n/a queue=n/a" : $"threads={latest.ThreadPool.ThreadCount} queue={latest.ThreadPool.PendingWorkItemCount}";
        return string.Create(CultureInfo.InvariantCulture,
            $"{experiment}/{row.Variant.Label} t={row.ElapsedSeconds,6:0.0}s {row.LoadUnit}={row.Load,6:0.#} rps={row.RequestsPerSecond,8:0.#} ok={s.Ok} failed={s.Failed} timedout={s.TimedOut} mean={s.MeanMs:0}ms p99={s.P99Ms:0}ms max={s.MaxMs:0}ms {pool}");
    }
}
