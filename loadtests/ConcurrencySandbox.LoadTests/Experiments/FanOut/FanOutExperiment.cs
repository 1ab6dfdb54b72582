using System.CommandLine;
using System.Globalization;
using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments.FanOut;

/// <summary>The fan-out variant parameters a user can set on the command line.</summary>
internal sealed record FanOutSettings(int DelayMs, int Calls, IReadOnlyList<string> Strategies, int DedicatedThreads)
{
    public static FanOutSettings Defaults { get; } = new(
        DelayMs: 1000,
        Calls: 10,
        Strategies: [.. FanOutStrategies.Names],
        // Enough for every call at the built-in profiles' peak (44 users x 10 calls): seed 003's pool was sized to the load.
        DedicatedThreads: 500);
}

/// <summary>
/// Seed 003: one request fans out to <c>calls</c> slow third-party calls, one variant per strategy
/// (<c>/api/fanout?calls=&amp;delayMs=&amp;strategy=</c>); blocking on the shared pool starves it, a dedicated pool or
/// async calls do not.
/// </summary>
internal sealed class FanOutExperiment(FanOutSettings settings) : Experiment
{
    private static readonly Option<int> DelayMsOption = new("--delay-ms") { Description = "fanout: the third party's delay per call.", DefaultValueFactory = _ => FanOutSettings.Defaults.DelayMs };
    private static readonly Option<int> CallsOption = new("--calls") { Description = "fanout: third-party calls per request.", DefaultValueFactory = _ => FanOutSettings.Defaults.Calls };
    private static readonly Option<string> StrategiesOption = new("--strategies") { Description = "fanout: comma-separated strategies.", DefaultValueFactory = _ => string.Join(',', FanOutSettings.Defaults.Strategies) };
    private static readonly Option<int> DedicatedThreadsOption = new("--dedicated-threads") { Description = "fanout: threads of the API's dedicated pool (FanOut__DedicatedThreads) for the dedicated strategy.", DefaultValueFactory = _ => FanOutSettings.Defaults.DedicatedThreads };

    public static readonly ExperimentDefinition Definition = new("fanout", [DelayMsOption, CallsOption, StrategiesOption, DedicatedThreadsOption], Create)
    {
        Description = "Seed 003 (More fun with Thread Pools, 2006): each request fans out to slow third-party calls on the shared ThreadPool, a dedicated pool, or async I/O, under a ramp of users.",
        Colors = [new("threadpool", "#d62728"), new("sync-over-async", "#ff7f0e"), new("dedicated", "#9467bd"), new("async", "#2ca02c")],
    };

    /// <summary>The strategies that hold no shared pool thread while they wait, so load must not break them.</summary>
    private static readonly string[] HealthyStrategies = [FanOutStrategy.Dedicated.Name(), FanOutStrategy.Async.Name()];

    public FanOutSettings Settings => settings;

    public override string Name => Definition.Name;

    public override string Seed => "003";

    public override IReadOnlyList<Variant> Variants => [.. settings.Strategies.Select(VariantOf)];

    // Blocking on the shared pool is expected to starve and time out: that is the finding, not a failed run.
    public override IReadOnlyList<string> ExpectedToFail => [.. settings.Strategies.Except(HealthyStrategies)];

    protected override IReadOnlyList<Threshold> OwnThresholds =>
        settings.Strategies.Contains("async") ? [new Threshold("async", "p99", "<", 1.2 * settings.DelayMs)] : [];

    public override Finding Assess(IReadOnlyList<VariantResult> results) => Starvation.Assess(
        results,
        new("threadpool", settings.DelayMs),
        new(settings.Strategies.Contains("async") ? "async" : "dedicated", settings.DelayMs),
        customPool: new("dedicated", settings.DelayMs));

    private Variant VariantOf(string strategy)
    {
        var driver = new HttpRamp($"/api/fanout?calls={settings.Calls}&delayMs={settings.DelayMs}&strategy={strategy}", reportsQueueWait: true);
        var environment = strategy == "dedicated"
            ? new Dictionary<string, string> { ["FanOut__DedicatedThreads"] = settings.DedicatedThreads.ToString(CultureInfo.InvariantCulture) }
            : new Dictionary<string, string>();
        return new Variant(strategy, driver, environment);
    }

    private static FanOutExperiment Create(OptionValues values)
    {
        var strategies = values.List(StrategiesOption);
        if (strategies.Count == 0)
        {
            throw new UsageException("--strategies names no strategy");
        }
        foreach (var unknown in strategies.Except(FanOutStrategies.Names))
        {
            throw new UsageException($"unknown strategy '{unknown}' (expected: {string.Join(", ", FanOutStrategies.Names)})");
        }
        return new FanOutExperiment(new FanOutSettings(
            values.Positive(DelayMsOption), values.Positive(CallsOption), strategies, values.Positive(DedicatedThreadsOption)));
    }
}
