using System.CommandLine;
using System.CommandLine.Help;
using System.Globalization;
using System.Net;
using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Experiments.FanOut;
using ConcurrencySandbox.LoadTests.Experiments.Streaming;
using ConcurrencySandbox.LoadTests.Matrix;
using ConcurrencySandbox.LoadTests.Progress;
using ConcurrencySandbox.LoadTests.Running;
using ConcurrencySandbox.LoadTests.Runs;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>The runner's command line: parses and validates into a <see cref="RunRequest"/>; exit code 2 for any usage error.</summary>
internal static class CommandLine
{
    public const int ExitOk = 0;
    public const int ExitThresholdFailed = 1;
    public const int ExitUsage = 2;
    public const int ExitCancelled = 130;

    private static readonly Option<string> Profile = new("--profile")
    {
        Description = "Load shape: quick (4 users +4 every 6 s, 1 min per variant), seed003 (4 users +4 every 45 s, 8 min), open (arrival rate ramping to --rate), smoke (3 s, for tests).",
        DefaultValueFactory = _ => Profiles.Quick,
    };

    private static readonly Option<FileInfo?> Config = new("--config") { Description = "A load-shape JSON file (see docs/run-an-experiment.md); replaces --profile." };
    private static readonly Option<string?> Target = new("--target") { Description = "Use an API that is already running at this URL instead of starting one per variant." };
    private static readonly Option<string?> Out = new("--out") { Description = "Report folder (default: reports/<yyyyMMdd-HHmmss>-<experiment>/)." };
    private static readonly Option<double> Rate = new("--rate") { Description = "open profile: peak arrival rate (requests per second).", DefaultValueFactory = _ => 20 };
    private static readonly Option<string[]> Threshold = new("--threshold") { Description = "Extra pass/fail limit, repeatable: variant:metric<value (variant * = all; metrics mean, min, p50, p75, p95, p99, max in ms, rps, failed, failedPercent)." };
    private static readonly Option<double> RequestTimeoutSeconds = new("--request-timeout-s") { Description = "Per-request timeout; a timed-out request counts as failed.", DefaultValueFactory = _ => 60 };
    private static readonly Option<int> MaxInFlight = new("--max-in-flight") { Description = "open profile: bound on outstanding requests.", DefaultValueFactory = _ => 5000 };
    private static readonly Option<string> Cpus = new("--cpus") { Description = "matrix: comma-separated core counts; the API is pinned to the first N cores, or limited to N CPUs in a container with --engine.", DefaultValueFactory = _ => "1,2" };
    private static readonly Option<string> EngineName = new("--engine") { Description = "matrix: local (the API pinned with taskset), docker or podman (a container per core count and limit).", DefaultValueFactory = _ => "local" };
    private static readonly Option<string> Limit = new("--limit") { Description = "matrix with --engine: how a container gets N CPUs: quota (--cpus N), cpuset (--cpuset-cpus 0-(N-1)) or both.", DefaultValueFactory = _ => "both" };
    private static readonly Option<string> Image = new("--image") { Description = "matrix with --engine: the API image to run.", DefaultValueFactory = _ => MatrixOptions.DefaultImage };
    private static readonly Option<string?> Gc = new("--gc") { Description = "matrix: GC mode of the API, server or workstation (default: the runtime's)." };
    private static readonly Option<string> MatrixRuns = new("--matrix-experiments") { Description = "matrix: what to run at each core count: sweep, fanout.", DefaultValueFactory = _ => string.Join(',', MatrixOptions.KnownExperiments) };
    private static readonly Option<long> SweepTo = new("--sweep-to") { Description = "matrix: the compute sweep's largest cycle count (powers of ten from 1).", DefaultValueFactory = _ => 1_000_000_000 };
    private static readonly Option<bool> VerifyFix = new("--verify-fix") { Description = "Re-run the most starved variant with the pool minimum the observer's diagnosis sized (ThreadPool__MinWorkerThreads) and show before and after." };
    private static readonly Option<bool> NoObserver = new("--no-observer") { Description = "Do not attach the runtime observer (diagnostics channel) to the API children; the pool series then comes over HTTP from the API." };

