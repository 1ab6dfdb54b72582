using System.CommandLine;
using System.Globalization;
using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments.ColdStart;

/// <summary>The cold-start parameters a user can set on the command line.</summary>
internal sealed record ColdStartSettings(int Burst, int MinWorkerThreads, string Request)
{
    public static ColdStartSettings Defaults { get; } = new(Burst: 64, MinWorkerThreads: 200, Request: "/api/sleep/sync?milliseconds=500");
}

/// <summary>
/// Seed 000: a burst of blocking requests at a fresh API waits for the pool to grow, unless its minimum worker threads
/// are raised (<c>ThreadPool__MinWorkerThreads</c>). Each variant is one burst at a process started for it.
/// </summary>
internal sealed class ColdStartExperiment(ColdStartSettings settings) : Experiment
{
    private static readonly Option<int> BurstOption = new("--burst") { Description = "coldstart: concurrent requests fired at a fresh API.", DefaultValueFactory = _ => ColdStartSettings.Defaults.Burst };
    private static readonly Option<int> MinWorkerThreadsOption = new("--min-worker-threads") { Description = "coldstart: the raised ThreadPool minimum compared with the default.", DefaultValueFactory = _ => ColdStartSettings.Defaults.MinWorkerThreads };
    private static readonly Option<string> RequestOption = new("--coldstart-request") { Description = "coldstart: the blocking request of the burst.", DefaultValueFactory = _ => ColdStartSettings.Defaults.Request };

    public static readonly ExperimentDefinition Definition = new("coldstart", [BurstOption, MinWorkerThreadsOption, RequestOption], Create)
    {
        Description = "Seed 000 (Multithreading Performance): a burst of blocking requests on a fresh API, with the pool's default minimum of worker threads vs a raised one.",
        // The raised-minimum variant is named after its minimum (min-workers-64), whatever minimum it names.
        Colors = [new("default-pool", "#e377c2"), new("min-workers", "#17becf", IsPrefix: true)],
    };

    public override string Name => Definition.Name;

    public override string Seed => "000";

    public override bool NeedsFreshApi => true;

    // Each round is a burst at a fresh API per variant: six bursts each give the ratio's CI.
    public override int DefaultRounds => RoundsForACi;

    public override IReadOnlyList<Variant> Variants =>
    [
        new("default-pool", new BurstAtFreshApi(settings.Request, settings.Burst)),
        new($"min-workers-{settings.MinWorkerThreads}", new BurstAtFreshApi(settings.Request, settings.Burst), new Dictionary<string, string>
        {
            ["ThreadPool__MinWorkerThreads"] = settings.MinWorkerThreads.ToString(CultureInfo.InvariantCulture),
        }),
    ];

    public override Finding Assess(IReadOnlyList<VariantResult> results)
    {
        if (results.Count < 2 || results[1].Total.MaxMs <= 0)
        {
            return Finding.NotAssessed("both pool settings need completed requests.");
        }
        var (cold, raised) = (results[0], results[1]);
        var ratio = cold.Total.MaxMs / raised.Total.MaxMs;
        List<SeedComparison> comparisons =
        [
            new("first response, default pool", $"{Seed000Figures.FirstRequest4BindingsSeconds} s (4 bindings), {Seed000Figures.FirstRequest40BindingsSeconds} s (40 bindings)",
                $"{cold.Total.MinMs / 1000:0.00} s (first of {cold.Total.Requests}), last {cold.Total.MaxMs / 1000:0.00} s"),
            new("with raised minimum worker threads", "the delay vanished (no figure given)",
                $"{raised.Total.MinMs / 1000:0.00} s first, last {raised.Total.MaxMs / 1000:0.00} s"),
        ];
        var figure = new VerdictFigure("last response, default pool / raised minimum", ratio, Starvation.Ratio, ReproducedAbove: true, "0.0", " x");
        return (ratio >= Starvation.Ratio
            ? new Finding(Outcome.Reproduced, comparisons, $"the burst on a fresh default pool took {ratio:0.0} x as long to be served ({cold.Total.MaxMs / 1000:0.00} s vs {raised.Total.MaxMs / 1000:0.00} s) as with raised minimum worker threads, seed 000's cold-start delay and its fix.")
            : new(Outcome.NotReproduced, comparisons, $"the burst on a fresh default pool took {ratio:0.0} x as long as with raised minimum worker threads ({cold.Total.MaxMs / 1000:0.00} s vs {raised.Total.MaxMs / 1000:0.00} s), below the {Starvation.Ratio:0} x that would show the cold-start delay.")) with { Figure = figure };
    }

    private static ColdStartExperiment Create(OptionValues values)
    {
        var request = values.Get(RequestOption);
        if (!request.StartsWith('/'))
        {
            throw new UsageException($"--coldstart-request must be a path starting with '/', got '{request}'");
        }
        return new ColdStartExperiment(new ColdStartSettings(values.Positive(BurstOption), values.Positive(MinWorkerThreadsOption), request));
    }
}
