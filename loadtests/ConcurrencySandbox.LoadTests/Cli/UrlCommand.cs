using System.CommandLine;
using System.Net;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Progress;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>
/// <c>run --url http://127.0.0.1:PORT/path [--pid N | --process-name NAME]</c>: the same load profiles against any HTTP
/// endpoint on this machine, the runtime observer attached to its process (the one given, else the one listening on the
/// URL's port), and the same report with the diagnosis. Only loopback addresses are loaded.
/// </summary>
internal static class UrlCommand
{
    private static readonly TimeSpan ProbeTimeout = TimeSpan.FromSeconds(10);

    /// <param name="terminalWidth">The terminal's width when the output is one (the status line is drawn), null when it is redirected.</param>
    public static Command Create(TextWriter output, TextWriter error, Func<int>? terminalWidth = null)
    {
        var url = new Option<string>("--url") { Description = "The endpoint to load: an absolute http(s) URL on a loopback address (127.0.0.0/8, ::1, localhost).", Required = true };
        var pid = new Option<int?>("--pid") { Description = "The serving .NET process, for the runtime observer (default: the process listening on the URL's port, found through /proc on Linux)." };
        var processName = new Option<string?>("--process-name") { Description = "The serving .NET process by name (its executable or main assembly), when exactly one matches." };
        var outFolder = new Option<string?>("--out") { Description = "Report folder (default: reports/<yyyyMMdd-HHmmss>-url/)." };
        var findCapacity = new Option<bool>("--find-capacity") { Description = "Ramp the load (closed users doubling from 2; with --rate, an open arrival rate doubling from it) until p99 passes the SLO or more than 1 % of requests fail, and report the load held, the load that broke it and the cause." };
        var slo = new Option<double?>("--slo-p99-ms") { Description = "The p99 the service must keep, in ms, a step past it broke (default: 2 x the unloaded p99: one user, measured first, by --find-capacity and a closed profile alike; with --agents a profile's lowest step)." };
        var maxLoad = new Option<double>("--max-load") { Description = "--find-capacity: the highest load tried (users, or requests/s with --rate).", DefaultValueFactory = _ => 1024 };
        var maxDuration = new Option<double>("--max-duration-s") { Description = "--find-capacity: the most seconds the ramp runs, over all its steps.", DefaultValueFactory = _ => 300 };
        var stepSeconds = new Option<double>("--step-s") { Description = "--find-capacity: seconds each load step (and the unloaded measure) holds its load, after a closed step's climb from 1 user at the quick profile's pace.", DefaultValueFactory = _ => CapacityOptions.DefaultStepSeconds };
        var bisectSteps = new Option<int>("--bisect-steps") { Description = $"--find-capacity: the most steps that narrow the break after the doubling found it, each halving the gap until it is within {CapacityOptions.ResolutionPercent} % (0: the doubling's step is the break, its gap said).", DefaultValueFactory = _ => CapacityOptions.DefaultBisectSteps };
        var settleSeconds = new Option<double>("--settle-s") { Description = "--find-capacity without --launch: the most seconds to wait before each step for the pool to shrink back to its size before the first step.", DefaultValueFactory = _ => 30 };
        var launch = new Option<string?>("--launch") { Description = "Start the service yourself: 'dotnet <this .dll>' listening on the URL's origin (ASPNETCORE_URLS), observed by its pid and stopped at the end; under --find-capacity a fresh process for each step; --verify-fix needs it to restart the service with the sized pool minimum." };
        var verifyFix = new Option<bool>("--verify-fix") { Description = $"With --launch and --find-capacity: start the service again with the pool minimum the diagnosis sized ({FixCheck.RuntimeMinimumSetting}) and find its capacity again, measured beside predicted." };
        var command = new Command("run", "Load any HTTP endpoint on this machine with a load profile, observe its .NET process from outside, and write the report with the diagnosis.")
        {
            url, pid, processName, outFolder, findCapacity, slo, maxLoad, maxDuration, stepSeconds, bisectSteps, settleSeconds, launch, verifyFix, CommandLine.NoUrlObserver,
        };
        foreach (var option in CommandLine.LoadSymbols.Concat(CommandLine.SessionSymbols))
        {
            command.Options.Add(option);
        }
        command.SetAction(async (parse, cancellationToken) =>
        {
            try
            {
                var target = LoopbackUrl(parse.GetValue(url)!);
                var launched = parse.GetValue(launch);
                if (launched is not null && (parse.GetValue(pid) is not null || parse.GetValue(processName) is not null))
                {
                    throw new UsageException("--launch starts the service and observes it, so it cannot go with --pid or --process-name");
                }
                var observe = !parse.GetValue(CommandLine.NoUrlObserver);
                if (!observe && (parse.GetValue(pid) is not null || parse.GetValue(processName) is not null || parse.GetValue(verifyFix)))
                {
                    throw new UsageException("--no-observer observes no process, so it cannot go with --pid, --process-name or --verify-fix");
                }
                if (parse.GetValue(verifyFix) && launched is null)
                {
                    throw new UsageException("--verify-fix restarts the service with a new pool minimum, and the runner cannot restart a process it did not start: add --launch <the service's .dll>");
                }
                if (parse.GetValue(verifyFix) && !parse.GetValue(findCapacity))
                {
                    throw new UsageException("--verify-fix on --url measures the capacity the fix gives, so it needs --find-capacity");
                }
                var (named, closed) = RunProcessOf(parse.GetValue(pid), parse.GetValue(processName));
                var load = CommandLine.LoadOf(parse);
                var folder = parse.GetValue(outFolder) ?? Path.Combine("reports", $"{DateTime.Now:yyyyMMdd-HHmmss}-url");
                var settings = CommandLine.SettingsOf(parse, load, folder, ObserverOptions.Default with { Attach = observe }, terminalWidth);
                var capacity = parse.GetValue(findCapacity) ? CapacityOf(parse, slo, maxLoad, stepSeconds, maxDuration, bisectSteps, settings) : null;
                var givenSlo = SloOf(parse.GetValue(slo));
                if (capacity is null && givenSlo is null && settings.Agents is null)
                {
                    load = UnloadedFirst(load);
                }
                (load, var heldSimulations) = capacity is null ? ClimbingToQuickSteps(load, agents: settings.Agents is not null) : (load, null);
                var settle = TimeSpan.FromSeconds(new OptionValues(parse).Positive(settleSeconds));
                if (capacity is null)
                {
                    ExperimentRunner.CheckThresholdsNameVariants([new VariantKey(TargetVariant)], settings.Thresholds);
                }
                // The same root as the experiments': progress (a status line on a terminal, --verbose, --live), the load's
                // socket settings, the agents; the search's steps are not planned ahead.
                var plan = capacity is not null
                    ? new RunPlanned($"run --url {target}, find-capacity", [])
                    : new RunPlanned($"run --url {target}, {load.ProfileName}", [new(ProgressEvent.SeriesOf("url", new VariantKey(TargetVariant)), load.Shape.Duration.TotalSeconds, load.Shape.Steps.Count)]);
                await using var root = await RunRoot.StartAsync(plan, settings, [new HttpRamp(target.PathAndQuery)], output, TimeProvider.System, cancellationToken);
                return await Runner.RunToEndAsync(root, async () =>
                {
                    if (launched is null)
                    {
                        await ProbeAsync(target, cancellationToken);
                    }
                    if (capacity is not null)
                    {
                        // Every step from the same state: a fresh process each under --launch, else the pool shrunk back.
                        await using var starts = launched is not null
                            ? new FreshProcessSteps(launched, target, new Dictionary<string, string>(), root.Console)
                            : (IStepStarts)new SettledPoolSteps(await ServersAsync(target, named, closed, observe, readsCores: true, root.Console), settle, root.Console);
                        var relaunch = parse.GetValue(verifyFix) ? new Relaunch(launched!, target) : null;
                        return await FindCapacityAsync(target.PathAndQuery, load, capacity, starts, relaunch, root, error, cancellationToken);
                    }
                    await using var service = launched is null ? null : await LaunchedService.StartAsync(launched, target, new Dictionary<string, string>(), cancellationToken);
                    if (service is not null)
                    {
                        // Warmed as the search warms each fresh process: else the one-user baseline times the first requests' JIT (issue 37: a 1,046-ms round of 264).
                        await root.Console.WriteLineAsync($"-- launched pid {service.ProcessId}, warmed by {await FreshProcessSteps.WarmAsync(target, cancellationToken)} requests");
                    }
                    var servers = await ServersAsync(target, service?.ProcessId ?? named, closed, observe, readsCores: false, root.Console);
                    return await RunProfileAsync(target.PathAndQuery, load, heldSimulations, givenSlo, servers, root, error, cancellationToken);
                }, cancellationToken);
            }
            catch (Exception e) when (e is UsageException or FormatException)
            {
                await error.WriteLineAsync($"error: {e.Message}");
                return CommandLine.ExitUsage;
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                await error.WriteLineAsync("cancelled: stopped before any load step ran, so no report was written");
                return CommandLine.ExitCancelled;
            }
        });
        return command;
    }

