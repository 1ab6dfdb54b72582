using ConcurrencySandbox.Contracts.Reports;
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

/// <summary>
/// Runs an experiment's variants in interleaved rounds against the servers (one round unless the experiment or --rounds
/// asks for more), judges the rounds' verdict figure and builds its report. Stopped (Ctrl+C, SIGTERM) while a variant
/// ran, it returns the report up to there, marked <see cref="ExperimentReport.Partial"/>: a result is returned, never
/// carried by an exception.
/// </summary>
internal static class ExperimentRunner
{
    /// <param name="cpus">The core count the servers pin the API to (the matrix), carried in every variant's key.</param>
    /// <param name="limit">How a container matrix limits the API to <paramref name="cpus"/> ("quota", "pinning"), also in the key.</param>
    /// <param name="rounds">How many interleaved rounds to measure the variants in (--rounds); null: the experiment's own count (<see cref="Experiment.DefaultRounds"/>), one for the smoke profile.</param>
    /// <param name="roundsBudget">The time the rounds may take before the run ends inconclusive with the rounds it has; null: <see cref="Rounds.DefaultBudget"/>.</param>
    /// <param name="variantFinished">Given the report so far (marked partial: still running) each time a variant finishes, so the caller writes it as the run goes.</param>
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
        RunProgress? progress = null,
        int? rounds = null,
        TimeSpan? roundsBudget = null,
        Action<ExperimentReport>? variantFinished = null)
    {
        observe ??= ObserverOptions.Default;
        progress ??= RunProgress.Lines(console);
        var started = DateTimeOffset.Now;
        var variants = experiment.Variants;
        var smokeBecause = SmokeBecause(experiment, load);
        var roundCount = rounds ?? (smokeBecause is null ? experiment.DefaultRounds : 1);
        var roundLoad = load with { Shape = Rounds.Shorten(load.Shape, roundCount) };
        var order = Rounds.Order(variants, roundCount);
        var orderText = Rounds.Describe([.. order.Select(round => (IReadOnlyList<string>)[.. round.Select(v => v.Name)])]);
        var budget = roundsBudget ?? Rounds.DefaultBudget(roundLoad.Shape.Duration, variants.Count, roundCount, StartAllowance);
        var (profile, shape) = DriverOf(variants[0]).Describe(roundLoad);
        var label = new VariantKey(experiment.Name, cpus, limit).Label;
        console.WriteLine($"== {label}: {CountText.Of(variants.Count, "variant")} against {servers.Describe()}; {shape}");
        if (roundCount > 1)
        {
            console.WriteLine(Invariant($"-- {roundCount} interleaved rounds ({orderText}), each a ramp shortened to {roundLoad.Shape.Duration.TotalSeconds:0.#} s; budget {budget.TotalSeconds:0} s"));
        }
        var perRound = new List<(IReadOnlyList<Variant> Order, List<VariantResult> Results, Dictionary<string, VariantObservation> Observations)>();
        var clock = System.Diagnostics.Stopwatch.StartNew();
        var longestRound = TimeSpan.Zero;
        string? stoppedBecause = null;
        foreach (var roundOrder in order)
        {
            if (perRound.Count > 0 && !Rounds.NextFits(clock.Elapsed, longestRound, budget))
            {
                stoppedBecause = Invariant($"stopped after {perRound.Count} of {roundCount} rounds: another would overrun the {budget.TotalSeconds:0} s budget (--rounds-budget-s)");
                console.WriteLine($"-- {stoppedBecause}");
                break;
            }
            var roundStarted = clock.Elapsed;
            if (roundCount > 1)
            {
                console.WriteLine($"-- round {perRound.Count + 1} of {roundCount}: {string.Join(' ', roundOrder.Select(v => v.Name))}");
            }
            var round = (Order: roundOrder, Results: new List<VariantResult>(), Observations: new Dictionary<string, VariantObservation>());
            foreach (var variant in roundOrder)
            {
                VariantResult? stoppedIn;
                try
                {
                    stoppedIn = await RunAndKeepAsync(variant, roundLoad, round.Results, round.Observations);
                }
                catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
                {
                    // Stopped before its load began (its API starting, the observer attaching): nothing of it was measured.
                    return Stopped(variant, null, roundLoad, round.Results, round.Observations);
                }
                if (stoppedIn is not null)
                {
                    return Stopped(variant, stoppedIn, roundLoad, round.Results, round.Observations);
                }
                variantFinished?.Invoke(SoFar(PartialRun.Running([.. round.Results.Select(r => r.Key.Label)]), round.Results, round.Observations));
            }
            // Assess reads the variants in the experiment's order, whichever ran first.
            round.Results.Sort((a, b) => IndexOf(a).CompareTo(IndexOf(b)));
            perRound.Add(round);
            longestRound = TimeSpan.FromTicks(Math.Max(longestRound.Ticks, (clock.Elapsed - roundStarted).Ticks));
        }

        IReadOnlyList<Finding> roundFindings = [.. perRound.Select(r => experiment.Assess(r.Results))];
        // An experiment not (yet) measured in rounds, run once, keeps its own verdict (fanout, streaming, run --url).
        var (judged, shownRound) = roundCount == 1 && experiment.DefaultRounds == 1
            ? (roundFindings[0], 0)
            : RoundVerdict.Judge(roundFindings, roundCount, stoppedBecause);
        var finding = smokeBecause is null ? judged : RoundVerdict.NoVerdict(judged, smokeBecause);
        var results = perRound[shownRound].Results;
        var observations = perRound[shownRound].Observations;
        if (roundCount > 1)
        {
            console.WriteLine($"-- the report's variant tables show round {shownRound + 1}, the one nearest the median");
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
            if (await RunAndKeepAsync(after, load, results, observations) is { } stoppedFix)
            {
                return Stopped(after, stoppedFix, load, results, observations);
            }
            fix = new FixCheck(starved.Label, new VariantKey(after.Name, cpus, limit).Label, minimum);
        }
        IReadOnlyList<ThresholdOutcome> thresholds = [.. Thresholds.Evaluate([.. experiment.DefaultThresholds, .. userThresholds], results), .. AgentMerge.FaultOutcomes(results)];
        return new ExperimentReport(experiment.Name, experiment.Seed, profile, shape, servers.Describe(), started,
            MachineFacts.Current(), results, finding with { Detail = finding.Detail + AgentMerge.ClientBoundNote(results) }, thresholds)
        {
            ExpectedToFail = experiment.ExpectedToFail,
            Words = experiment.Words,
            Evidence = experiment.EvidenceOf(results),
            Observations = observations,
            Fix = fix,
            Rounds = roundCount > 1 || finding.Interval is not null ? RoundTable(orderText, roundCount, finding, [.. perRound.Select((r, i) => (r.Order, (IReadOnlyList<VariantResult>)r.Results, roundFindings[i]))]) : null,
            DiagnosisDoesNotApplyBecause = experiment.DiagnosisDoesNotApplyBecause,
        };

        // Ctrl+C or SIGTERM during a variant: the report up to there, marked partial, with no verdict (it needs every variant).
        // With rounds, the partial report holds the round that was running.
        ExperimentReport Stopped(Variant variant, VariantResult? stoppedSoFar, LoadOptions variantLoad, IReadOnlyList<VariantResult> results, IReadOnlyDictionary<string, VariantObservation> observations)
        {
            var where = PartialRun.Where(new VariantKey(variant.Name, cpus, limit).Label, stoppedSoFar?.Steps.Count ?? 0, variantLoad.Shape.Steps.Count);
            var partial = PartialRun.Describe(where, [.. results.Select(r => r.Key.Label)]);
            return SoFar(partial, [.. results, .. stoppedSoFar is null ? Array.Empty<VariantResult>() : [stoppedSoFar]], observations) with { StoppedAt = where };
        }

        // The variants measured so far, marked partial (stopped, or still running), with no verdict.
        ExperimentReport SoFar(string partial, IReadOnlyList<VariantResult> results, IReadOnlyDictionary<string, VariantObservation> observations) =>
            new(experiment.Name, experiment.Seed, profile, shape, servers.Describe(), started, MachineFacts.Current(), results,
                Finding.NotAssessed("the run was stopped before every variant ran, so the seed's effect is not judged from part of its variants."),
                Thresholds.Evaluate([.. experiment.DefaultThresholds, .. userThresholds], results))
            {
                ExpectedToFail = experiment.ExpectedToFail,
                Words = experiment.Words,
                Observations = observations,
                Partial = partial,
            };

        // With load agents, the variant's HTTP ramp runs on them and the coordinator merges their intervals.
        ILoadDriver DriverOf(Variant variant) => agents is null ? variant.Driver : agents.Distribute(variant.Driver);

        int IndexOf(VariantResult result)
        {
            var index = variants.ToList().FindIndex(v => v.Name == result.Key.Name);
            return index < 0 ? variants.Count : index;
        }

        // Keeps a finished variant; a stopped one (the run's token, not an exception) is returned for the partial report, not kept.
        async Task<VariantResult?> RunAndKeepAsync(Variant variant, LoadOptions variantLoad, List<VariantResult> into, Dictionary<string, VariantObservation> observed)
        {
            var (result, observation) = await RunVariantAsync(experiment, variant with { Driver = DriverOf(variant) }, new VariantKey(variant.Name, cpus, limit), variantLoad, servers, observe.Attach, console, progress, cancellationToken);
            if (result.Stopped)
            {
                return result;
            }
            into.Add(result with { Figures = experiment.FiguresOf(result) });
            if (observation is not null)
            {
                // A diagnosis whose model does not fit the experiment's load is left out, not printed with its advice.
                observed[result.Key.Label] = experiment.DiagnosisDoesNotApplyBecause is null ? observation : observation with { Diagnosis = null };
                console.WriteLine(ObserverLine(result.Key.Label, observation));
            }
            return null;
        }
    }

    /// <summary>Allowed per variant and round for starting its fresh API, in the default budget.</summary>
    public static readonly TimeSpan StartAllowance = TimeSpan.FromSeconds(10);

    /// <summary>Why this run gives figures but no verdict: the smoke profile, or a load shorter than the experiment needs; null otherwise.</summary>
    public static string? SmokeBecause(Experiment experiment, LoadOptions load) =>
        load.IsCheck ? Invariant($"the smoke profile's {load.Shape.Duration.TotalSeconds:0.#} s of load is a check that the run works, not a measurement")
        : load.Shape.Duration < experiment.MinimumLoad ? Invariant($"{load.Shape.Duration.TotalSeconds:0.#} s of load is shorter than the {experiment.MinimumLoad.TotalSeconds:0} s {experiment.Name} needs")
        : null;

    /// <summary>The rounds as summary.json and summary.md show them: the order, the figure's median and CI, each round's figure and variants, the figure's format.</summary>
    public static SummaryRounds RoundTable(string order, int planned, Finding finding, IReadOnlyList<(IReadOnlyList<Variant> Order, IReadOnlyList<VariantResult> Results, Finding Finding)> rounds) =>
        new(order, planned, finding.Figure?.Name, finding.Interval?.Median, finding.Interval?.Low, finding.Interval?.High,
            [.. rounds.Select((r, i) => new SummaryRound(i + 1, [.. r.Order.Select(v => v.Name)], r.Finding.Figure?.Value, r.Finding.Outcome.ToString(),
                [.. r.Results.Select(v => new SummaryRoundVariant(v.Key.Label, v.RequestsPerSecond, NullIfNaN(v.Total.MeanMs), NullIfNaN(v.Total.P99Ms), v.ElapsedSeconds))]))],
            finding.Figure?.Format);

    private static double? NullIfNaN(double value) => double.IsNaN(value) ? null : value;

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
            : server.Diagnostics is { } channel ? await ObserveAsync(channel, server.ProcessorCount, load, variant.Driver.Request, cancellationToken)
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
        // Stopped: the observer is let go (its history is not waited for), the variant kept as far as it ran.
        return observer is null || result.Stopped ? (result, null) : await observer.FinishAsync(result);
    }

    /// <summary>The observer on a process the runner reaches, or why it could not attach (the variant then runs on with the lease's HTTP telemetry, if any).</summary>
    private static async Task<(VariantObserver? Observer, string? Problem)> ObserveAsync(
        DiagnosticsChannel channel, int processorCount, LoadOptions load, string request, CancellationToken cancellationToken)
    {
        try
        {
            // A GET driver's request is the path it loads, which the call sites are looked for from; other drivers' are words.
            return (new VariantObserver(await RuntimeObserver.AttachAsync(channel, cancellationToken), processorCount, load.Shape.Steps.Max(s => s.Target), load.Shape.Duration.TotalSeconds,
                request.StartsWith('/') ? request : null), null);
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
        + (o.Stacks?.DescribeHolding() is { } holding ? $"; {holding}" : "")
        + (o.Complete ? "" : $"; series {o.Series}");
}
