using System.Globalization;

namespace ConcurrencySandbox.Contracts.Reports;

/// <summary>
/// How every report prints a count (requests, messages, failures, injections, users, rounds): grouped in thousands with
/// the invariant culture's comma, "3,895,458", and with its noun in the number it takes, "1 core", "2 cores", never
/// "core(s)". Latencies and ratios keep their own formats (<see cref="LatencyText"/>).
/// </summary>
public static class CountText
{
    /// <summary>"3,895,458", "0".</summary>
    public static string Of(long count) => count.ToString("#,0", CultureInfo.InvariantCulture);

    /// <summary>"1 core", "2 cores", "3,895,458 requests"; <paramref name="plural"/> where the noun does not take an "s".</summary>
    public static string Of(long count, string singular, string? plural = null) => $"{Of(count)} {Noun(count, singular, plural)}";

    /// <summary>A measured amount to one decimal with its noun: "1 request", "2.5 requests", "1,250 requests"; singular only when it prints as 1.</summary>
    public static string Amount(double amount, string singular, string? plural = null)
    {
        var text = amount.ToString("#,0.#", CultureInfo.InvariantCulture);
        return $"{text} {(text == "1" ? singular : plural ?? singular + "s")}";
    }

    /// <summary>A list in words: "a", "a and b", "a, b and c"; empty for none.</summary>
    public static string Listed(IReadOnlyList<string> items) =>
        items.Count < 2 ? string.Concat(items) : $"{string.Join(", ", items.SkipLast(1))} and {items[^1]}";

    /// <summary>The noun alone in the number <paramref name="count"/> takes: "core" for 1, "cores" otherwise.</summary>
    public static string Noun(long count, string singular, string? plural = null) => count == 1 ? singular : plural ?? singular + "s";
}