    /// <summary>
    /// --find-capacity's ramp from its options. Each step is judged by the SLO; --threshold limits apply to every step
    /// that held it, so they name the variant * (the steps are named by their load). --agents is refused: the search
    /// starts with one user (the unloaded baseline, and the SLO's default), which cannot be split over agents.
    /// </summary>
    private static CapacityOptions CapacityOf(ParseResult parse, Option<double?> slo, Option<double> maxLoad, Option<double> stepSeconds, Option<double> maxDuration, Option<int> bisectSteps, RunSettings settings)
    {
        if (settings.Agents is not null)
        {
            throw new UsageException("--find-capacity measures its unloaded baseline with one user, which cannot be split over agents, so it cannot use --agents");
        }
        if (settings.Thresholds.FirstOrDefault(t => t.Variant != "*") is { } named)
        {
            throw new UsageException($"--find-capacity names its steps by their load, so its thresholds apply to every step that held the SLO and name the variant *, got '{named}'");
        }
        var values = new OptionValues(parse);
        var rate = CommandLine.GivenRate(parse);
        return new CapacityOptions(
            SloOf(parse.GetValue(slo)),
            rate is not null, rate ?? FirstUsers, values.Positive(maxLoad),
            TimeSpan.FromSeconds(values.Positive(stepSeconds)), TimeSpan.FromSeconds(values.Positive(maxDuration)))
        {
            BisectSteps = values.InRange(bisectSteps, 0, CapacityOptions.MaxBisectSteps),
        };
    }

