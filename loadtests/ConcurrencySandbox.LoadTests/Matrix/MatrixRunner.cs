using System.Globalization;
using System.Text.Json;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.ApiClient;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Experiments.FanOut;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Progress;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;
using ConcurrencySandbox.LoadTests.Runs;
using ConcurrencySandbox.Platform.Hosting;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.LoadTests.Matrix;

/// <summary>What was measured at one core count and limit (taskset pinning, or a container's quota or cpuset), or why it was skipped.</summary>
internal sealed record CoreCountRun(int Cpus, string? SkippedBecause, int? ApiProcessorCount, IReadOnlyList<ComparisonRow> Sweep, double? BreakEvenAmount, RunSummary? FanOut,
    ContainerLimit? Container = null, BreakEvenBracket? Bracket = null)
{
    /// <summary>How the report names this run: "1 core", "2 cores" locally, "2 cores --cpus 2" in a container.</summary>
    public string Label => $"{CountText.Of(Cpus, "core")}{LimitSuffix}";

    /// <summary>Nothing locally (so the local report reads as before), " --cpus 2" or " --cpuset-cpus 0-1" in a container.</summary>
    public string LimitSuffix => Container is null ? "" : $" {Container}";

    /// <summary>A file-name-safe key: "2cpu", "2cpu-quota", "2cpu-pinning".</summary>
    public string Key => Container is null ? $"{Cpus}cpu" : $"{Cpus}cpu-{Container.KindName}";

    /// <summary>The part a stop (Ctrl+C, SIGTERM) came in, "the compute sweep" or "the fan-out", with what it finished before; null when it was not stopped.</summary>
    public string? StoppedIn { get; init; }

    /// <summary>Where in the fan-out the stop came ("after variant async@2cpu step 1 of 5"); null outside a variant's load.</summary>
    public string? StoppedAt { get; init; }
}

/// <summary>Where the matrix's containers ran: the engine, its version and the image, for the report.</summary>
internal sealed record ContainerSetup(string Engine, string EngineVersion, string Image, string ImageId);

/// <summary>
/// The matrix's report in <paramref name="Folder"/>, rendered from the core counts measured so far: each fan-out's own
/// report (fanout-Ncpu/) and the matrix's tables and matrix.json from its <see cref="RunSummary"/>, never a figure of
/// its own; written as each part and each fan-out variant finishes, marked partial: still running, then once at the end.
/// </summary>
/// <param name="Machine">The machine the matrix ran on, as the pages name it (kept in matrix.json, so <c>report</c> names it, not its own).</param>
/// <param name="CommandLine">The command that ran the matrix, as the pages quote it.</param>
internal sealed record MatrixReport(string Folder, MatrixOptions Options, ContainerSetup? Setup, int DelayMs, SummaryMachine Machine, string CommandLine)
{
    /// <summary>Writes the report of the core counts so far as a run still going on; a run killed outright leaves it so.</summary>
    public void WriteRunning(IReadOnlyList<CoreCountRun> runs) => Write(runs, PartialRun.Running([.. runs.SelectMany(MatrixRunner.Finished)]));

    /// <summary>Writes every file of the report, marked <paramref name="partial"/> when not null; the verdict it states.</summary>
    public string Write(IReadOnlyList<CoreCountRun> runs, string? partial)
    {
        Directory.CreateDirectory(Folder);
        var fanOuts = runs.Where(r => r.FanOut is not null).ToList();
        var allFanOut = fanOuts.SelectMany(r => r.FanOut!.Variants).ToList();
        foreach (var run in fanOuts)
        {
            ReportWriter.Write(Path.Combine(Folder, MatrixRunner.FanOutFolder(run)), run.FanOut!);
        }
        File.WriteAllText(Path.Combine(Folder, "curves.csv"), ReportWriter.CurvesCsv(allFanOut));
        File.WriteAllText(Path.Combine(Folder, "telemetry.csv"), ReportWriter.TelemetryCsv(allFanOut));
        var verdict = partial is null ? MatrixRunner.Hypothesis3(runs) : $"{MatrixRunner.Hypothesis3Name} not judged: {MatrixRunner.NotJudged}.";
        File.WriteAllText(Path.Combine(Folder, "matrix.md"), MatrixRunner.Markdown(runs, verdict, this, partial));
        File.WriteAllText(Path.Combine(Folder, "report.html"), MatrixRunner.Html(runs, verdict, this, partial));
        File.WriteAllText(Path.Combine(Folder, MatrixFile.FileName), JsonSerializer.Serialize(
            new
            {
                version = MatrixFile.CurrentVersion, options = Options, setup = Setup, machine = Machine, commandLine = CommandLine, delayMs = DelayMs,
                runs = runs.Select(r => new { r.Cpus, r.Container, r.SkippedBecause, r.ApiProcessorCount, r.Sweep, r.BreakEvenAmount, r.Bracket, FanOut = FanOutOf(r) }),
                verdict, flags = MatrixRunner.Flags(runs), partial,
            },
            MatrixFile.Json));
        return verdict;
    }

    /// <summary>
    /// A core count's fan-out in matrix.json: where its summary is, its verdict, and per variant the figures of the
    /// fan-out table as its summary holds them, with the names of those that are lower bounds.
    /// </summary>
    private object? FanOutOf(CoreCountRun run) => run.FanOut is not { } summary ? null : new
    {
        Summary = $"{MatrixRunner.FanOutFolder(run)}/{ReportWriter.SummaryFileName}",
        summary.Experiment,
        summary.Outcome,
        summary.Verdict,
        summary.Partial,
        Variants = summary.Variants.Select(v => new
        {
            v.Name, v.Requests, v.Failed, v.Outcomes.TimedOut, v.MeanMs, v.P99Ms, v.PeakStep, v.RequestsPerSecond, v.PeakThreads, v.PeakQueue, v.LowerBounds,
            StarvedFrom = MatrixRunner.StarvedFrom(v, MatrixRunner.StarvedFactor * DelayMs),
        }),
    };
}