    /// <summary><c>run --url</c>'s --no-observer: the service loaded, its process not observed (load and latency only).</summary>
    internal static readonly Option<bool> NoUrlObserver = new("--no-observer") { Description = "Do not attach the runtime observer to the service's process: load and latency only, no pool series, no diagnosis (what the observer costs the service is measured against this: scripts/observer-cost.sh)." };
    private static readonly Option<bool> Verbose = new("--verbose") { Description = "On a terminal, print every reporting interval's line too (above the status line); without a terminal they are always printed." };
    private static readonly Option<string?> Live = new("--live")
    {
        Description = $"Serve a live page of the run on 127.0.0.1 (port {LiveServer.DefaultPort}, or PORT; 0 = any free port; a port in use moves to the next free one); its address is printed first.",
        Arity = ArgumentArity.ZeroOrOne,
        HelpName = "PORT",
    };
    private static readonly Option<int> SweepRepeat = new("--sweep-repeat") { Description = "matrix: the fewest sync/Task.Run pairs per sweep row (more follow until the CIs are narrow or the budget is spent).", DefaultValueFactory = _ => MedianInterval.MinimumCount };
    private static readonly Option<int?> AgentCount = new("--agents") { Description = "Spread each variant's HTTP load over N load agents (processes started here, or with --agent-listen agents that connect from elsewhere); their histograms are merged exactly into one report with a row per agent." };
    private static readonly Option<string?> AgentListen = new("--agent-listen") { Description = "With --agents: listen on address:port for agents started elsewhere (an Indexed Job, a compose scale-out) instead of starting them; loopback outside a container network." };
    private static readonly Option<string?> AgentCpus = new("--agent-cpus") { Description = "With --agents: pin the local agents round-robin to these cpus (e.g. 1 or 2-3), apart from the API." };
    private static readonly Option<double> AgentDeadline = new("--agent-deadline-s") { Description = "With --agents: seconds to wait for the agents to register and to reach each start barrier.", DefaultValueFactory = _ => 60 };
    private static readonly Option<int> Runs = new("--runs")
    {
        Description = $"Run the whole command this many times (1 to {RepeatedRuns.MaxRuns}), each into <out>/run-N, and write <out>/{RepeatedRuns.FileName}: whether the verdicts agree and each headline figure's spread across runs.",
        DefaultValueFactory = _ => 1,
    };
    private static readonly Option<int?> RoundsOption = new("--rounds")
    {
        Description = $"Measure the variants in this many interleaved rounds ({Running.Rounds.Min} to {Running.Rounds.Max}; order A B, B A, ...), each a ramp shortened to keep the run within {Running.Rounds.LengthFactor} x one ramp per variant; default: the experiment's own ({MedianInterval.MinimumCount}, the fewest with a 95 % CI, for those with a verdict figure; 1 for smoke, and 1 with --config or --target, which keep the shape or server you chose whole).",
    };
    private static readonly Option<double?> RoundsBudget = new("--rounds-budget-s")
    {
        Description = $"Seconds the rounds may take ({MinRoundsBudgetSeconds} to {MaxRoundsBudgetSeconds}); a round that would overrun it is not started and the verdict is judged (or found inconclusive) on the rounds done. Default: twice the planned load plus {Running.ExperimentRunner.StartAllowance.TotalSeconds:0} s per fresh API.",
    };
    private const double MinRoundsBudgetSeconds = 1;
    private const double MaxRoundsBudgetSeconds = 36_000;
    private static readonly Option<double> CiWidth = new("--ci-width")
    {
        Description = $"matrix: target half-width of each sweep figure's 95 % CI, in percent ({MeasurementPolicy.MinTargetHalfWidthPercent} to {MeasurementPolicy.MaxTargetHalfWidthPercent}); a figure left wider is inconclusive.",
        DefaultValueFactory = _ => MeasurementPolicy.DefaultTargetHalfWidthPercent,
    };
    private static readonly Option<double> SweepBudget = new("--sweep-budget-s")
    {
        Description = $"matrix: seconds one compute sweep may spend narrowing its CIs ({MeasurementPolicy.MinBudgetSeconds} to {MeasurementPolicy.MaxBudgetSeconds}), shared by its rows.",
        DefaultValueFactory = _ => MatrixOptions.DefaultSweepBudgetSeconds,
    };

    /// <summary>What every command that runs experiments reads: how hard, against what, where the report goes, how the run is watched.</summary>
    private static readonly Option[] RunOptions =
        [Profile, Config, Target, Out, Rate, Threshold, RequestTimeoutSeconds, MaxInFlight, Runs, RoundsOption, RoundsBudget, VerifyFix, NoObserver, AgentCount, AgentListen, AgentCpus, AgentDeadline, Verbose, Live];

