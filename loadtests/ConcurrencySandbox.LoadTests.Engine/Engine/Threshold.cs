using System.Globalization;
using System.Text.RegularExpressions;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// A pass/fail limit on one variant's totals, written <c>variant:metric&lt;value</c> (variant <c>*</c> = every variant).
/// Latency metrics are in milliseconds: mean, min, p50, p75, p95, p99, max; also rps, failed and failedPercent.
/// </summary>
public sealed partial record Threshold(string Variant, string Metric, string Operator, double Limit)
{
    public static readonly IReadOnlyList<string> Metrics = ["mean", "min", "p50", "p75", "p95", "p99", "max", "rps", "failed", "failedPercent"];

    [GeneratedRegex(@"^\s*(?<variant>[^:\s]+)\s*:\s*(?<metric>[A-Za-z0-9]+)\s*(?<op><=|>=|<|>)\s*(?<limit>[-+0-9.eE]+)\s*$")]
    private static partial Regex Syntax();

    public override string ToString() => $"{Variant}:{Metric}{Operator}{Limit.ToString("0.###", CultureInfo.InvariantCulture)}";

    /// <summary>Parses <c>variant:metric&lt;value</c>; throws <see cref="FormatException"/> with the reason.</summary>
    public static Threshold Parse(string text)
    {
        var match = Syntax().Match(text);
        if (!match.Success || !double.TryParse(match.Groups["limit"].Value, NumberStyles.Float, CultureInfo.InvariantCulture, out var limit))
        {
            throw new FormatException($"bad threshold '{text}': expected variant:metric<value, e.g. \"async:p99<1200\"");
        }
        var metric = Metrics.FirstOrDefault(m => m.Equals(match.Groups["metric"].Value, StringComparison.OrdinalIgnoreCase))
            ?? throw new FormatException($"bad threshold '{text}': unknown metric (expected one of: {string.Join(", ", Metrics)})");
        return new Threshold(match.Groups["variant"].Value, metric, match.Groups["op"].Value, limit);
    }

    /// <summary>True for every variant with <c>*</c>, else for the named variant at any core count ("async"), or at one ("async@2cpu").</summary>
    public bool AppliesTo(VariantKey variant) =>
        Variant == "*" || Variant.Equals(variant.Name, StringComparison.OrdinalIgnoreCase) || Variant.Equals(variant.Label, StringComparison.OrdinalIgnoreCase);

    public double Measure(VariantResult result) => Metric switch
    {
        "mean" => result.Total.MeanMs,
        "min" => result.Total.MinMs,
        "p50" => result.Total.P50Ms,
        "p75" => result.Total.P75Ms,
        "p95" => result.Total.P95Ms,
        "p99" => result.Total.P99Ms,
        "max" => result.Total.MaxMs,
        "rps" => result.RequestsPerSecond,
        "failed" => result.Total.Failed,
        "failedPercent" => result.Total.Requests == 0 ? 0 : 100.0 * result.Total.Failed / result.Total.Requests,
        _ => throw new InvalidOperationException($"unknown metric {Metric}"),
    };

    public bool IsMetBy(double actual) => Operator switch
    {
        "<" => actual < Limit,
        "<=" => actual <= Limit,
        ">" => actual > Limit,
        ">=" => actual >= Limit,
        _ => throw new InvalidOperationException($"unknown operator {Operator}"),
    };
}

/// <summary>One threshold checked against one variant.</summary>
public sealed record ThresholdOutcome(string Threshold, string Variant, double Actual, bool Passed);

public static class Thresholds
{
    /// <summary>Checks every threshold against every variant it names.</summary>
    public static IReadOnlyList<ThresholdOutcome> Evaluate(IEnumerable<Threshold> thresholds, IReadOnlyList<VariantResult> results) =>
        [.. from threshold in thresholds
            from result in results
            where threshold.AppliesTo(result.Key)
            let actual = threshold.Measure(result)
            select new ThresholdOutcome(threshold.ToString(), result.Key.Label, actual, threshold.IsMetBy(actual))];
}
