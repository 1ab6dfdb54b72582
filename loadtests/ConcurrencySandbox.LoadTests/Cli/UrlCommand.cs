using System.CommandLine;
using System.Diagnostics;
using System.Net;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>
/// <c>run --url http://127.0.0.1:PORT/path [--pid N | --process-name NAME]</c>: the same load profiles against any HTTP
/// endpoint on this machine, the runtime observer attached to its process (the one given, else the one listening on the
/// URL's port), and the same report with the diagnosis. Only loopback addresses are loaded.
/// </summary>
public static class UrlCommand
{
    private static readonly TimeSpan ProbeTimeout = TimeSpan.FromSeconds(10);

    public static Command Create(TextWriter output, TextWriter error)
    {
        var url = new Option<string>("--url") { Description = "The endpoint to load: an absolute http(s) URL on a loopback address (127.0.0.0/8, ::1, localhost).", Required = true };
        var pid = new Option<int?>("--pid") { Description = "The serving .NET process, for the runtime observer (default: the process listening on the URL's port, found through /proc on Linux)." };
        var processName = new Option<string?>("--process-name") { Description = "The serving .NET process by name (its executable or main assembly), when exactly one matches." };
        var outFolder = new Option<string?>("--out") { Description = "Report folder (default: reports/<yyyyMMdd-HHmmss>-url/)." };
        var findCapacity = new Option<bool>("--find-capacity") { Description = "Ramp the load (closed users doubling from 2; with --rate, an open arrival rate doubling from it) until p99 passes the SLO or more than 1 % of requests fail, and report the load held, the load that broke it and the cause." };
        var slo = new Option<double?>("--slo-p99-ms") { Description = "--find-capacity: the p99 the service must keep, in ms (default: 2 x the unloaded p99, one user, measured first)." };
        var maxLoad = new Option<double>("--max-load") { Description = "--find-capacity: the highest load tried (users, or requests/s with --rate).", DefaultValueFactory = _ => 1024 };
        var maxDuration = new Option<double>("--max-duration-s") { Description = "--find-capacity: the most seconds the ramp runs, over all its steps.", DefaultValueFactory = _ => 300 };
        var stepSeconds = new Option<double>("--step-s") { Description = "--find-capacity: seconds each load step (and the unloaded measure) runs.", DefaultValueFactory = _ => 10 };
        var command = new Command("run", "Load any HTTP endpoint on this machine with a load profile, observe its .NET process from outside, and write the report with the diagnosis.")
        {
            url, pid, processName, outFolder, findCapacity, slo, maxLoad, maxDuration, stepSeconds,
        };
        foreach (var option in CommandLine.LoadSymbols)
        {
            command.Options.Add(option);
        }
        command.SetAction(async (parse, cancellationToken) =>
        {
            try
            {
                var target = LoopbackUrl(parse.GetValue(url)!);
                var named = ProcessOf(parse.GetValue(pid), parse.GetValue(processName));
                var load = CommandLine.LoadOf(parse);
                await ProbeAsync(target, cancellationToken);
                // Without --pid or --process-name, the process listening on the URL's port, when this runner can observe it.
                var (processId, notObserved) = named is { } given ? (given, null) : ObserverTarget.FindByPort(target.Port);
                var baseAddress = new Uri(target.GetLeftPart(UriPartial.Authority) + "/");
                await output.WriteLineAsync(processId is { } id
                    ? $"observing pid {id}{(named is null ? $" (listening on port {target.Port})" : "")}"
                    : $"note: the runtime is not observed (load and latency only): {notObserved}");
                var servers = new TargetApiServers(baseAddress, isSandboxApi: false) { ProcessId = processId, NotObservedBecause = notObserved };
                var folder = parse.GetValue(outFolder) ?? Path.Combine("reports", $"{DateTime.Now:yyyyMMdd-HHmmss}-url");
                if (parse.GetValue(findCapacity))
                {
                    var values = new OptionValues(parse);
                    var rate = CommandLine.GivenRate(parse);
                    var capacity = new CapacityOptions(
                        parse.GetValue(slo) is { } ms ? (ms > 0 ? ms : throw new UsageException($"--slo-p99-ms must be positive, got {ms}")) : null,
                        rate is not null, rate ?? FirstUsers, values.Positive(maxLoad),
                        TimeSpan.FromSeconds(values.Positive(stepSeconds)), TimeSpan.FromSeconds(values.Positive(maxDuration)));
                    return await FindCapacityAsync(target.PathAndQuery, load, capacity, servers, folder, output, error, cancellationToken);
                }
                var report = await ExperimentRunner.RunAsync(new UrlTarget(target.PathAndQuery, TargetVariant), load, servers, [], output, cancellationToken);
                var result = report.Variants[0];
                var observation = report.Observations.GetValueOrDefault(result.Key.Label);
                report = report with { Headline = Headline(CapacityFinding.OfProfile(result, observation?.Diagnosis is { Starved: true }), observation) };
                ReportWriter.Write(folder, report, RunnerCommandLine.Current());
                var passed = ReportWriter.PrintOutcome(report, folder, output);
                return await FailedEveryRequestAsync(result, error) ? CommandLine.ExitUsage : passed ? CommandLine.ExitOk : CommandLine.ExitThresholdFailed;
            }
            catch (Exception e) when (e is UsageException or FormatException)
            {
                await error.WriteLineAsync($"error: {e.Message}");
                return CommandLine.ExitUsage;
            }
        });
        return command;
    }

