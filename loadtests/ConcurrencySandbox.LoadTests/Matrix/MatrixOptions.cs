using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.Platform.Statistics;

namespace ConcurrencySandbox.LoadTests.Matrix;

/// <summary>
/// The matrix command's options: core counts, GC mode and what to run at each; where the API runs: pinned locally
/// (no <see cref="Engine"/>) or in a container of <see cref="Image"/> limited by each of <see cref="Limits"/>.
/// </summary>
/// <param name="SweepRepeat">The fewest pairs per sweep row; more follow until each CI is within +-<paramref name="CiWidthPercent"/> or the sweep's budget is spent.</param>
internal sealed record MatrixOptions(IReadOnlyList<int> Cpus, string? GcMode, IReadOnlyList<string> Experiments, long SweepTo, int SweepRepeat,
    string? Engine = null, string Image = MatrixOptions.DefaultImage, IReadOnlyList<CpuLimitKind>? Limits = null,
    double CiWidthPercent = MeasurementPolicy.DefaultTargetHalfWidthPercent, double SweepBudgetSeconds = MatrixOptions.DefaultSweepBudgetSeconds)
{
    public const double DefaultSweepBudgetSeconds = 120;

    public const string DefaultImage = "concurrencysandbox/api:local";
    public static readonly IReadOnlyList<string> KnownExperiments = ["sweep", "fanout"];
    public static readonly IReadOnlyList<string> KnownEngines = ["local", "docker", "podman"];
}
