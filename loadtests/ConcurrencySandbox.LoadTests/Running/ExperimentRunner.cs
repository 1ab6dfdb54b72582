using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.ApiClient;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Progress;
using ConcurrencySandbox.LoadTests.Reports;
using static System.FormattableString;

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
        ObserverOptions? observe = null,
        AgentPool? agents = null,
        RunProgress? progress = null)
    {
        observe ??= ObserverOptions.Default;
        progress ??= RunProgress.Lines(console);
        var started = DateTimeOffset.Now;
        var variants = experiment.Variants;
        var results = new List<VariantResult>();
        var observations = new Dictionary<string, VariantObservation>();
        var (profile, shape) = DriverOf(variants[0]).Describe(load);
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
        IReadOnlyList<ThresholdOutcome> thresholds = [.. Thresholds.Evaluate([.. experiment.DefaultThresholds, .. userThresholds], results), .. AgentMerge.FaultOutcomes(results)];
        var finding = experiment.Assess(results);
        return new ExperimentReport(experiment.Name, experiment.Seed, profile, shape, servers.Describe(), started,
            MachineFacts.Current(), results, finding with { Detail = finding.Detail + AgentMerge.ClientBoundNote(results) }, thresholds)
        {
            ExpectedToFail = experiment.ExpectedToFail,
            Evidence = experiment.EvidenceOf(results),
            Observations = observations,
            Fix = fix,
        };

        // With load agents, the variant's HTTP ramp runs on them and the coordinator merges their intervals.
        ILoadDriver DriverOf(Variant variant) => agents is null ? variant.Driver : agents.Distribute(variant.Driver);

        async Task RunAndKeepAsync(Variant variant)
        {
            var (result, observation) = await RunVariantAsync(experiment, variant with { Driver = DriverOf(variant) }, new VariantKey(variant.Name, cpus, limit), load, servers, observe.Attach, console, progress, cancellationToken);
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
        Experiment experiment, Variant variant, VariantKey key, LoadOptions load, ApiServers servers, bool attach, TextWriter console, RunProgress progress, CancellationToken cancellationToken)
    {
        await using var server = await (variant.ServerCpus is { } cpus ? servers.PinnedTo(cpus) : servers).AcquireAsync(variant.Environment, cancellationToken);
        using var api = new SandboxClient(server.BaseAddress);
        if (servers.ChecksHealth && !await api.IsHealthyAsync(cancellationToken))
        {
            throw new UsageException($"target {server.BaseAddress} is unreachable (GET /healthz did not answer 2xx)");
        }
        var afterwardsBecause = experiment.RuntimeReadAfterwardsBecause;
        var live = afterwardsBecause is null;
        var (attached, notObservedBecause) = !attach ? (null, "--no-observer")
            : !live ? (null, afterwardsBecause)
            : server.Diagnostics is { } channel ? await ObserveAsync(channel, server.ProcessorCount, load, cancellationToken)
            : (null, server.DiagnosticsProblem);
        await using var observer = attached;
        // Without the observer the pool series comes over HTTP from where the lease says (never a container's API port), or not at all.
        using var telemetry = observer is null && server.Telemetry is { } http ? new SandboxClient(http.Address) : null;
        console.WriteLine($"-- {experiment.Name}/{key.Label}: {(variant.Driver.Request.StartsWith('/') ? "GET " : "")}{variant.Driver.Request} on {server.BaseAddress}{(observer is null ? "" : $" (observing {observer.Channel.Process})")}");
        if (attach && notObservedBecause is not null)
        {
            var source = server.Telemetry is { } lease ? live ? lease.ToString() : lease.Afterwards : "nowhere";
            console.WriteLine($"note: the runtime observer is not attached ({notObservedBecause}); the pool series comes from {source}");
        }
        var series = ProgressEvent.SeriesOf(experiment.Name, key);
        var adjustmentsSent = 0;
        var variantProgress = progress.For(experiment.Name, load.RequestTimeout, row =>
        {
            if (observer is null)
            {
                return;
            }
            observer.OnInterval(row, cancellationToken);
            var marks = observer.Marks();
            foreach (var mark in marks.Skip(adjustmentsSent))
            {
                progress.Publish(PoolAdjusted.Of(series, mark));
            }
            adjustmentsSent = marks.Count;
        });
        progress.VariantStarting(experiment.Name, key, variant.Driver.Request);
        var context = new LoadContext(key, server.BaseAddress, api, telemetry, load, variantProgress, observer) { TelemetryLive = live };
        var result = await variant.Driver.RunAsync(context, cancellationToken) with
        {
            TelemetrySource = TelemetrySource(observer?.Channel, server.Telemetry, notObservedBecause, live),
        };
        return observer is null ? (result, null) : await observer.FinishAsync(result);
    }

    /// <summary>The observer on a process the runner reaches, or why it could not attach (the variant then runs on with the lease's HTTP telemetry, if any).</summary>
    private static async Task<(VariantObserver? Observer, string? Problem)> ObserveAsync(
        DiagnosticsChannel channel, int processorCount, LoadOptions load, CancellationToken cancellationToken)
    {
        try
        {
            return (new VariantObserver(await RuntimeObserver.AttachAsync(channel, cancellationToken), processorCount, load.Shape.Steps.Max(s => s.Target)), null);
        }
        catch (UsageException e)
        {
            return (null, e.Message);
        }
    }

    /// <summary>
    /// Where a variant's runtime figures came from, as the report says it: the observer over its channel, else the HTTP
    /// telemetry, read every second or (not <paramref name="live"/>) its history once after the variant, with why there
    /// was no observer, else none and why.
    /// </summary>
    public static string TelemetrySource(DiagnosticsChannel? observed, HttpTelemetry? http, string? notObservedBecause, bool live) =>
        observed is not null ? $"the runtime observer over {observed.Description}"
        : http is not null ? $"{(live ? http.ToString() : http.Afterwards)}{(notObservedBecause is null ? "" : $" (not observed: {notObservedBecause})")}"
        : $"none: the runtime is not observed{(notObservedBecause is null ? "" : $" ({notObservedBecause})")}";

    private static string ObserverLine(string variant, VariantObservation o) =>
        $"observer {variant}: {o.Samples} samples, adjustments {string.Join(", ", o.AdjustmentsByReason.Select(r => $"{r.Key} {r.Value}"))}"
        + (o.Stacks?.Top is { } top ? $"; {o.Stacks.Describe(top)}" : "")
        + (o.LostReason is { } lost ? $"; lost the process: {lost}" : "");
}