    /// <summary>
    /// A closed profile run without --slo-p99-ms measures one user first, for as long as --find-capacity's unloaded measure
    /// by default (<see cref="CapacityOptions.DefaultStepSeconds"/>: the quick profile's 2-s intervals make the same 5
    /// rounds, so the two commands set their SLO by one rule from as many requests: issue 37 saw two 6-s and 10-s baselines
    /// of one service differ by 67 %), and sets its SLO from that (<see cref="CapacityFinding.OfProfile"/>), as --find-capacity sets its own: a lowest step of
    /// several users may already be starved (a service needing 3 pool threads a request, at 4 users on 2 cores: its p99
    /// 998 ms against one user's 167), and an SLO of twice that let the quick run hold 20 users where the search broke at
    /// 4. Open profiles, a first step of one user, and --agents (a share of one user cannot be split) keep their shape. The
    /// smoke profile, a check that the run works and no measurement (it states no verdict), measures its one user for as
    /// long as its own first step: 10 s of it would more than triple a 3-s check.
    /// </summary>
    internal static LoadOptions UnloadedFirst(LoadOptions load)
    {
        var first = load.Shape.Steps[0];
        var unloaded = load.IsCheck ? first.During : TimeSpan.FromSeconds(CapacityOptions.DefaultStepSeconds);
        return load.Shape.IsOpen || first.Target <= 1
            ? load
            : load with { Shape = new LoadShape([new KeepConstant(1, unloaded), .. load.Shape.Steps], load.Shape.ReportingInterval) };
    }

    /// <summary>
    /// The quick profile against a URL reaches each of its steps as --find-capacity's steps reach theirs, by a climb at
    /// the same pace and settling (<see cref="CapacityOptions.ClimbingTo"/>), and is judged over each step's hold; with the
    /// indexes of the holds in its shape, the simulations judged. Other profiles, a --config shape (which may ask what a
    /// burst does) and --agents (a share of one user) keep their shape, every step judged (null).
    /// </summary>
    internal static (LoadOptions Load, IReadOnlyCollection<int>? HeldSimulations) ClimbingToQuickSteps(LoadOptions load, bool agents)
    {
        if (load.ProfileName != Profiles.Quick || agents)
        {
            return (load, null);
        }
        var (shape, held) = CapacityOptions.ClimbingTo(load.Shape);
        return (load with { Shape = shape }, held);
    }

    /// <summary>--slo-p99-ms when given: positive.</summary>
    private static double? SloOf(double? given) =>
        given is { } ms ? (ms > 0 ? ms : throw new UsageException($"--slo-p99-ms must be positive, got {ms}")) : null;

