using System.Globalization;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.ApiClient;
using ConcurrencySandbox.LoadTests.Diagnostics;
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
        string? limit = null,
        ObserverOptions? observe = null)
    {
        observe ??= ObserverOptions.Default;
        var started = DateTimeOffset.Now;
        var variants = experiment.Variants;
        var results = new List<VariantResult>();
        var observations = new Dictionary<string, VariantObservation>();
        var (profile, shape) = variants[0].Driver.Describe(load);
        var label = new VariantKey(experiment.Name, cpus, limit).Label;
        console.WriteLine($"== {label}: {variants.Count} variant(s) against {servers.Describe()}; {shape}");
        foreach (var variant in variants)
        {
            await RunAndKeepAsync(variant);
        }
        FixCheck? fix = null;
        if (observe.VerifyFix && servers.StartsOwnProcess && FixCheck.MostStarved(observations) is { } starved)
        {
            var before = variants.First(v => new VariantKey(v.Name, cpus, limit).Label == starved.Label);
            var minimum = starved.Diagnosis.NeededThreads;
            var after = before with
            {
                Name = Invariant($"{before.Name}-min{minimum}"),
                Environment = new Dictionary<string, string>(before.Environment) { [FixCheck.MinimumSetting] = Invariant($"{minimum}") },
            };
            console.WriteLine($"-- verify-fix: {before.Name} again with {FixCheck.MinimumSetting}={minimum}");
            await RunAndKeepAsync(after);
            fix = new FixCheck(starved.Label, new VariantKey(after.Name, cpus, limit).Label, minimum);
        }
        var thresholds = Thresholds.Evaluate([.. experiment.DefaultThresholds, .. userThresholds], results);
        return new ExperimentReport(experiment.Name, experiment.Seed, profile, shape, servers.Describe(), started,
            MachineFacts.Current(), results, experiment.Assess(results), thresholds)
        {
            ExpectedToFail = experiment.ExpectedToFail,
            Evidence = experiment.EvidenceOf(results),
            Observations = observations,
            Fix = fix,
        };

        async Task RunAndKeepAsync(Variant variant)
        {
            var (result, observation) = await RunVariantAsync(experiment, variant, new VariantKey(variant.Name, cpus, limit), load, servers, observe.Attach, console, cancellationToken);
            results.Add(result with { Figures = experiment.FiguresOf(result) });
            if (observation is not null)
            {
                observations[result.Key.Label] = observation;
                console.WriteLine(ObserverLine(result.Key.Label, observation));
            }
        }
    }

    /// <summary>Rejects a user threshold that names none of the variants about to run, before anything runs.</summary>
    public static void CheckThresholdsNameVariants(IReadOnlyList<VariantKey> variants, IEnumerable<Threshold> userThresholds)
    {
        foreach (var threshold in userThresholds.Where(t => !variants.Any(t.AppliesTo)))
        {
            throw new UsageException($"threshold '{threshold}' names no variant (variants: {string.Join(", ", variants.Select(v => v.Label).Distinct())}, or *)");
        }
    }

    private static async Task<(VariantResult, VariantObservation?)> RunVariantAsync(
        Experiment experiment, Variant variant, VariantKey key, LoadOptions load, ApiServers servers, bool attach, TextWriter console, CancellationToken cancellationToken)
    {
        await using var server = await (variant.ServerCpus is { } cpus ? servers.PinnedTo(cpus) : servers).AcquireAsync(variant.Environment, cancellationToken);
        using var api = new SandboxClient(server.BaseAddress);
        if (servers.ChecksHealth && !await api.IsHealthyAsync(cancellationToken))
        {
            throw new UsageException($"target {server.BaseAddress} is unreachable (GET /healthz did not answer 2xx)");
        }
        await using var observer = attach && server.ProcessId is { } pid ? Observe(pid, server.ProcessorCount, load, console) : null;
        console.WriteLine($"-- {experiment.Name}/{key.Label}: {(variant.Driver.Request.StartsWith('/') ? "GET " : "")}{variant.Driver.Request} on {server.BaseAddress}{(observer is null ? "" : $" (observing pid {observer.ProcessId})")}");
        var context = new LoadContext(key, server.BaseAddress, api, load, (row, latest) =>
        {
            observer?.OnInterval(row, cancellationToken);
            console.WriteLine(ProgressLine(experiment.Name, row, latest));
        }, observer);
        var result = await variant.Driver.RunAsync(context, cancellationToken);
        return observer is null ? (result, null) : await observer.FinishAsync(result);
    }

    /// <summary>The observer on a process the runner reaches; when it cannot attach, the variant runs on with the API's own telemetry.</summary>
    private static VariantObserver? Observe(int processId, int processorCount, LoadOptions load, TextWriter console)
    {
        try
        {
            return new VariantObserver(RuntimeObserver.Attach(processId), processorCount, load.Shape.Steps.Max(s => s.Target));
        }
        catch (UsageException e)
        {
            console.WriteLine($"note: the runtime observer is not attached ({e.Message}); the pool series comes from the API over HTTP");
            return null;
        }
    }

    private static string ObserverLine(string variant, VariantObservation o) =>
        $"observer {variant}: {o.Samples} samples, adjustments {string.Join(", ", o.AdjustmentsByReason.Select(r => $"{r.Key} {r.Value}"))}"
        + (o.Stacks?.Top is { } top ? $"; {o.Stacks.Describe(top)}" : "")
        + (o.LostReason is { } lost ? $"; lost the process: {lost}" : "");

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);

    private static string ProgressLine(string experiment, IntervalRow row, RuntimeSnapshot? latest)
    {
        var s = row.Stats;
        var pool = latest is { } snapshot ? $"threads={snapshot.ThreadPool.ThreadCount} queue={snapshot.ThreadPool.PendingWorkItemCount}" : "threads=n/a queue=n/a";
        return string.Create(CultureInfo.InvariantCulture,
            $"{experiment}/{row.Variant.Label} t={row.ElapsedSeconds,6:0.0}s {row.LoadUnit}={row.Load,6:0.#} rps={row.RequestsPerSecond,8:0.#} ok={s.Ok} failed={s.Failed} timedout={s.TimedOut} mean={s.MeanMs:0}ms p99={s.P99Ms:0}ms max={s.MaxMs:0}ms {pool}");
    }
}