/// <summary>
/// Issue 5's local matrix: for each core count the machine has, an API child pinned to the first N cores
/// (taskset + DOTNET_PROCESSOR_COUNT), the compute sweep and the fan-out experiment, then one cross-core report.
/// With an engine (issue 11) each core count is a container instead, limited by quota and/or cpuset, and the runtime
/// inside derives its processor count from that limit (checked before anything is measured).
/// </summary>
internal static class MatrixRunner
{
    /// <summary>Seed 004's hypothesis 3 holds when on one core the largest sweep row's efficiency stays at or below this.</summary>
    public const double NoGainEfficiencyPercent = 110;

    /// <summary>A fan-out variant counts as starved once its mean latency reaches this many times the delay.</summary>
    public const double StarvedFactor = 2;

    /// <summary>What the sweep request may take beyond the longest the API's sweep can run (<see cref="MeasurementPolicy.LongestSweep"/>): starting, calibrating, answering.</summary>
    private static readonly TimeSpan SweepTimeoutMargin = TimeSpan.FromMinutes(10);

    /// <summary>A core count's fan-out report folder in the matrix's: "fanout-2cpu".</summary>
    public static string FanOutFolder(CoreCountRun run) => $"fanout-{run.Key}";

    /// <summary>
    /// Runs every core count in <paramref name="root"/> (its console, progress, observer options and thresholds; a server
    /// per core count), writes the matrix report into <paramref name="outputFolder"/>; its verdicts and headline figures,
    /// passed when every threshold passed.
    /// </summary>
    public static async Task<RunResult> RunAsync(
        MatrixOptions options, FanOutExperiment fanOut, LoadOptions load, string outputFolder, RunRoot root, CancellationToken cancellationToken)
    {
        var console = root.Console;
        // Thresholds may name a variant by its matrix label ("async@2cpu", "async@2cpu-quota"), so every label is offered.
        IReadOnlyList<string?> limitNames = options.Engine is null ? [null] : [.. (options.Limits ?? []).Select(ContainerLimit.NameOf)];
        ExperimentRunner.CheckThresholdsNameVariants(
            [.. options.Cpus.SelectMany(cpus => limitNames.SelectMany(limit => fanOut.Variants.Select(v => new VariantKey(v.Name, cpus, limit))))], root.Settings.Thresholds);
        var environment = new Dictionary<string, string>();
        if (options.GcMode is { } gc)
        {
            environment["DOTNET_gcServer"] = gc == "server" ? "1" : "0";
        }
        var runs = new List<CoreCountRun>();
        var report = new MatrixReport(outputFolder, options, null, fanOut.Settings.DelayMs, MachineFacts.Current().ToSummary(), RunnerCommandLine.Current());
        string? partial = null;
        try
        {
            var engine = options.Engine is { } engineCommand ? new ContainerEngine(engineCommand) : null;
            if (engine is not null)
            {
                var setup = new ContainerSetup(options.Engine!, await engine.ServerVersionAsync(cancellationToken), options.Image, await engine.ImageIdAsync(options.Image, cancellationToken));
                console.WriteLine($"== matrix: {setup.Engine} {setup.EngineVersion}, image {options.Image} ({setup.ImageId})");
                report = report with { Setup = setup };
            }
            await RunEveryCoreCountAsync(runs, engine, options, environment, fanOut, load, root, report, cancellationToken);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // Ctrl+C or SIGTERM outside a core count's parts.
            partial = PartialRun.Describe(runs.Count == 0 ? "before the first core count ran" : "between two core counts", [.. runs.SelectMany(Finished)], "part");
        }
        if (runs.LastOrDefault() is { StoppedIn: { } part } stopped)
        {
            // Stopped in a part: the report of what finished, with the part that was running up to its stop, marked partial.
            partial = PartialRun.Describe($"in {part} on {stopped.Label}{(stopped.StoppedAt is null ? "" : $", {stopped.StoppedAt}")}", [.. runs.SelectMany(Finished)], "part");
        }

        var verdict = report.Write(runs, partial);
        foreach (var flag in Flags(runs))
        {
            console.WriteLine($"FLAGGED: {flag}");
        }
        if (partial is not null)
        {
            console.WriteLine($"== PARTIAL REPORT: {ReportWriter.PartialNote(partial)}");
        }
        console.WriteLine($"== matrix: {verdict}");
        console.WriteLine($"report: {Path.GetFullPath(outputFolder)}");
        if (partial is not null)
        {
            return Headline(runs, verdict) with { Passed = false, Stopped = new RunStopped(partial, outputFolder) };
        }

        var passed = true;
        foreach (var fanOutSummary in runs.Select(r => r.FanOut).OfType<RunSummary>())
        {
            passed &= ReportWriter.PrintOutcome(fanOutSummary, outputFolder, console);
        }
        return Headline(runs, verdict) with { Passed = passed };
    }

    /// <summary>
    /// What <c>--runs</c> compares across runs: hypothesis 3, each core count's break-even and fan-out verdict; the
    /// efficiency at the largest amount and the fan-out's seed figures per core count.
    /// </summary>
    public static RunResult Headline(IReadOnlyList<CoreCountRun> runs, string hypothesis3)
    {
        var measured = runs.Where(r => r.SkippedBecause is null).ToList();
        var sweeps = measured.Where(r => r.Sweep.Count > 0).ToList();
        var sweepResult = new RunResult(
            true,
            [
                new RunVerdict("hypothesis 3", hypothesis3.Split(':')[0], hypothesis3),
                .. sweeps.Select(r => new RunVerdict($"{r.Label}: break-even", BreakEvens.Agreement(BracketOf(r)), BreakEven(r))),
            ],
            [.. sweeps.Select(r => r.Sweep.MaxBy(row => row.Amount)!).Zip(sweeps, (row, r) =>
                new HeadlineFigure(string.Create(CultureInfo.InvariantCulture, $"{r.Label}: efficiency at {row.Amount:N0} cycles"), row.Efficiency.Describe("0.#", " %")))]);
        return RunResult.Combine([sweepResult, .. measured.Where(r => r.FanOut is not null).Select(r => RunResult.Of(r.FanOut!, r.Label))]);
    }