    /// <summary>What only <c>matrix</c> reads: the core counts, how the API gets them, and the compute sweep.</summary>
    private static readonly Option[] MatrixOnly = [Cpus, EngineName, Limit, Image, Gc, MatrixRuns, SweepTo, SweepRepeat, CiWidth, SweepBudget];

    /// <summary>
    /// Parses and runs; <paramref name="run"/> gets the validated request. Never throws for a user mistake. One command
    /// per experiment (plus <c>all</c> and <c>matrix</c>), each with only the options it reads, beside <c>run</c>,
    /// <c>compare</c>, <c>agent</c> and <c>limits</c>.
    /// </summary>
    /// <param name="terminalWidth">The terminal's width when the output is one (the status line is drawn), null when it is redirected.</param>
    public static async Task<int> InvokeAsync(string[] args, TextWriter output, TextWriter error, Func<RunRequest, CancellationToken, Task<int>> run, Func<int>? terminalWidth = null)
    {
        // Not a RootCommand: that names itself after the .dll (ConcurrencySandbox.LoadTests), which is not what a user types.
        var root = new Command(ToolCommand, "ConcurrencySandbox load runner: ramps load on the sandbox API's experiments, variant after variant, and writes a report folder. Each command has its own options: <command> --help.")
        {
            new HelpOption(), new VersionOption(),
        };
        foreach (var definition in ExperimentList.All)
        {
            root.Subcommands.Add(ExperimentCommand(definition.Name, definition.Description, [definition], [], run, error, terminalWidth));
        }
        root.Subcommands.Add(ExperimentCommand("all", "Every experiment above, one after another, with the options of each.", ExperimentList.All, [], run, error, terminalWidth));
        root.Subcommands.Add(ExperimentCommand("matrix", "The fan-out experiment and a compute sweep at each core count (the API pinned, or in a container limited to N CPUs), side by side.",
            [FanOutExperiment.Definition], MatrixOnly, run, error, terminalWidth));
        root.Subcommands.Add(CompareCommand.Create(output, error));
        root.Subcommands.Add(ReportCommand.Create(output, error));
        root.Subcommands.Add(UrlCommand.Create(output, error, terminalWidth));
        root.Subcommands.Add(WatchCommand.Create(output, error));
        root.Subcommands.Add(StreamingClients(output, error));
        root.Subcommands.Add(AgentCommand.Create(output, error));
        root.Subcommands.Add(LimitsCommand.Create(output, error));
        Threshold.AllowMultipleArgumentsPerToken = false;

        var result = root.Parse(args);
        if (result.Errors.Count > 0 && result.Action is not HelpAction)
        {
            await error.WriteLineAsync($"error: {ParseError(root, result, args)}");
            return ExitUsage;
        }
        if (result.Action is HelpAction)
        {
            // A command's name cannot hold the spaces of "dotnet run --project ... --": the root is named dotnet-sandbox and
            // the usage lines say what this user types.
            using var help = new StringWriter();
            var code = await result.InvokeAsync(new InvocationConfiguration { Output = help, Error = error });
            await output.WriteAsync(help.ToString().Replace($"\n  {ToolCommand} ", $"\n  {CommandName(Environment.ProcessPath, typeof(CommandLine).Assembly.Location)} ", StringComparison.Ordinal));
            return code;
        }
        return await result.InvokeAsync(new InvocationConfiguration { Output = output, Error = error, ProcessTerminationTimeout = StopGrace });
    }

    /// <summary>A command that runs <paramref name="definitions"/>: the run options, <paramref name="extra"/> and each experiment's own.</summary>
    private static Command ExperimentCommand(
        string name, string description, IReadOnlyList<ExperimentDefinition> definitions, IReadOnlyList<Option> extra, Func<RunRequest, CancellationToken, Task<int>> run, TextWriter error, Func<int>? terminalWidth)
    {
        var command = new Command(name, description);
        foreach (var option in RunOptions.Concat(extra).Concat(definitions.SelectMany(d => d.Options)).Distinct())
        {
            command.Options.Add(option);
        }
        command.SetAction(async (parse, cancellationToken) =>
        {
            try
            {
                return await run(Validate(parse, name, definitions, terminalWidth), cancellationToken);
            }
            catch (Exception e) when (e is UsageException or FormatException)
            {
                await error.WriteLineAsync($"error: {e.Message}");
                return ExitUsage;
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                await error.WriteLineAsync("cancelled: the API children were stopped");
                return ExitCancelled;
            }
        });
        return command;
    }

