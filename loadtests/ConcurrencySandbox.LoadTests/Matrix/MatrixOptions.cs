namespace ConcurrencySandbox.LoadTests.Matrix;

/// <summary>The matrix command's options: core counts, GC mode and what to run at each.</summary>
public sealed record MatrixOptions(IReadOnlyList<int> Cpus, string? GcMode, IReadOnlyList<string> Experiments, long SweepTo, int SweepRepeat)
{
    public static readonly IReadOnlyList<string> KnownExperiments = ["sweep", "fanout"];
}