    /// <summary>Measures each core count (a container per limit with <paramref name="engine"/>, else taskset pinning) into <paramref name="runs"/>, or records why it was skipped.</summary>
    /// <param name="report">Written again as each core count's part and each fan-out variant finishes, marked partial: still running.</param>
    private static async Task RunEveryCoreCountAsync(
        List<CoreCountRun> runs, ContainerEngine? engine, MatrixOptions options, Dictionary<string, string> environment, FanOutExperiment fanOut, LoadOptions load, RunRoot root,
        MatrixReport report, CancellationToken cancellationToken)
    {
        if (engine is not null)
        {
            var hostCpus = MachineFacts.Current().LogicalCores;
            foreach (var limit in options.Cpus.SelectMany(cpus => (options.Limits ?? []).Select(kind => new ContainerLimit(kind, cpus))))
            {
                var setting = new CoreCountRun(limit.Cpus, null, null, [], null, null, limit);
                runs.Add(limit.Cpus > hostCpus
                    ? Skipped(setting with { SkippedBecause = $"the engine refuses {limit}: this host has {CountText.Of(hostCpus, "CPU")}" }, root.Console)
                    : await RunCoreCountAsync(setting, new ContainerApiServers(engine, options.Image, limit, environment), options, fanOut, load, root, report, runs, cancellationToken));
                if (runs[^1].StoppedIn is not null)
                {
                    return;
                }
                report.WriteRunning(runs);
            }
            return;
        }
        var available = Environment.ProcessorCount;
        var hasTaskset = CpuSet.CanPin;
        foreach (var cpus in options.Cpus)
        {
            var skipped = !hasTaskset ? "taskset (util-linux) is not installed, so the API cannot be pinned"
                : cpus > available ? $"this machine offers only {CountText.Of(available, "core")} to the runner"
                : null;
            var setting = new CoreCountRun(cpus, skipped, null, [], null, null);
            runs.Add(skipped is not null
                ? Skipped(setting, root.Console)
                : await RunCoreCountAsync(setting, new ChildApiServers(new ApiLaunch(environment, CpuSet.FirstCores(cpus))), options, fanOut, load, root, report, runs, cancellationToken));
            if (runs[^1].StoppedIn is not null)
            {
                return;
            }
            report.WriteRunning(runs);
        }
    }

    /// <summary>"the compute sweep on 1 core(s)", "the fan-out on 1 core(s)": the parts of a core count that finished, for a stopped matrix's words.</summary>
    public static IEnumerable<string> Finished(CoreCountRun run) =>
        run.SkippedBecause is not null ? [] : new[] { run.Sweep.Count > 0 ? SweepPart : null, run.FanOut is { Partial: null } ? FanOutPart : null }.OfType<string>().Select(part => $"{part} on {run.Label}");

    private const string SweepPart = "the compute sweep";

    private const string FanOutPart = "the fan-out";

    private static CoreCountRun Skipped(CoreCountRun run, TextWriter console)
    {
        console.WriteLine($"== matrix: {run.Label} skipped: {run.SkippedBecause}");
        return run;
    }

    /// <summary>
    /// Measures at the core count and limit <paramref name="setting"/> names, and returns it with the figures filled in;
    /// stopped, with what it measured and where it stopped. The fan-out's report is written as each of its variants
    /// finishes, and <paramref name="report"/> with it (after the core counts <paramref name="before"/>).
    /// </summary>
    private static async Task<CoreCountRun> RunCoreCountAsync(
        CoreCountRun setting, ApiServers servers, MatrixOptions options, FanOutExperiment fanOutExperiment, LoadOptions load, RunRoot root,
        MatrixReport report, IReadOnlyList<CoreCountRun> before, CancellationToken cancellationToken)
    {
        IReadOnlyList<ComparisonRow> sweep = [];
        double? breakEven = null;
        BreakEvenBracket? bracket = null;
        int? processorCount = null;
        CoreCountRun SoFar(RunSummary? fanOut) => setting with { ApiProcessorCount = processorCount ?? fanOut?.ApiProcessorCount, Sweep = sweep, BreakEvenAmount = breakEven, Bracket = bracket, FanOut = fanOut };
        if (options.Experiments.Contains("sweep"))
        {
            try
            {
                (sweep, breakEven, bracket, processorCount) = await SweepAsync(setting, servers, options, root.Console, cancellationToken);
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                return SoFar(null) with { StoppedIn = SweepPart };
            }
        }
        if (sweep.Count > 0)
        {
            report.WriteRunning([.. before, SoFar(null)]);
        }
        RunSummary? fanOut = null;
        if (options.Experiments.Contains("fanout"))
        {
            var measured = await root.RunAsync(fanOutExperiment, load, servers, cancellationToken, setting.Cpus, setting.Container?.KindName,
                variantFinished: soFar => report.WriteRunning([.. before, SoFar(RunAnalysis.Of(soFar, RunnerCommandLine.Current()))]));
            fanOut = RunAnalysis.Of(measured, RunnerCommandLine.Current());
            if (measured.Partial is not null)
            {
                return SoFar(fanOut) with { StoppedIn = FanOutPart, StoppedAt = measured.StoppedAt };
            }
        }
        return SoFar(fanOut);
    }