    /// <summary>
    /// The first parse error in one line, in the user's terms: a command that does not exist (with those that do), an
    /// option another command takes (naming it), an option no command takes (with the command's own), options put
    /// before the command as the runner once took them (with the spelling it takes now).
    /// </summary>
    internal static string ParseError(Command root, ParseResult result, IReadOnlyList<string> args)
    {
        var command = result.CommandResult.Command;
        var commands = root.Subcommands.Where(c => !c.Hidden).Select(c => c.Name).ToList();
        var unmatched = result.UnmatchedTokens.FirstOrDefault();
        var named = args.ToList().FindIndex(commands.Contains);
        if (named > 0 && (command == root || command.Options.Any(o => o.Name == unmatched)))
        {
            // The runner once took its options before the experiment's name.
            return $"options go after the command: {string.Join(' ', args.Skip(named).Take(1).Concat(args.Take(named)).Concat(args.Skip(named + 1)))}";
        }
        if (command == root)
        {
            var tokens = result.Tokens.Select(t => t.Value).ToList();
            return tokens.Count == 0 || tokens[0].StartsWith('-')
                ? $"name a command before its options: {string.Join(", ", commands)} (see --help)"
                : $"unknown command '{tokens[0]}' (expected one of: {string.Join(", ", commands)}; see --help)";
        }
        if (unmatched is not null && unmatched.StartsWith('-'))
        {
            var owners = root.Subcommands.Where(c => c.Options.Any(o => o.Name == unmatched || o.Aliases.Contains(unmatched))).Select(c => c.Name).ToList();
            return owners.Count > 0
                ? $"{unmatched} is not an option of {command.Name}; {string.Join(", ", owners.Take(3))}{(owners.Count > 3 ? ", ..." : "")} take{(owners.Count == 1 ? "s" : "")} it (see {command.Name} --help)"
                : $"{command.Name} has no option {unmatched}; its options: {string.Join(", ", command.Options.Where(o => !o.Hidden).Select(o => o.Name))}";
        }
        return $"{result.Errors[0].Message} (see {command.Name} --help)";
    }

    /// <summary>The installed tool's command (<c>ToolCommandName</c> in the project file); <c>dotnet sandbox</c> runs it too.</summary>
    public const string ToolCommand = "dotnet-sandbox";

    /// <summary>
    /// What the usage lines call the runner, as the user started it: <c>dotnet-sandbox</c> as the installed tool (its
    /// shim is the process), <c>dotnet ConcurrencySandbox.LoadTests.dll</c> through the dotnet host (an image's
    /// entry point), else the clone's build, as the README starts it.
    /// </summary>
    internal static string CommandName(string? processPath, string entryAssembly) => Path.GetFileNameWithoutExtension(processPath) switch
    {
        ToolCommand => ToolCommand,
        "dotnet" => $"dotnet {Path.GetFileName(entryAssembly)}",
        _ => $"dotnet run --project loadtests/{Path.GetFileNameWithoutExtension(entryAssembly)} --",
    };

    /// <summary>
    /// How long Ctrl+C or SIGTERM waits for the run to stop its load and API children and write the partial report
    /// (a connected live page fetches it within this too) before the process exits with 130 regardless.
    /// </summary>
    public static readonly TimeSpan StopGrace = TimeSpan.FromSeconds(45);

