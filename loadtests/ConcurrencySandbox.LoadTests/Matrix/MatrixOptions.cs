using ConcurrencySandbox.LoadTests.Hosting;

namespace ConcurrencySandbox.LoadTests.Matrix;

/// <summary>
/// The matrix command's options: core counts, GC mode and what to run at each; where the API runs: pinned locally
/// (no <see cref="Engine"/>) or in a container of <see cref="Image"/> limited by each of <see cref="Limits"/>.
/// </summary>
public sealed record MatrixOptions(IReadOnlyList<int> Cpus, string? GcMode, IReadOnlyList<string> Experiments, long SweepTo, int SweepRepeat,
    string? Engine = null, string Image = MatrixOptions.DefaultImage, IReadOnlyList<CpuLimitKind>? Limits = null)
{
    public const string DefaultImage = "concurrencysandbox/api:local";
    public static readonly IReadOnlyList<string> KnownExperiments = ["sweep", "fanout"];
    public static readonly IReadOnlyList<string> KnownEngines = ["local", "docker", "podman"];
}