    /// <summary>The compute sweep on a fresh API at the core count: its rows, break-even, bracket and the API's processor count.</summary>
    private static async Task<(IReadOnlyList<ComparisonRow> Rows, double? BreakEven, BreakEvenBracket? Bracket, int? ProcessorCount)> SweepAsync(
        CoreCountRun setting, ApiServers servers, MatrixOptions options, TextWriter console, CancellationToken cancellationToken)
    {
        console.WriteLine($"== matrix: compute sweep on {setting.Label}, 1 to {options.SweepTo:N0} cycles");
        await using var server = await servers.AcquireAsync(new Dictionary<string, string>(), cancellationToken);
        using var client = new SandboxClient(server.BaseAddress);
        try
        {
            var answer = await client.GetAsync<SweepReport>(
                string.Create(CultureInfo.InvariantCulture, $"/api/compute/sweep?from=1&to={options.SweepTo}&factor=10&repeat={options.SweepRepeat}&ciWidth={options.CiWidthPercent}&budgetSeconds={options.SweepBudgetSeconds}&format=json"),
                MeasurementPolicy.LongestSweep(TimeSpan.FromSeconds(options.SweepBudgetSeconds)) + SweepTimeoutMargin, cancellationToken);
            return (answer.Rows, answer.BreakEvenAmount, answer.Bracket, answer.ProcessorCount);
        }
        catch (Exception e) when (e is HttpRequestException or JsonException or TaskCanceledException && !cancellationToken.IsCancellationRequested)
        {
            throw new UsageException($"the compute sweep on {setting.Label} failed: {e.Message.ReplaceLineEndings(" ")}");
        }
    }

    /// <summary>Every flagged sweep figure, judged against the cores the API really had (its ProcessorCount when known).</summary>
    public static IReadOnlyList<FigureFlag> Flags(IReadOnlyList<CoreCountRun> runs) =>
        [.. runs.SelectMany(r => r.Sweep.SelectMany(row => Flags(row, r.ApiProcessorCount ?? r.Cpus)))];

    /// <summary>One sweep row's flags on <paramref name="cores"/> cores, by the rule the API uses (<see cref="FigureChecks.Comparison"/>), its durations as the sweep table prints them.</summary>
    public static IReadOnlyList<FigureFlag> Flags(ComparisonRow row, int cores) =>
        FigureChecks.Comparison($"{CountText.Of(cores, "core")}, {CountText.Of(row.Amount, "cycle")}", row.ToFigures(), cores, DurationText.Of);

    /// <summary>
    /// Seed 004's hypothesis 3: on one core Task.Run brings no gain. Judged at the sweep's largest amount, where the
    /// work dwarfs Task.Run's overhead and any gain could only come from running the two units in parallel; only when
    /// that row passed its checks (no figure impossible or inconclusive).
    /// </summary>
    /// <summary>How reports name it, defined where it appears: seed 004's third hypothesis.</summary>
    public const string Hypothesis3Name = "Hypothesis 3 of seed 004 (Task.Run brings no gain on one core)";

    public static string Hypothesis3(IReadOnlyList<CoreCountRun> runs)
    {
        var (status, why) = Hypothesis3Judged(runs);
        return $"{Hypothesis3Name} {status}: {why}.";
    }

    /// <summary>Hypothesis 3's status ("confirmed", "refuted", "not decided", "not tested") and what it rests on.</summary>
    private static (string Status, string Why) Hypothesis3Judged(IReadOnlyList<CoreCountRun> runs)
    {
        var one = runs.FirstOrDefault(r => r.Cpus == 1 && r.SkippedBecause is null && r.Sweep.Count > 0);
        if (one is null)
        {
            return ("not tested", "no compute sweep ran on 1 core");
        }
        var largest = one.Sweep.MaxBy(r => r.Amount)!;
        var efficiency = largest.Efficiency.Describe("0", " %");
        var failed = Flags(largest, one.ApiProcessorCount ?? one.Cpus).Where(f => f.Excludes).ToList();
        if (failed.Count > 0)
        {
            return ("not decided", string.Create(CultureInfo.InvariantCulture, $"on 1 core the row at {largest.Amount:N0} cycles did not pass its checks ({string.Join("; ", failed.Select(f => $"{f.Figure} {f.Reason}"))})"));
        }
        return largest.EfficiencyPercent <= NoGainEfficiencyPercent
            ? ("confirmed", string.Create(CultureInfo.InvariantCulture, $"on 1 core Task.Run's efficiency at {largest.Amount:N0} cycles was {efficiency}, not above {NoGainEfficiencyPercent:0} % (seed 004: about 100 % at best)"))
            : ("refuted", string.Create(CultureInfo.InvariantCulture, $"on 1 core Task.Run's efficiency at {largest.Amount:N0} cycles was {efficiency}, above {NoGainEfficiencyPercent:0} % (check that the API really was pinned: API ProcessorCount {one.ApiProcessorCount?.ToString(CultureInfo.InvariantCulture) ?? "n/a"})"));
    }

    /// <summary>
    /// The page's plain answer, at most four short sentences: what was compared on which core counts; Task.Run's
    /// efficiency at the sweep's largest amount with its CI per core count; what the fan-out found over every core count
    /// (<see cref="FanOutFound"/>); the verdicts. What it rests on (the seeds in words, the break-evens, each core count's
    /// fan-out in its own report's words) is said once below the first screen (<see cref="AnswerDetails"/>).
    /// </summary>
    /// <param name="judged">False for a stopped matrix, whose verdicts are not drawn (<see cref="NotJudged"/>).</param>
    public static string Answer(IReadOnlyList<CoreCountRun> measured, bool judged = true)
    {
        var swept = measured.Where(r => r.Sweep.Count > 0).ToList();
        var fanOuts = measured.Where(r => r.FanOut is not null).ToList();
        var fanOutSeed = fanOuts.Select(r => r.FanOut!.Seed).FirstOrDefault();
        var compared = new[]
        {
            swept.Count > 0 ? $"Task.Run against synchronous CPU work (seed {ComputeSeed})" : null,
            fanOutSeed is null ? null : $"ways to fan out blocking calls (seed {fanOutSeed})",
        }.OfType<string>().ToList();
        if (compared.Count == 0)
        {
            return "The matrix measured nothing.";
        }
        var sentences = new List<string> { $"{string.Join(" and ", compared)}, with the API on {CountText.Listed([.. measured.Select(r => r.Label)])}." };
        if (swept.Count > 0)
        {
            sentences.Add($"{SweepEfficiency(swept)} (100 % is no gain).");
        }
        if (fanOuts.Count > 0)
        {
            sentences.Add($"Fan-out: {FanOutFound(fanOuts)}.");
        }
        var verdicts = new[]
        {
            swept.Count > 0 ? $"{Hypothesis3Name} {(judged ? Hypothesis3Judged(measured).Status : "not judged")}" : null,
            fanOutSeed is null ? null : $"seed {fanOutSeed}'s effect {(judged ? OutcomesOn(fanOuts) : "not judged")}",
        }.OfType<string>();
        sentences.Add($"{Capitalized(string.Join("; ", verdicts))}.");
        return string.Join(" ", sentences);
    }