    /// <summary>
    /// The load profile against the URL, once: its report with the headline first; the exit code. Its steps are judged by
    /// --find-capacity's rule (<see cref="ServiceSlo"/>), so the two agree on whether and where the service broke.
    /// </summary>
    private static async Task<int> RunProfileAsync(string pathAndQuery, LoadOptions load, IReadOnlyCollection<int>? heldSimulations, double? givenSloP99Ms, TargetApiServers servers, RunRoot root, TextWriter error, CancellationToken cancellationToken)
    {
        var folder = root.Settings.OutputFolder;
        var report = await root.RunAsync(new UrlTarget(pathAndQuery, TargetVariant), load, servers, cancellationToken,
            variantFinished: soFar => ReportWriter.Write(folder, soFar, RunnerCommandLine.Current()));
        if (report.Partial is not null)
        {
            return WriteStopped(report, folder, root.Console);
        }
        var result = report.Variants[0];
        var observation = report.Observations.GetValueOrDefault(result.Key.Label);
        var (finding, judged) = CapacityFinding.OfProfileJudged(result, givenSloP99Ms, (broke, baselineP99Ms) => CapacityFinding.CauseOf(broke, observation, baselineP99Ms, servers.NotObservedBecause),
            observation?.Diagnosis?.Inputs.Spell, heldSimulations);
        report = WithHeadline(report, finding, observation, stepStarts: heldSimulations is null ? StepStartsText.Ramp : StepStartsText.Climbed) with { ProfileStepJudgements = judged };
        var passed = ReportWriter.PrintOutcome(ReportWriter.Write(folder, report, RunnerCommandLine.Current()), folder, root.Console);
        return await FailedEveryRequestAsync(result, error) ? CommandLine.ExitUsage : passed ? CommandLine.ExitOk : CommandLine.ExitThresholdFailed;
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

    /// <summary>
    /// run --url's process: as <see cref="ProcessOf"/>, except that a --pid whose diagnostics channel is closed
    /// (<see cref="ObserverTarget.ClosedChannelOf"/>) is taken unobserved, with why, as a process found by its port is:
    /// /proc still shows its CPU.
    /// </summary>
    private static (int? ProcessId, string? ClosedBecause) RunProcessOf(int? pid, string? processName) =>
        pid is { } id && processName is null ? (id, ObserverTarget.ClosedChannelOf(id)) : (ProcessOf(pid, processName), null);

    /// <summary>
    /// The servers of a URL target: the process given (or launched) is observed, unless its channel is
    /// <paramref name="closedBecause"/>; without one, the process listening on the URL's port if this runner can observe
    /// it; none without <paramref name="observe"/> (--no-observer). A local process that cannot be observed is kept for
    /// /proc (<see cref="TargetApiServers.UnobservedProcessId"/>), and the note says what is read of it
    /// (<paramref name="readsCores"/>: its CPU, under --find-capacity) and what cannot be seen.
    /// </summary>
    internal static async Task<TargetApiServers> ServersAsync(Uri target, int? given, string? closedBecause, bool observe, bool readsCores, TextWriter output)
    {
        var (processId, notObserved) = !observe ? (null, "--no-observer")
            : given is not { } id ? ObserverTarget.FindByPort(target.Port)
            : closedBecause is null ? (id, null) : ((int?)null, closedBecause);
        var unobserved = processId is null && observe ? given ?? ObserverTarget.HolderOfPort(target.Port) : null;
        await output.WriteLineAsync(processId is { } observed
            ? $"observing pid {observed}{(given is null ? $" (listening on port {target.Port})" : "")}"
            : unobserved is { } local && readsCores
            ? $"note: the runtime is not observed: {notObserved}; pid {local}'s CPU is read from /proc over each step, but no method, thread pool, lock, GC or outgoing call can be seen without its diagnostics channel"
            : $"note: the runtime is not observed (load and latency only): {notObserved}");
        return new TargetApiServers(new Uri(target.GetLeftPart(UriPartial.Authority) + "/"), isSandboxApi: false) { ProcessId = processId, NotObservedBecause = notObserved, UnobservedProcessId = unobserved };
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

    /// <summary>The service <c>--launch</c> started, which --verify-fix starts again (a fresh process each step) with the sized minimum.</summary>
    private sealed record Relaunch(string Assembly, Uri Target);

    /// <summary>
    /// The steps of one search as they end, in order (what a stopped search reports), and the state each started from, by
    /// its variant's label; each run from the state <see cref="IStepStarts"/> readies.
    /// </summary>
    private sealed class SearchSteps(string pathAndQuery, LoadOptions load, RunRoot root, CancellationToken userStop)
    {
        public List<ExperimentReport> Done { get; } = [];

        public Dictionary<string, SummaryStepStart> Starts { get; } = [];

        /// <summary>What each step is judged on, by its variant's label: the part held at its load (<see cref="CapacityOptions.HeldRow"/>).</summary>
        public Dictionary<string, StepRow> Held { get; } = [];

        /// <summary>How each step of a ramp was judged, by its variant's label, a transient break with its repeat's outcome (<see cref="ServiceSlo.Confirmed"/>).</summary>
        public Dictionary<string, StepJudgement> Judged { get; } = [];

        /// <summary>Why the runtime was not observed in the last step, when it was not.</summary>
        public string? NotObservedBecause { get; private set; }

        /// <summary>Who held the cores over each step (its busiest second, read from /proc), by its variant's label: what a break whose runtime was not observed is judged by.</summary>
        public Dictionary<string, CoreUse> Cores { get; } = [];

        /// <summary>
        /// One step of <paramref name="capacity"/> at <paramref name="level"/> named <paramref name="label"/>, from the state
        /// <paramref name="starts"/> readies; stopped (its report marked partial), it goes on as the cancellation it is, kept last in <see cref="Done"/>
        /// when the user stopped the run.
        /// </summary>
        public async Task<ExperimentReport> RunAsync(IStepStarts starts, string label, CapacityOptions capacity, double level, CancellationToken token)
        {
            var (servers, start) = await starts.BeforeAsync(token);
            ExperimentReport step;
            var readings = new List<CoreReading>();
            using (var stepRuns = new CancellationTokenSource())
            {
                var reader = ReadCoresAsync(servers.ProcessId ?? servers.UnobservedProcessId, readings, stepRuns.Token);
                try
                {
                    step = await root.RunAsync(new UrlTarget(pathAndQuery, label), load with { Shape = capacity.ShapeAt(level), ProfileName = "find-capacity" }, servers, token);
                }
                finally
                {
                    await stepRuns.CancelAsync();
                    await reader;
                    await starts.AfterAsync();
                }
            }
            if (CoreUse.Busiest(readings, Environment.ProcessorCount) is { } cores)
            {
                Cores[label] = cores;
            }
            Starts[label] = start;
            NotObservedBecause = servers.NotObservedBecause;
            if (step.Partial is not null)
            {
                if (userStop.IsCancellationRequested)
                {
                    Done.Add(step);
                }
                token.ThrowIfCancellationRequested();
            }
            Held[label] = capacity.HeldRow(step.Variants[0], level);
            Done.Add(step);
            WriteSoFar(Done, root.Settings.OutputFolder);
            return step;
        }
    }

    /// <summary>
    /// --find-capacity: one user first (the unloaded baseline, and the SLO's default), then the ramp of
    /// <paramref name="capacity"/> (each step a run of its own, from the same state: <paramref name="starts"/>) doubling to
    /// the break and bisecting it; with <paramref name="relaunch"/> (--verify-fix), the service started again with the pool
    /// minimum the break's diagnosis sized and ramped again on the same SLO, its capacity measured beside the one predicted.
    /// One report of all the steps; stopped (Ctrl+C, SIGTERM), of the steps done and the stopped one up to there, marked
    /// partial, with no capacity claimed.
    /// </summary>
    private static async Task<int> FindCapacityAsync(string pathAndQuery, LoadOptions load, CapacityOptions capacity, IStepStarts starts, Relaunch? relaunch, RunRoot root, TextWriter error, CancellationToken cancellationToken)
    {
        var output = root.Console;
        var search = new SearchSteps(pathAndQuery, load, root, cancellationToken);
        try
        {
            return await SearchAsync(search, capacity, starts, relaunch, root, error, cancellationToken);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested && search.Done.Count > 0)
        {
            // Stopped in a step (its partial report, kept last in the steps), or between two (a fresh process starting).
            var steps = search.Done;
            var stopped = steps[^1].Partial is not null ? steps[^1] : null;
            var finished = steps.Where(s => s.Partial is null).Select(s => s.Variants[0].Key.Label).ToList();
            var report = Combined(steps) with
            {
                Partial = PartialRun.Describe(stopped?.StoppedAt ?? "between two steps of the search", finished, "step"),
                Headline = $"Capacity not found: stopped (Ctrl+C or SIGTERM) after {CountText.Of(finished.Count, "finished step")} of the search; no capacity is claimed from part of it.",
            };
            return WriteStopped(report, root.Settings.OutputFolder, output);
        }
    }

    /// <summary>The search of <see cref="FindCapacityAsync"/>, each step added to <paramref name="search"/> as it ends.</summary>
    private static async Task<int> SearchAsync(SearchSteps search, CapacityOptions capacity, IStepStarts starts, Relaunch? relaunch, RunRoot root, TextWriter error, CancellationToken cancellationToken)
    {
        var output = root.Console;
        var folder = root.Settings.OutputFolder;
        var started = root.Clock.GetTimestamp();
        var unloaded = await search.RunAsync(starts, "unloaded-1-user", new CapacityOptions(null, false, 1, 1, capacity.Step, capacity.MaxDuration), 1, cancellationToken);
        if (await FailedEveryRequestAsync(unloaded.Variants[0], error))
        {
            ReportWriter.Write(folder, unloaded, RunnerCommandLine.Current());
            return CommandLine.ExitUsage;
        }
        var baseline = UnloadedBaseline.Of(unloaded.Variants[0]);
        if (capacity.SloP99Ms is { } given && given < baseline.P99Ms)
        {
            await error.WriteLineAsync(Invariant($"error: --slo-p99-ms {given:0.#} is below the unloaded p99 of {baseline.P99Ms:0.#} ms (one user): no load can meet it"));
            return CommandLine.ExitUsage;
        }
        var slo = ServiceSlo.Of(capacity.SloP99Ms, baseline);
        await output.WriteLineAsync(Invariant($"-- find-capacity: {slo.Described}; {capacity.Unit} doubling from {capacity.StartLoad:0.#} up to {capacity.MaxLoad:0.#}, then bisecting the break, {capacity.Step.TotalSeconds:0.#} s each, {capacity.MaxDuration.TotalSeconds:0} s at most"));
        // What GC and the upstream at the break are compared with: the one user's run, observed as every step is.
        var unloadedStep = new LowerStep(unloaded.Variants[0], unloaded.Observations.GetValueOrDefault(unloaded.Variants[0].Key.Label));
        var before = await RampAsync(search, starts, "", capacity, slo, baseline.P99Ms, unloadedStep, started, root, cancellationToken);
        var finding = before.Finding;
        var figures = new SummaryCapacity(finding.Unit, slo.P99Ms, slo.Described, finding.HeldLoad, finding.BrokeAt, finding.BrokeBecause, finding.Cause, before.DiagnosedLabel, null)
        {
            BaselineRequests = baseline.Requests,
            Findings = finding.Findings.Count == 0 ? null : [.. finding.Findings.Select(f => new SummaryFinding(f.Cause, f.Place, f.Evidence, f.Weight, f.Figures))],
        };
        FixRamp? verified = null;
        if (relaunch is not null)
        {
            verified = await VerifyFixAsync(search, relaunch, before.Diagnosed?.Diagnosis, capacity, slo, baseline.P99Ms, root, cancellationToken);
            figures = figures with { Fix = verified.Figures };
        }
        var steps = search.Done;
        // The unloaded step is no ramp step: it sets the baseline (one user holds by definition) and its record says how it stood.
        var judged = steps.ToDictionary(s => s.Variants[0].Key.Label, s => search.Judged.GetValueOrDefault(s.Variants[0].Key.Label) ?? slo.JudgeBaseline(baseline, search.Held[s.Variants[0].Key.Label].Stats));
        var report = WithHeadline(Combined(steps), finding, before.Diagnosed, verified, $"{StepStartsText.Describe(search.Starts)} {capacity.DescribeSteps()}") with
        {
            // The steps that broke the SLO are the finding, not a failed run: only those that held are held to the failed share.
            Thresholds = [.. steps.Where(s => judged[s.Variants[0].Key.Label].BrokeBecause is null).SelectMany(s => s.Thresholds)],
            Capacity = figures,
            StepJudgements = judged,
            StepStarts = search.Starts,
            FixRampPrefix = relaunch is null ? null : FixRampPrefix,
        };
        return ReportWriter.PrintOutcome(ReportWriter.Write(folder, report, RunnerCommandLine.Current()), folder, output) ? CommandLine.ExitOk : CommandLine.ExitThresholdFailed;
    }

    /// <summary>The label prefix of the --verify-fix ramp's steps ("min12-4-users"), after the restart with the pool minimum.</summary>
    private const string FixRampPrefix = "min";

    /// <summary>The search's report with the steps measured so far, marked partial: still running (a search killed outright leaves it so).</summary>
    private static void WriteSoFar(IReadOnlyList<ExperimentReport> steps, string folder) =>
        ReportWriter.Write(folder, Combined(steps) with { Partial = PartialRun.Running([.. steps.SelectMany(s => s.Variants).Select(v => v.Key.Label)]) }, RunnerCommandLine.Current());

    /// <summary>The search's steps as one report: the last step's, with every step's variants, load shapes and observations, started when the first did.</summary>
    private static ExperimentReport Combined(IReadOnlyList<ExperimentReport> steps) => steps[^1] with
    {
        StartedAt = steps[0].StartedAt,
        LoadShape = string.Join("; ", steps.Select(s => s.Variants.Count > 0 ? $"{s.Variants[0].Key.Label}: {s.LoadShape}" : s.LoadShape)),
        Variants = [.. steps.SelectMany(s => s.Variants)],
        Observations = steps.SelectMany(s => s.Observations).ToDictionary(o => o.Key, o => o.Value),
    };

    /// <summary>Writes a stopped run's report (marked partial, with no verdict) and says so; the exit code of a stopped run.</summary>
    private static int WriteStopped(ExperimentReport partial, string folder, TextWriter output)
    {
        ReportWriter.PrintOutcome(ReportWriter.Write(folder, partial, RunnerCommandLine.Current()), folder, output);
        return CommandLine.ExitCancelled;
    }

    /// <summary>Reads who held the cores (/proc) every second until <paramref name="stop"/>, into <paramref name="readings"/>; none for a process that is not local.</summary>
    private static async Task ReadCoresAsync(int? processId, List<CoreReading> readings, CancellationToken stop)
    {
        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(1));
        do
        {
            if (CoreReading.Take(processId) is not { } reading)
            {
                return;
            }
            readings.Add(reading);
        }
        while (await timer.WaitForNextTickAsync(CancellationToken.None) && !stop.IsCancellationRequested);
        if (CoreReading.Take(processId) is { } last)
        {
            readings.Add(last);
        }
    }

    /// <summary>One ramp's finding, and the observation whose diagnosis it reports (the break's, else the most starved step's, else the last) with its variant's label.</summary>
    private sealed record RampResult(CapacityFinding Finding, VariantObservation? Diagnosed, string? DiagnosedLabel);

    /// <summary>The ramp of <paramref name="capacity"/> against one SLO, its steps' variants named with <paramref name="labelPrefix"/>, each from the state <paramref name="starts"/> readies.</summary>
    private static async Task<RampResult> RampAsync(SearchSteps search, IStepStarts starts, string labelPrefix, CapacityOptions capacity, ServiceSlo slo, double unloadedP99Ms, LowerStep? unloadedStep, long startedTimestamp, RunRoot root, CancellationToken cancellationToken)
    {
        var steps = new Dictionary<double, ExperimentReport>();
        var labels = new List<string>();
        async Task<StepJudgement> MeasureAsync(double level, CancellationToken token)
        {
            // A load run again is the repeat that confirms a transient break (CapacityRamp.RunAsync), from the same state as every step.
            var again = steps.ContainsKey(level) ? "-repeated" : "";
            var step = await search.RunAsync(starts, Invariant($"{labelPrefix}{level:0.#}-{(capacity.Open ? "per-s" : "users")}{again}"), capacity, level, token);
            steps[level] = step;
            var label = step.Variants[0].Key.Label;
            labels.Add(label);
            var held = search.Held[label];
            return slo.Judge(held.Stats, held.FromSeconds, held.ToSeconds, step.Observations.GetValueOrDefault(label)?.Diagnosis?.Inputs.Spell, capacity.Open ? null : level);
        }
        // A closed ramp's unloaded measure (one user) holds by definition: its p99 is what the SLO is measured against.
        var ramp = await CapacityRamp.RunAsync(capacity, capacity.Open ? null : 1, root.Clock, startedTimestamp, MeasureAsync, cancellationToken);
        foreach (var (label, probe) in labels.Zip(ramp.Probes))
        {
            search.Judged[label] = probe.Judged;
        }
        var observations = steps.Values.SelectMany(s => s.Observations).ToDictionary(o => o.Key, o => o.Value);
        var broke = ramp.Broke is { } b ? steps[b.Load].Variants[0] : null;
        // The break's figures are those of the run the search judged broke, not of the repeat that confirmed it (whose
        // observation the diagnosis reads): the headline's p99 is then the first line's and the step table's.
        var brokeJudged = ramp.Broke is { } judged ? labels[ramp.Probes.ToList().IndexOf(judged)] : null;
        var brokeObservation = broke is null ? null : observations.GetValueOrDefault(broke.Key.Label);
        var finding = new CapacityFinding(capacity.Unit, slo, ramp.Held, broke?.PeakLoad, ramp.Broke?.BrokeBecause,
            broke is null ? null : CapacityFinding.CauseOf(broke, brokeObservation, unloadedP99Ms, search.NotObservedBecause, unloadedStep, search.Cores.GetValueOrDefault(broke.Key.Label)), ramp.Bound, ramp.Narrowing,
            brokeJudged is null ? null : search.Held[brokeJudged].Stats)
        {
            Findings = broke is null ? [] : CapacityFinding.FindingsAt(broke, brokeObservation, unloadedP99Ms, unloadedStep, search.Cores.GetValueOrDefault(broke.Key.Label), search.NotObservedBecause),
            // One user (held before the ramp, by definition) was not judged against the SLO: only a ramp step can be held within noise.
            HeldJudged = ramp.Probes.LastOrDefault(p => !p.Repeat && p.Load == ramp.Held)?.Judged is { Verdict: not StepJudgement.Held } heldJudged ? heldJudged : null,
            NotConfirmed = [.. ramp.Probes.Where(p => p.Judged.Verdict == StepJudgement.StarvedThenHeld).Select(p => (p.Load, p.Judged.Why!))],
        };
        var diagnosedLabel = brokeObservation is not null ? broke!.Key.Label : FixCheck.MostStarved(observations)?.Label ?? observations.Keys.LastOrDefault();
        return new RampResult(finding, diagnosedLabel is null ? null : observations[diagnosedLabel], diagnosedLabel);
    }

    /// <summary>--verify-fix's sentence (predicted beside measured), what the ramp with the minimum held, and the same as figures (null when no minimum was tried).</summary>
    private sealed record FixRamp(string Sentence, double? Held, SummaryCapacityFix? Figures);

    /// <summary>
    /// --verify-fix on --url: starts the service again with <see cref="FixCheck.RuntimeMinimumSetting"/> at the minimum the
    /// diagnosis sized (a fresh process for each step) and ramps it again on the same SLO (its steps named
    /// <c>min&lt;N&gt;-</c>); returns the sentence that puts the capacity the fix predicts (Little's law: the minimum over
    /// the threads a request holds) beside the one measured, as a sentence and as figures.
    /// </summary>
    private static async Task<FixRamp> VerifyFixAsync(SearchSteps search, Relaunch relaunch, StarvationDiagnosis? diagnosis, CapacityOptions capacity, ServiceSlo slo, double unloadedP99Ms, RunRoot root, CancellationToken cancellationToken)
    {
        var output = root.Console;
        if (diagnosis is not { Starved: true })
        {
            return new FixRamp("Fix not verified (--verify-fix): no step's pool starved, so there is no minimum to try.", null, null);
        }
        var minimum = diagnosis.NeededThreads;
        var setting = $"{FixCheck.RuntimeMinimumSetting}={FixCheck.RuntimeMinimum(minimum)}";
        await output.WriteLineAsync($"-- verify-fix: starting {relaunch.Assembly} again with {setting} ({minimum} threads)");
        await using var starts = new FreshProcessSteps(relaunch.Assembly, relaunch.Target, new Dictionary<string, string> { [FixCheck.RuntimeMinimumSetting] = FixCheck.RuntimeMinimum(minimum) }, output);
        var after = await RampAsync(search, starts, Invariant($"{FixRampPrefix}{minimum}-"), capacity, slo, unloadedP99Ms, null, root.Clock.GetTimestamp(), root, cancellationToken);
        var measured = after.Finding.BrokeAt is { } brokeAt
            ? Invariant($"held {after.Finding.HeldLoad:0.#} {capacity.Unit}, broke at {brokeAt:0.#} {capacity.Unit} ({after.Finding.Cause})")
            : Invariant($"held {after.Finding.HeldLoad:0.#} {capacity.Unit} without breaking ({after.Finding.Bound})");
        var figures = new SummaryCapacityFix(minimum, diagnosis.MinimumCapacity, diagnosis.AsyncCapacity, after.Finding.HeldLoad, after.Finding.BrokeAt, after.Finding.Cause);
        return new FixRamp(Invariant($"Fix verified (--verify-fix, the service started again with {setting}, {minimum} threads): predicted {StarvationDiagnosis.About(diagnosis.MinimumCapacity, capacity.Unit)} with no wait; measured: {measured}."), after.Finding.HeldLoad, figures);
    }

    /// <summary>
    /// <paramref name="report"/> with its headline (<see cref="Running.Headline"/>: at most four short sentences, its
    /// figures kept beside it) and, below it, what it rests on: the finding in full, the state the steps started from, the
    /// diagnosis paragraph, --verify-fix's prediction beside its measure.
    /// </summary>
    private static ExperimentReport WithHeadline(ExperimentReport report, CapacityFinding finding, VariantObservation? observation, FixRamp? verified = null, string? stepStarts = null)
    {
        var headline = Running.Headline.Of(finding, observation, verified?.Held);
        var diagnosis = observation?.Diagnosis is { } d ? d.Describe() : "The runtime was not observed, so there is no diagnosis (see \"Where the runtime's figures came from\").";
        var details = string.Join(" ", new[] { finding.Describe(), stepStarts, diagnosis, verified?.Sentence }.Where(t => !string.IsNullOrEmpty(t)));
        return report with { Headline = headline.Text, HeadlineFigures = headline.Figures, HeadlineDetails = details };
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

        public override Finding Assess(IReadOnlyList<VariantResult> results) =>
            Finding.NotAssessed("a user's service has no seed to compare with; the headline, what it rests on below it, and \"Inside the runtime\" carry the diagnosis.");
    }
}