    private static RunRequest Validate(ParseResult p, string experiment, IReadOnlyList<ExperimentDefinition> definitions, Func<int>? terminalWidth)
    {
        var values = new OptionValues(p);
        var load = LoadOf(p);
        var experiments = definitions.Select(definition => definition.Create(values)).ToList();
        var outFolder = p.GetValue(Out) ?? Path.Combine("reports", $"{DateTime.Now:yyyyMMdd-HHmmss}-{experiment}");
        var observe = new ObserverOptions(Attach: !p.GetValue(NoObserver), VerifyFix: p.GetValue(VerifyFix));
        if (observe is { VerifyFix: true, Attach: false })
        {
            throw new UsageException("--verify-fix sizes the fix from the observer's diagnosis, so it cannot go with --no-observer");
        }
        // The socket-layer switch is read where each load client is made: a bad value is refused before anything starts.
        HttpLoadClient.OwnLoop(Environment.GetEnvironmentVariable(HttpLoadClient.SocketLoopVariable));
        return new RunRequest(experiment, load, ParseTarget(p.GetValue(Target)), experiments, experiment == "matrix" ? ParseMatrix(values) : null,
            SettingsOf(p, load, outFolder, observe, terminalWidth), values.InRange(Runs, 1, RepeatedRuns.MaxRuns))
        {
            Rounds = values.InRangeIfGiven(RoundsOption, Running.Rounds.Min, Running.Rounds.Max) ?? (UserShapedLoad(p) ? 1 : null),
            RoundsBudget = values.InRangeIfGiven(RoundsBudget, MinRoundsBudgetSeconds, MaxRoundsBudgetSeconds) is { } seconds ? TimeSpan.FromSeconds(seconds) : null,
        };
    }

    /// <summary><c>streaming-clients</c>: the streaming experiment's client process, which the runner starts as a child of itself.</summary>
    private static Command StreamingClients(TextWriter output, TextWriter error)
    {
        // Hidden from the help: the runner starts it itself.
        var command = new Command(StreamingClientsCommand.Name, StreamingClientsCommand.Description) { Hidden = true };
        foreach (var option in StreamingClientsCommand.Options)
        {
            command.Options.Add(option);
        }
        command.SetAction(async (parse, cancellationToken) =>
        {
            try
            {
                await StreamingClientsCommand.RunAsync(StreamingClientsCommand.PlanOf(new OptionValues(parse)), output, cancellationToken);
                return ExitOk;
            }
            catch (UsageException e)
            {
                await error.WriteLineAsync($"error: {e.Message}");
                return ExitUsage;
            }
        });
        return command;
    }

    /// <summary>
    /// Whether the user chose the load or the server (<c>--config</c>, <c>--target</c>): the run then keeps that one
    /// shape whole, one round, unless <c>--rounds</c> asks for more; rounds would cut the shape into shortened ramps.
    /// </summary>
    private static bool UserShapedLoad(ParseResult p) => p.GetValue(Config) is not null || p.GetValue(Target) is not null;

    /// <summary>The load options every command that sends load takes (the experiments and <c>run --url</c>).</summary>
    internal static IReadOnlyList<Option> LoadSymbols => [Profile, Config, Rate, RequestTimeoutSeconds, MaxInFlight];

    /// <summary>How a run is judged and watched, for every command that sends load: its thresholds, the status line's lines, the live page, the load agents.</summary>
    internal static IReadOnlyList<Option> SessionSymbols => [Threshold, Verbose, Live, AgentCount, AgentListen, AgentCpus, AgentDeadline];

    /// <summary>The --threshold limits, parsed.</summary>
    private static IReadOnlyList<Engine.Threshold> ThresholdsOf(ParseResult p) => [.. (p.GetValue(Threshold) ?? []).Select(Engine.Threshold.Parse)];

    /// <summary>
    /// What every command that sends load shares, from <see cref="SessionSymbols"/>: how its progress is shown (the status
    /// line on a terminal, --verbose, --live), its --threshold limits, its --agents plan, with the observer's options and the report folder.
    /// </summary>
    internal static RunSettings SettingsOf(ParseResult p, LoadOptions load, string outputFolder, ObserverOptions observe, Func<int>? terminalWidth) =>
        new(new ProgressOptions(terminalWidth, p.GetValue(Verbose), LivePortOf(p)), ThresholdsOf(p), observe, AgentsOf(p, load), outputFolder);

    /// <summary>--rate when it was given (not its default): run --url --find-capacity then ramps an open arrival rate from it.</summary>
    internal static double? GivenRate(ParseResult p) => p.GetResult(Rate) is { Implicit: false } ? new OptionValues(p).Positive(Rate) : null;

    /// <summary>The load shape and limits from <see cref="LoadSymbols"/>: a --config file, or a named --profile.</summary>
    internal static LoadOptions LoadOf(ParseResult p)
    {
        var values = new OptionValues(p);
        var profile = p.GetValue(Profile)!;
        if (!Profiles.Names.Contains(profile))
        {
            throw new UsageException($"unknown profile '{profile}' (expected one of: {string.Join(", ", Profiles.Names)})");
        }
        var rate = values.Positive(Rate);
        var config = p.GetValue(Config);
        var shape = config is null ? Profiles.Create(profile, rate) : LoadShapeConfig.Load(config.FullName);
        return new LoadOptions(shape, config is null ? profile : $"config {config.Name}", TimeSpan.FromSeconds(values.Positive(RequestTimeoutSeconds)), values.Positive(MaxInFlight));
    }