    /// <summary>A fan-out variant's strategy, without its core count: "threadpool@1cpu" is "threadpool".</summary>
    private static string StrategyOf(string variant) => variant.Split('@')[0];

    private static string Capitalized(string text) => text.Length == 0 ? text : char.ToUpperInvariant(text[0]) + text[1..];

    /// <summary>
    /// The fan-out over every core count, each strategy once: those that answered every request on every core count with
    /// the highest p99 among them; each other with the share of its requests that failed, from its lowest core count's to
    /// its highest ("async and dedicated answered every request up to 40 users (p99 at most 1031.7 ms); threadpool failed
    /// 67.3 % to 72.5 % of its requests; sync-over-async 76.7 % to 100 %").
    /// </summary>
    private static string FanOutFound(IReadOnlyList<CoreCountRun> fanOuts)
    {
        var variants = fanOuts.SelectMany(r => r.FanOut!.Variants).ToList();
        var byStrategy = variants.GroupBy(v => StrategyOf(v.Name)).ToList();
        var clean = byStrategy.Where(g => g.All(v => v.Requests > 0 && v.Failed == 0)).ToList();
        var parts = new List<string>();
        if (clean.Count > 0)
        {
            var slowest = clean.SelectMany(g => g).MaxBy(v => v.P99Ms)!;
            var upTo = ResponseCurve.LoadText(variants.Max(v => v.PeakLoad), variants[0].LoadUnit);
            parts.Add($"{CountText.Listed([.. clean.Select(g => g.Key)])} answered every request up to {upTo} (p99 at most {ReportWriter.Latency(slowest, slowest.P99Ms, "p99Ms")} ms)");
        }
        var failing = byStrategy.Except(clean).Select(g => (Strategy: g.Key, Shares: g.Where(v => v.Requests > 0).Select(v => v.Outcomes.FailedPercent).ToList())).ToList();
        parts.AddRange(failing.Select((f, i) => $"{f.Strategy} {(f.Shares.Count == 0 ? "sent no request" : $"{(i == 0 ? "failed " : "")}{SharesText(f.Shares)}{(i == 0 ? " of its requests" : "")}")}"));
        return string.Join("; ", parts);
    }

    /// <summary>"65.4 %", or "67.3 % to 72.5 %" from the lowest share to the highest.</summary>
    private static string SharesText(IReadOnlyList<double> percents) => percents.Min() == percents.Max()
        ? string.Create(CultureInfo.InvariantCulture, $"{percents[0]:0.#} %")
        : string.Create(CultureInfo.InvariantCulture, $"{percents.Min():0.#} % to {percents.Max():0.#} %");

    /// <summary>"reproduced on 1 core and 2 cores", or per outcome where they differ ("reproduced on 1 core, not reproduced on 2 cores").</summary>
    private static string OutcomesOn(IReadOnlyList<CoreCountRun> fanOuts) => string.Join(", ", fanOuts.GroupBy(r => r.FanOut!.Outcome)
        .Select(g => $"{ReportWriter.OutcomeWords(g.Key)} on {CountText.Listed([.. g.Select(r => r.Label)])}"));

    /// <summary>
    /// What the answer rests on, said once below the first screen: the seeds the matrix re-runs introduced in words and
    /// the core counts; the compute sweep per core count with its break-even (<see cref="SweepFound"/>); then, one
    /// sentence per core count, what its fan-out found in its own report's words (<see cref="PlainAnswer.Found"/>), the
    /// seed's effect in words once.
    /// </summary>
    public static string AnswerDetails(IReadOnlyList<CoreCountRun> measured)
    {
        var fanOutSeed = measured.Select(r => r.FanOut?.Seed).OfType<string>().FirstOrDefault();
        var seeds = new[]
        {
            measured.Any(r => r.Sweep.Count > 0) ? $"{SeedReports.Introduce(ComputeSeed)} (its compute sweep)" : null,
            fanOutSeed is null ? null : $"{SeedReports.Introduce(fanOutSeed) ?? $"seed {fanOutSeed}"} (its fan-out)",
        }.OfType<string>().ToList();
        var tested = seeds.Count == 0 ? "The matrix measured nothing." : $"The matrix re-runs {string.Join(" and ", seeds)} with the API on {CountText.Listed([.. measured.Select(r => r.Label)])}.";
        return string.Join(" ", new[] { tested, SweepFound(measured) }.OfType<string>()
            .Concat(measured.Where(r => r.FanOut is not null).Select((r, i) => $"The fan-out on {r.Label}: {PlainAnswer.Found(r.FanOut!, effectSaid: i > 0)}.")));
    }

    /// <summary>
    /// What won the compute sweep, by how much and how sure, from each core count's largest row and its break-even
    /// bracket, in two sentences: "The compute sweep: Task.Run's efficiency at 1,000,000,000 cycles was 100 % [99, 101]
    /// on 1 core and 195.9 % [191.2, 200.5] on 2 cores (100 % is no gain). Break-even: none in the sweep on 1 core,
    /// between 10,000 and 1,000,000 cycles on 2 cores." Null when no core count ran the sweep.
    /// </summary>
    private static string? SweepFound(IReadOnlyList<CoreCountRun> measured)
    {
        var swept = measured.Where(r => r.Sweep.Count > 0).ToList();
        if (swept.Count == 0)
        {
            return null;
        }
        var breakEven = string.Join(", ", swept.Select(r => $"{BreakEvenText(r)} on {r.Label}"));
        return $"The compute sweep: {SweepEfficiency(swept)} (100 % is no gain). Break-even: {breakEven}.";
    }