    /// <summary>An absolute http(s) URL whose host is a loopback address; anything else is refused: this runner loads only this machine.</summary>
    public static Uri LoopbackUrl(string text)
    {
        if (!Uri.TryCreate(text, UriKind.Absolute, out var uri) || uri.Scheme is not ("http" or "https"))
        {
            throw new UsageException($"--url must be an absolute http(s) URL like http://127.0.0.1:5000/orders/1, got '{text}'");
        }
        var loopback = uri.IsLoopback || (IPAddress.TryParse(uri.DnsSafeHost, out var address) && IPAddress.IsLoopback(address));
        if (!loopback)
        {
            throw new UsageException($"--url host '{uri.Host}' is not a loopback address; this runner only loads 127.0.0.0/8, ::1 or localhost (run it on the service's machine)");
        }
        return uri;
    }

    /// <summary>The observed process: --pid checked, --process-name resolved to exactly one; both together refused.</summary>
    public static int? ProcessOf(int? pid, string? processName)
    {
        if (pid is not null && processName is not null)
        {
            throw new UsageException("give --pid or --process-name, not both");
        }
        if (pid is { } id)
        {
            ObserverTarget.Check(id);
            return id;
        }
        return processName is null ? null : ObserverTarget.FindByName(processName);
    }

    /// <summary>One GET before the load, so a wrong port is one clear line instead of a report of failures.</summary>
    private static async Task ProbeAsync(Uri target, CancellationToken cancellationToken)
    {
        using var http = new HttpClient { Timeout = ProbeTimeout };
        try
        {
            using var response = await http.GetAsync(target, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
        }
        catch (Exception e) when (e is HttpRequestException or TaskCanceledException && !cancellationToken.IsCancellationRequested)
        {
            throw new UsageException($"nothing answered GET {target} ({e.Message}); start the service first or fix --url");
        }
    }

    private const string TargetVariant = "target";

    // The ramp's first closed load: the unloaded measure is one user.
    private const double FirstUsers = 2;

    /// <summary>
    /// The ramp of --find-capacity: one user first (the unloaded p99, and the SLO's default), then each load of
    /// <paramref name="capacity"/> in a run of its own until one breaks or a bound is reached; one report of all the steps.
    /// </summary>
    private static async Task<int> FindCapacityAsync(string pathAndQuery, LoadOptions load, CapacityOptions capacity, TargetApiServers servers, string folder, TextWriter output, TextWriter error, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        var unloaded = await ExperimentRunner.RunAsync(new UrlTarget(pathAndQuery, "unloaded-1-user"), load with { Shape = new CapacityOptions(null, false, 1, 1, capacity.Step, capacity.MaxDuration).ShapeAt(1), ProfileName = "find-capacity" }, servers, [], output, cancellationToken);
        var steps = new List<ExperimentReport> { unloaded };
        if (await FailedEveryRequestAsync(unloaded.Variants[0], error))
        {
            ReportWriter.Write(folder, unloaded, RunnerCommandLine.Current());
            return CommandLine.ExitUsage;
        }
        var unloadedP99Ms = unloaded.Variants[0].Total.P99Ms;
        if (capacity.SloP99Ms is { } given && given < unloadedP99Ms)
        {
            await error.WriteLineAsync(Invariant($"error: --slo-p99-ms {given:0.#} is below the unloaded p99 of {unloadedP99Ms:0.#} ms (one user): no load can meet it"));
            return CommandLine.ExitUsage;
        }
        var sloP99Ms = capacity.SloP99Ms ?? CapacityOptions.DefaultSloFactor * unloadedP99Ms;
        await output.WriteLineAsync(Invariant($"-- find-capacity: unloaded p99 {unloadedP99Ms:0.#} ms; SLO p99 {sloP99Ms:0.#} ms; {capacity.Unit} doubling from {capacity.StartLoad:0.#} up to {capacity.MaxLoad:0.#}, {capacity.Step.TotalSeconds:0.#} s each, {capacity.MaxDuration.TotalSeconds:0} s at most"));
        // A closed ramp's unloaded measure (one user) holds by definition: its p99 is what the SLO is measured against.
        double? held = capacity.Open ? null : 1;
        VariantResult? broke = null;
        string? brokeBecause = null, bound = null;
        foreach (var level in capacity.Loads())
        {
            if (Stopwatch.GetElapsedTime(started) + capacity.Step > capacity.MaxDuration)
            {
                bound = Invariant($"the ramp reached its max duration ({capacity.MaxDuration.TotalSeconds:0} s, --max-duration-s) before {level:0.#} {capacity.Unit}");
                break;
            }
            var step = await ExperimentRunner.RunAsync(new UrlTarget(pathAndQuery, Invariant($"{level:0.#}-{(capacity.Open ? "per-s" : "users")}")), load with { Shape = capacity.ShapeAt(level), ProfileName = "find-capacity" }, servers, [], output, cancellationToken);
            steps.Add(step);
            if (CapacityFinding.BrokeBy(step.Variants[0].Total, sloP99Ms) is { } why)
            {
                (broke, brokeBecause) = (step.Variants[0], why);
                break;
            }
            held = level;
        }
        bound ??= broke is null ? Invariant($"the ramp reached its max load ({capacity.MaxLoad:0.#} {capacity.Unit}, --max-load)") : null;
        var observations = steps.SelectMany(s => s.Observations).ToDictionary(o => o.Key, o => o.Value);
        var brokeObservation = broke is null ? null : observations.GetValueOrDefault(broke.Key.Label);
        var finding = new CapacityFinding(capacity.Unit, unloadedP99Ms, sloP99Ms, held, broke?.Intervals.Max(i => i.Load), brokeBecause,
            broke is null ? null : CapacityFinding.CauseOf(broke, brokeObservation, unloadedP99Ms, servers.NotObservedBecause), bound);
        // The diagnosis of the step that broke, else of the most starved step, else of the last.
        var diagnosed = brokeObservation ?? (FixCheck.MostStarved(observations) is { } starved ? observations[starved.Label] : observations.Values.LastOrDefault());
        var report = steps[^1] with
        {
            StartedAt = unloaded.StartedAt,
            LoadShape = string.Join("; ", steps.Select(s => $"{s.Variants[0].Key.Label}: {s.LoadShape}")),
            Variants = [.. steps.SelectMany(s => s.Variants)],
            Thresholds = [.. steps.SelectMany(s => s.Thresholds)],
            ExpectedToFail = [.. steps.SelectMany(s => s.ExpectedToFail)],
            Observations = observations,
            Headline = Headline(finding.Describe(), diagnosed),
        };
        ReportWriter.Write(folder, report, RunnerCommandLine.Current());
        return ReportWriter.PrintOutcome(report, folder, output) ? CommandLine.ExitOk : CommandLine.ExitThresholdFailed;
    }

    /// <summary>
    /// The report's first paragraph: the method to change and where, then the load held or broken and why, then the
    /// diagnosis (how long the pool starved, what it held up, what each fix buys).
    /// </summary>
    private static string Headline(string capacity, VariantObservation? observation)
    {
        if (observation?.Diagnosis is not { } diagnosis)
        {
            return $"{capacity} The runtime was not observed, so there is no diagnosis (see \"Where the runtime's figures came from\").";
        }
        var change = diagnosis is { Starved: true, Inputs.BlockingMethod: { } method } ? $"Change `{method}` ({diagnosis.Inputs.CallSite}). " : "";
        return $"{change}{capacity} {diagnosis.Describe()}";
    }

    /// <summary>A service that answered no request with a 2xx: one line with how the requests ended, and no capacity claimed.</summary>
    private static async Task<bool> FailedEveryRequestAsync(VariantResult result, TextWriter error)
    {
        if (result.Total.Requests == 0 || result.Total.Ok > 0)
        {
            return false;
        }
        var endings = string.Join(", ", result.Failures.Select(f => Invariant($"{f.What} x {f.Count}")));
        await error.WriteLineAsync(Invariant($"error: every request failed ({endings}); no capacity claimed"));
        return true;
    }


    /// <summary>A user's endpoint as a one-variant experiment: no seed to compare with; the observer's diagnosis is the finding.</summary>
    private sealed class UrlTarget(string pathAndQuery, string variant) : Experiment
    {
        public override string Name => "url";

        public override string Seed => "none (a user's service)";

        public override IReadOnlyList<Variant> Variants => [new Variant(variant, new HttpRamp(pathAndQuery))];

        // A user's starving service may time out: that is what the run is for, not a failed run.
        public override IReadOnlyList<string> ExpectedToFail => [variant];

        public override Finding Assess(IReadOnlyList<VariantResult> results) =>
            Finding.NotAssessed("a user's service has no seed to compare with; the first paragraph and \"Inside the runtime\" carry the diagnosis.");
    }
}
