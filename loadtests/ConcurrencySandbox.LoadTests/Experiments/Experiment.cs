using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>
/// One variant of an experiment: its key, how it loads the API (<see cref="ILoadDriver"/>) and the extra environment
/// of the fresh API process it runs against (ignored with --target, which runs no process).
/// </summary>
public sealed record Variant(string Name, ILoadDriver Driver, IReadOnlyDictionary<string, string> Environment)
{
    public Variant(string name, ILoadDriver driver) : this(name, driver, new Dictionary<string, string>())
    {
    }
}

/// <summary>
/// An experiment: its variants (run one after another, each against a fresh API, under the same load), its default
/// thresholds, and how its results are judged against its seed. One subclass per experiment, registered in
/// <see cref="ExperimentList"/>; see docs/loadtests.md, "Adding an experiment".
/// </summary>
public abstract class Experiment
{
    /// <summary>Every variant must complete every request unless an experiment says otherwise.</summary>
    protected static readonly Threshold NoFailures = new("*", "failed", "<=", 0);

    /// <summary>The name users type (<c>fanout</c>), also the report folder's name under <c>all</c>.</summary>
    public abstract string Name { get; }

    /// <summary>The seed whose effect it tests, as in shared/seeds ("003").</summary>
    public abstract string Seed { get; }

    /// <summary>True when the experiment is meaningless without a fresh API process per variant (so --target cannot serve it).</summary>
    public virtual bool NeedsFreshApi => false;

    public abstract IReadOnlyList<Variant> Variants { get; }

    public virtual IReadOnlyList<Threshold> DefaultThresholds => [NoFailures];

    /// <summary>The figures beside the seed's and one computed verdict; results carry plain variant names (no core count).</summary>
    public abstract Finding Assess(IReadOnlyList<VariantResult> results);

    /// <summary>Figures this experiment computes for one variant beyond latency and throughput (e.g. from its telemetry).</summary>
    public virtual IReadOnlyList<VariantFigure> FiguresOf(VariantResult result) => [];

    /// <summary>The result of the variant named <paramref name="name"/>, if it ran.</summary>
    protected static VariantResult? Find(IReadOnlyList<VariantResult> results, string name) =>
        results.FirstOrDefault(r => r.Key.Name == name);
}