    /// <summary>"Task.Run's efficiency at 1,000,000,000 cycles was 100 % [99, 101] on 1 core and 195.9 % [191.2, 200.5] on 2 cores", each core count's largest row.</summary>
    private static string SweepEfficiency(IReadOnlyList<CoreCountRun> swept)
    {
        var largest = swept.Select(r => (Run: r, Row: Largest(r))).ToList();
        // One amount for every core count is said once; else each core count's with its figure.
        var oneAmount = largest.Select(l => l.Row.Amount).Distinct().Count() == 1;
        var efficiency = CountText.Listed([.. largest.Select(l => $"{EfficiencyText(l.Row)}{(oneAmount ? "" : $" at {CyclesText(l.Row.Amount)}")} on {l.Run.Label}")]);
        var at = oneAmount ? $" at {CyclesText(largest[0].Row.Amount)}" : "";
        return $"Task.Run's efficiency{at} was {efficiency}";
    }

    /// <summary>A core count's sweep row at its largest amount, the one its answer and hypothesis 3 read.</summary>
    private static ComparisonRow Largest(CoreCountRun run) => run.Sweep.MaxBy(row => row.Amount)!;

    /// <summary>"100 % [99, 101]": a row's efficiency with its 95 % CI, as the answer and the tiles print it.</summary>
    private static string EfficiencyText(ComparisonRow row) => string.Create(CultureInfo.InvariantCulture, $"{row.EfficiencyPercent:0.#} % {row.Efficiency.Interval("0.#")}");

    /// <summary>"1,000,000,000 cycles".</summary>
    private static string CyclesText(long amount) => string.Create(CultureInfo.InvariantCulture, $"{amount:N0} cycles");

    /// <summary>"between 10,000 and 1,000,000 cycles", or "none in the sweep" where no amount is above the crossing.</summary>
    private static string BreakEvenText(CoreCountRun run) => BracketOf(run) is { Above: not null } bracket ? bracket.Text : "none in the sweep";

    /// <summary>
    /// A tile per core count that ran the sweep, in its colour on the efficiency chart: Task.Run's efficiency at the
    /// largest amount with its 95 % CI and repeats (marked as the table marks a flagged one), that amount, the break-even
    /// and the API's processor count, each as the answer and the tables print it. Their labels: <see cref="SweepTileLegend"/>.
    /// </summary>
    private static IReadOnlyList<ReportTile> SweepTiles(IReadOnlyList<CoreCountRun> swept) =>
    [
        .. swept.Select((r, i) =>
        {
            var row = Largest(r);
            var mark = FigureChecks.MarkOf(Flags(row, r.ApiProcessorCount ?? r.Cpus), FigureChecks.EfficiencyFigure);
            return new ReportTile(r.Label, EfficiencyModel.ColorOf(i),
            [
                new(SweepTileLabels[0].Label, string.Create(CultureInfo.InvariantCulture, $"{EfficiencyText(row)} n={row.Efficiency.Count}{mark}")),
                new(SweepTileLabels[1].Label, CyclesText(row.Amount)),
                new(SweepTileLabels[2].Label, BreakEvenText(r)),
                new(SweepTileLabels[3].Label, r.ApiProcessorCount?.ToString(CultureInfo.InvariantCulture) ?? "n/a"),
            ]);
        }),
    ];

    /// <summary>The sweep tiles' labels in their order, each with what it means.</summary>
    private static readonly (string Label, string Meaning)[] SweepTileLabels =
    [
        ("Task.Run efficiency", "the sync time over the Task.Run time of the same two units of work, in %, with its 95 % CI and the pairs measured (n): above 100 % Task.Run paid off, N cores give at most N x 100 %"),
        ("at", "the sweep's largest amount of work, where Task.Run's overhead counts least"),
        ("break-even", "the amounts between which Task.Run starts to pay (the table's rule, below)"),
        ("API ProcessorCount", "the processor count the API reported on that core count"),
    ];

    /// <summary>The sweep tiles' legend: each label and what it means, once for every tile.</summary>
    private static string SweepTileLegend => "In the compute sweep's tiles, one per core count: " + string.Join("; ", SweepTileLabels.Select(l => $"{l.Label}: {l.Meaning}")) + ".";

    /// <summary>
    /// The matrix's first screen, the same blocks in report.html and matrix.md, as a run report's: the partial note, the
    /// plain answer, a tile per core count of the sweep and a tile per fan-out variant (the run reports' own,
    /// <see cref="ReportWriter.Tiles"/>), each set with its legend; then the verdicts and each core count's own report.
    /// </summary>
    private static HtmlPage Opening(IReadOnlyList<CoreCountRun> runs, string verdict, string? partial)
    {
        var measured = runs.Where(r => r.SkippedBecause is null).ToList();
        var swept = measured.Where(r => r.Sweep.Count > 0).ToList();
        var fanOuts = measured.Where(r => r.FanOut is not null).ToList();
        var together = FanOutsTogether(fanOuts);
        var page = new HtmlPage($"Core-count matrix{(partial is null ? "" : ", PARTIAL")}", together)
            .Paragraph(partial is null ? null : $"PARTIAL REPORT: {ReportWriter.PartialNote(partial)}", HtmlPage.PartialClass)
            .Paragraph(Answer(measured, judged: partial is null), HtmlPage.AnswerClass);
        if (swept.Count > 0)
        {
            page = page.Tiles(SweepTiles(swept), "core count").Paragraph(SweepTileLegend, "legend");
        }
        if (together is not null)
        {
            page = page.Tiles(ReportWriter.Tiles(together)).Paragraph(ReportWriter.TileLegend(together, "the fan-out's tiles, one per variant and core count"), "legend");
        }
        page = page.Paragraph(verdict, "verdict").List(FanOutVerdicts(fanOuts, partial));
        page = fanOuts.Count == 0 ? page : page.Links(OwnReportsLead, fanOuts.Select(run => $"{FanOutFolder(run)}/report.html"));
        return page.Heading(2, AnswerDetailsHeading).Paragraph(AnswerDetails(measured));
    }

    /// <summary>
    /// Every core count's fan-out as one run's, its variants "async@1cpu", "async@2cpu" with their observations: the
    /// tiles and their legend are the run reports' own, and the page's charts draw it as a run's summary; null without a fan-out.
    /// </summary>
    private static RunSummary? FanOutsTogether(IReadOnlyList<CoreCountRun> fanOuts) => fanOuts.Count == 0 ? null : fanOuts[0].FanOut! with
    {
        Variants = [.. fanOuts.SelectMany(r => r.FanOut!.Variants)],
        Observations = fanOuts.SelectMany(r => r.FanOut!.Observations).DistinctBy(o => o.Key).ToDictionary(),
    };

    /// <summary>The heading of what the answer rests on, the first section after the first screen.</summary>
    public const string AnswerDetailsHeading = "What the answer rests on";

    /// <summary>The seed whose compute sweep the matrix re-runs (<c>TaskRunExperiment</c>'s).</summary>
    private const string ComputeSeed = "004";
    private const string OwnReportsLead = "Each core count's own fan-out report: ";

    /// <summary>matrix.md: report.html's blocks as Markdown (<see cref="HtmlPage.ToMarkdown"/>), so the two say the same in the same order.</summary>
    public static string Markdown(IReadOnlyList<CoreCountRun> runs, string verdict, MatrixReport report, string? partial) => Page(runs, verdict, report, partial).ToMarkdown();

    /// <summary>The matrix's report.html, from the same blocks as matrix.md.</summary>
    public static string Html(IReadOnlyList<CoreCountRun> runs, string verdict, MatrixReport report, string? partial) => Page(runs, verdict, report, partial).ToString();

    /// <summary>The matrix's page: the first screen (<see cref="Opening"/>: the plain answer, the tiles, the verdicts and each core count's report), then the sweep and its flags, the fan-out, the setup and the charts.</summary>
    private static HtmlPage Page(IReadOnlyList<CoreCountRun> runs, string verdict, MatrixReport report, string? partial)
    {
        var measured = runs.Where(r => r.SkippedBecause is null).ToList();
        var fanOuts = measured.Where(r => r.FanOut is not null).ToList();
        var flags = Flags(measured);
        var page = Opening(runs, verdict, partial);
        if (measured.Any(r => r.Sweep.Count > 0))
        {
            page.Heading(2, "Compute sweep (seed 004's table) per core count").Table(SweepTable(measured)).List(SweepFacts(measured));
            if (EfficiencyModel.Of(runs) is { } efficiency)
            {
                page.Chart(EfficiencyModel.Kind, efficiency).Paragraph(EfficiencyModel.Footnote, "legend");
            }
        }
        // The flags qualify the sweep's rows: under its table, as in matrix.md, not as the first section a reader meets.
        if (flags.Count > 0)
        {
            page.Heading(2, "Flagged figures (impossible and inconclusive ones carry no verdict)").List(flags.Select(f => f.ToString()), "flags");
        }
        if (fanOuts.Count > 0)
        {
            page = fanOuts.Aggregate(page, (p, run) => ReportWriter.ResponseCurveSection(p, $"Fan-out response curve, {run.Label}",
                new SummaryChart($"Fan-out on {run.Label}", [.. run.FanOut!.Variants.Select(v => v.Name)]), run.FanOut));
            page.Heading(2, "Fan-out per core count").Table(FanOutTable(fanOuts, report.DelayMs)).Paragraph(StarvedNote(report.DelayMs, fanOuts));
        }
        page = page.Heading(2, "Machine and run").List(Setup(runs, report)).Paragraph("Command line:").Preformatted(report.CommandLine)
            .Links("Files of this report: ", ["matrix.md", "matrix.json", "curves.csv", "telemetry.csv",
                .. fanOuts.Select(run => $"{FanOutFolder(run)}/report.html")]);
        return ReportWriter.SummaryChartSections(page, [.. fanOuts.SelectMany(r => r.FanOut!.Variants)]);
    }

    private static IEnumerable<string> Setup(IReadOnlyList<CoreCountRun> runs, MatrixReport report) =>
    [
        ReportWriter.MachineLine(report.Machine, null),
        string.Create(CultureInfo.InvariantCulture, $"Core counts asked: {string.Join(", ", report.Options.Cpus)}; GC: {report.Options.GcMode ?? "runtime default"}; ") + (report.Setup is null
            ? "the API pinned with taskset to the first N cores and DOTNET_PROCESSOR_COUNT=N."
            : $"the API in a fresh container per variant, engine {report.Setup.Engine} {report.Setup.EngineVersion}, image {report.Setup.Image} ({report.Setup.ImageId}), limited by {string.Join(" and by ", (report.Options.Limits ?? []).Select(kind => kind == CpuLimitKind.Quota ? "quota (--cpus N)" : "pinning (--cpuset-cpus 0-(N-1))"))}; DOTNET_PROCESSOR_COUNT unset, the runtime derives it from the limit."),
        .. runs.Where(r => r.SkippedBecause is not null).Select(r => $"{r.Label}: skipped, {r.SkippedBecause}."),
    ];

    private static TextTable SweepTable(List<CoreCountRun> measured) => new(
        ["Cycles", .. measured.SelectMany(r => new[] { $"{r.Label}: Sync", $"{r.Label}: Async", $"{r.Label}: % Efficiency [95 % CI] n" })],
        [.. measured.SelectMany(r => r.Sweep).Select(r => r.Amount).Distinct().Order().Select(amount => (IReadOnlyList<string>)
        [
            amount.ToString("N0", CultureInfo.InvariantCulture),
            .. measured.SelectMany(r => r.Sweep.FirstOrDefault(s => s.Amount == amount) is { } s ? SweepCells(s, r.ApiProcessorCount ?? r.Cpus) : ["n/a", "n/a", "n/a"]),
        ])],
        new HashSet<int>(Enumerable.Range(0, 1 + 3 * measured.Count)));

    private static IEnumerable<string> SweepFacts(List<CoreCountRun> measured) =>
    [
        "API ProcessorCount: " + string.Join("; ", measured.Select(r =>
            string.Create(CultureInfo.InvariantCulture, $"{r.Label}: {r.ApiProcessorCount?.ToString(CultureInfo.InvariantCulture) ?? "n/a"}"))) + ".",
        $"Break-even {BreakEvens.BracketRule}: " + string.Join("; ", measured.Select(r =>
            $"{r.Label}: {BreakEven(r)}")) + ".",
    ];

    /// <summary>"between 1,000,000 and 10,000,000 cycles (10,000,000: efficiency 104 % [101, 107] n=8, min 99)".</summary>
    private static string BreakEven(CoreCountRun run)
    {
        var bracket = BracketOf(run);
        return bracket.Above is { } amount && run.Sweep.FirstOrDefault(s => s.Amount == amount) is { } row
            ? string.Create(CultureInfo.InvariantCulture, $"{bracket.Text} ({amount:N0}: efficiency {row.Efficiency.Describe("0", " %")})")
            : bracket.Text;
    }

    /// <summary>The bracket the API sent, else (an API before brackets) the one its rows give on the cores the API had.</summary>
    public static BreakEvenBracket BracketOf(CoreCountRun run) => run.Bracket ?? BreakEvens.Bracket(run.Sweep, "cycles", run.ApiProcessorCount ?? run.Cpus);

    /// <summary>What "starved from" means, then the latency columns' note of the fan-out reports the rows come from, so the table says what a "\u2265" in it means as each report does.</summary>
    private static string StarvedNote(int delayMs, IReadOnlyList<CoreCountRun> fanOuts) => string.Create(CultureInfo.InvariantCulture,
        $"\"Starved from\" is the load of the first interval whose requests (grouped by when they were sent) took {StarvedFactor:0} x the {delayMs} ms delay on average, timed-out ones counted at their timeout. {fanOuts[0].FanOut!.Words.LatencyNote}");

    private static TextTable FanOutTable(List<CoreCountRun> fanOuts, int delayMs) => new(
        ["cores", "API ProcessorCount", "strategy", "mean (ms)", ReportWriter.AtPeakLoadColumn, "p99 (ms)", "RPS", "failed", "timed out", "peak pool threads", "peak queue", "starved from"],
        [.. fanOuts.SelectMany(run => run.FanOut!.Variants.Select(v => (IReadOnlyList<string>)
        [
            $"{run.Cpus}{run.LimitSuffix}", run.ApiProcessorCount?.ToString(CultureInfo.InvariantCulture) ?? "n/a", v.Name,
            ReportWriter.Latency(v, v.MeanMs, "meanMs", "0"), ReportWriter.AtPeakLoad(v), ReportWriter.Latency(v, v.P99Ms, "p99Ms", "0"),
            v.RequestsPerSecond.ToString("0.##", CultureInfo.InvariantCulture), $"{CountText.Of(v.Failed)} of {CountText.Of(v.Requests)}", CountText.Of(v.Outcomes.TimedOut),
            ReportWriter.PoolCount(v.PeakThreads), ReportWriter.PoolCount(v.PeakQueue), StarvedFrom(v, StarvedFactor * delayMs),
        ]))],
        new HashSet<int> { 0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11 });

    /// <summary>Each core count's fan-out verdict; in a stopped matrix (<paramref name="partial"/>) none, only the figures' outcome line.</summary>
    private static IEnumerable<string> FanOutVerdicts(List<CoreCountRun> fanOuts, string? partial) =>
        fanOuts.Select(run => $"{run.Label}: {(partial is null ? run.FanOut!.Verdict : $"not judged: {NotJudged}.")} {ReportWriter.OutcomeLine(run.FanOut!)} (details in {FanOutFolder(run)}/report.html)");

    /// <summary>Why a stopped matrix states no verdict, even of the parts that finished: a matrix's verdicts are read together, across its core counts.</summary>
    public const string NotJudged = "the matrix was stopped before it finished, and its verdicts are not drawn from part of it";

    /// <summary>A sweep row's three cells, each followed by its flag's mark when it has one.</summary>
    private static string[] SweepCells(ComparisonRow row, int cores)
    {
        var flags = Flags(row, cores);
        return
        [
            $"{DurationText.Of(row.SyncSeconds)}{FigureChecks.MarkOf(flags, FigureChecks.SyncFigure)}",
            $"{DurationText.Of(row.TaskRunSeconds)}{FigureChecks.MarkOf(flags, FigureChecks.TaskRunFigure)}",
            string.Create(CultureInfo.InvariantCulture, $"{row.EfficiencyPercent:0.#} {row.Efficiency.Interval("0.#")} n={row.Efficiency.Count}{FigureChecks.MarkOf(flags, FigureChecks.EfficiencyFigure)}{FigureChecks.MarkOf(flags, FigureChecks.MachineFigure)}"),
        ];
    }

    /// <summary>
    /// The load ("8 users") of the first interval whose requests, grouped by when they were sent, took
    /// <paramref name="meanMs"/> on average (timed-out ones counted at their timeout, a lower bound), or "never".
    /// </summary>
    public static string StarvedFrom(SummaryVariant result, double meanMs) =>
        result.Intervals.FirstOrDefault(i => i.SentAtLeastMeanMs >= meanMs) is { } interval
            ? ResponseCurve.LoadText(interval.Load, result.LoadUnit)
            : "never";
}
