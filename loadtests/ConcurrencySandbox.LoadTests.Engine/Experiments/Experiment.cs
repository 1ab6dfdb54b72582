using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.Platform.Hosting;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>
/// One variant of an experiment: its key, how it loads the API (<see cref="ILoadDriver"/>) and the extra environment
/// of the fresh API process it runs against (ignored with --target, which runs no process).
/// </summary>
public sealed record Variant(string Name, ILoadDriver Driver, IReadOnlyDictionary<string, string> Environment)
{
    /// <summary>The cpus the variant's fresh API is pinned to (streaming keeps the others for its client process); null: not pinned.</summary>
    public CpuSet? ServerCpus { get; init; }

    public Variant(string name, ILoadDriver driver) : this(name, driver, new Dictionary<string, string>())
    {
    }
}

/// <summary>
/// An experiment: its variants (run in interleaved rounds, each against a fresh API, under the same load), its default
/// thresholds, and how its results are judged against its seed. One subclass per experiment, registered in
/// <see cref="ExperimentList"/>; see docs/notebook/loadtests.md, "Adding an experiment".
/// </summary>
public abstract class Experiment
{
    /// <summary>The share of failed requests (HTTP errors, timeouts, connection errors) above which a variant not expected to fail fails the run.</summary>
    public const double MaxFailedPercent = 1;

    /// <summary>The name users type (<c>fanout</c>), also the report folder's name under <c>all</c>.</summary>
    public abstract string Name { get; }

    /// <summary>The seed whose effect it tests, as in shared/seeds ("003").</summary>
    public abstract string Seed { get; }

    /// <summary>True when the experiment is meaningless without a fresh API process per variant (so --target cannot serve it).</summary>
    public virtual bool NeedsFreshApi => false;

    public abstract IReadOnlyList<Variant> Variants { get; }

    /// <summary>
    /// How many interleaved rounds a run measures the variants in unless --rounds says otherwise (docs/notebook/measurement.md,
    /// "Load runs in rounds"): one by default; an experiment whose Assess gives a <see cref="Finding.Figure"/> asks for
    /// enough for a 95 % CI.
    /// </summary>
    public virtual int DefaultRounds => 1;

    /// <summary>The shortest load (the whole shape, before rounds shorten it) from which a verdict is drawn; a shorter run prints "smoke: no verdict".</summary>
    public virtual TimeSpan MinimumLoad => TimeSpan.Zero;

    /// <summary>
    /// Why this experiment's runtime series is read only once each variant is done (the API's own per-second history,
    /// one request) rather than while it runs (the runtime observer, whose EventCounters allocate in the API, or a
    /// telemetry request every second), or null to read it live. Streaming measures the API's own allocations.
    /// </summary>
    public virtual string? RuntimeReadAfterwardsBecause => null;

    /// <summary>What the report calls what the load sends (HTTP requests by default; streaming's messages).</summary>
    public virtual ReportWords Words => ReportWords.Requests;

    /// <summary>The variants whose requests may fail or time out because that is the effect shown (seed 003's starving ones); none by default.</summary>
    public virtual IReadOnlyList<string> ExpectedToFail => [];

    /// <summary>
    /// The limits every run is checked against: each variant not expected to fail may have at most
    /// <see cref="MaxFailedPercent"/> % failed requests, then the experiment's own (<see cref="OwnThresholds"/>).
    /// </summary>
    public virtual IReadOnlyList<Threshold> DefaultThresholds =>
    [
        .. Variants.Where(v => !ExpectedToFail.Contains(v.Name)).Select(v => new Threshold(v.Name, "failedPercent", "<=", MaxFailedPercent)),
        .. OwnThresholds,
    ];

    /// <summary>Limits of the experiment's own beyond the failed share, e.g. a latency bound on the variant that shows the fix.</summary>
    protected virtual IReadOnlyList<Threshold> OwnThresholds => [];

    /// <summary>The figures beside the seed's and one computed verdict; results carry plain variant names (no core count).</summary>
    public abstract Finding Assess(IReadOnlyList<VariantResult> results);

    /// <summary>The charts that show this experiment's effect, drawn beside its verdict (none by default: the generic latency, outcome and pool charts).</summary>
    public virtual IReadOnlyList<EvidenceChart> EvidenceOf(IReadOnlyList<VariantResult> results) => [];

    /// <summary>
    /// Why the starvation diagnosis (Little's law over the pool, and its "raise the pool's minimum" advice) does not fit
    /// this experiment's load, printed in its place; null where it does: request/response served on the CLR pool.
    /// </summary>
    public virtual string? DiagnosisDoesNotApplyBecause => null;

    /// <summary>Figures this experiment computes for one variant beyond latency and throughput (e.g. from its telemetry).</summary>
    public virtual IReadOnlyList<VariantFigure> FiguresOf(VariantResult result) => [];

    /// <summary>The rounds an experiment with a verdict figure measures in: the fewest whose figures give a 95 % CI of their median.</summary>
    protected const int RoundsForACi = MedianInterval.MinimumCount;

    /// <summary>The least load a ramped experiment judges from: below it (the smoke profile's 3 s) the pool and the JIT have not settled.</summary>
    protected static readonly TimeSpan RampNeeds = TimeSpan.FromSeconds(30);

    /// <summary>The result of the variant named <paramref name="name"/>, if it ran.</summary>
    protected static VariantResult? Find(IReadOnlyList<VariantResult> results, string name) =>
        results.FirstOrDefault(r => r.Key.Name == name);
}