    /// <summary>The agent plan of <c>--agents</c>, or null; the agent options without it, and a share of zero users, are refused.</summary>
    private static AgentPlan? AgentsOf(ParseResult p, LoadOptions load)
    {
        if (p.GetValue(AgentCount) is not { } count)
        {
            return p.GetResult(AgentListen) is null && p.GetResult(AgentCpus) is null
                ? null
                : throw new UsageException("--agent-listen and --agent-cpus go with --agents N");
        }
        var plan = AgentPlan.Of(count, p.GetValue(AgentListen), p.GetValue(AgentCpus), p.GetValue(AgentDeadline), AgentAddress.InContainerNetwork);
        return LoadSegment.ZeroShare(load.Shape, count) is { } zero ? throw new UsageException(zero) : plan;
    }

    private static MatrixOptions ParseMatrix(OptionValues values)
    {
        var cpus = CoreCounts(values, Cpus);
        var gc = values.Get(Gc);
        if (gc is not (null or "server" or "workstation"))
        {
            throw new UsageException($"--gc must be server or workstation, got '{gc}'");
        }
        var runs = values.List(MatrixRuns);
        foreach (var unknown in runs.Except(MatrixOptions.KnownExperiments))
        {
            throw new UsageException($"unknown matrix experiment '{unknown}' (expected: {string.Join(", ", MatrixOptions.KnownExperiments)})");
        }
        var engine = values.Get(EngineName)!;
        if (!MatrixOptions.KnownEngines.Contains(engine))
        {
            throw new UsageException($"--engine must be one of {string.Join(", ", MatrixOptions.KnownEngines)}, got '{engine}'");
        }
        IReadOnlyList<Hosting.CpuLimitKind> limits = values.Get(Limit) switch
        {
            "quota" => [Hosting.CpuLimitKind.Quota],
            "cpuset" => [Hosting.CpuLimitKind.Pinning],
            "both" => [Hosting.CpuLimitKind.Quota, Hosting.CpuLimitKind.Pinning],
            var other => throw new UsageException($"--limit must be quota, cpuset or both, got '{other}'"),
        };
        return new MatrixOptions(cpus, gc, runs, values.Positive(SweepTo), values.Positive(SweepRepeat),
            engine == "local" ? null : engine, values.Get(Image)!, limits,
            values.InRange(CiWidth, MeasurementPolicy.MinTargetHalfWidthPercent, MeasurementPolicy.MaxTargetHalfWidthPercent),
            values.InRange(SweepBudget, MeasurementPolicy.MinBudgetSeconds, MeasurementPolicy.MaxBudgetSeconds));
    }

    /// <summary>A comma-separated list of positive core counts such as "1,2", without repeats; a <see cref="UsageException"/> otherwise.</summary>
    internal static IReadOnlyList<int> CoreCounts(OptionValues values, Option<string> option)
    {
        var counts = values.List(option).Select(text =>
            int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var n) && n > 0
                ? n
                : throw new UsageException($"{option.Name} takes positive core counts like 1,2; got '{text}'")).Distinct().ToList();
        return counts.Count > 0 ? counts : throw new UsageException($"{option.Name} names no core count");
    }

    /// <summary><c>--live</c>: null when absent, the default port when given alone, else its port (0 to 65535).</summary>
    private static int? LivePortOf(ParseResult p)
    {
        if (p.GetResult(Live) is not { Implicit: false } given)
        {
            return null;
        }
        if (given.Tokens.Count == 0)
        {
            return LiveServer.DefaultPort;
        }
        var text = given.Tokens[0].Value;
        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var port) && port <= IPEndPoint.MaxPort
            ? port
            : throw new UsageException($"--live takes a port from 0 to {IPEndPoint.MaxPort}, got '{text}'");
    }

    private static Uri? ParseTarget(string? text)
    {
        if (text is null)
        {
            return null;
        }
        if (!Uri.TryCreate(text, UriKind.Absolute, out var uri) || uri.Scheme is not ("http" or "https"))
        {
            throw new UsageException($"--target must be an absolute http(s) URL, got '{text}'");
        }
        return uri;
    }

}
