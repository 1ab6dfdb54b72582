using System.Globalization;

namespace ConcurrencySandbox.Contracts.Reports;

/// <summary>How every report prints a latency figure: exact, a lower bound ("≥ 60000") or none ("no answer").</summary>
public static class LatencyText
{
    /// <summary>What a cell says when no request got an answer: there is no latency, and 0 would read as a fast one.</summary>
    public const string NoAnswer = "no answer";

    /// <summary>"1234.5", "\u2265 60000" (a lower bound), "\u2265 the timeout" (a bound of unknown value, NaN) or "no answer" (NaN, no bound).</summary>
    public static string Format(double ms, bool isLowerBound, string format = "0.#") =>
        double.IsNaN(ms) ? isLowerBound ? "\u2265 the timeout" : NoAnswer
        : isLowerBound ? "\u2265 " + ms.ToString(format, CultureInfo.InvariantCulture)
        : ms.ToString(format, CultureInfo.InvariantCulture);
}
