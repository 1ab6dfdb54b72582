using System.Globalization;

namespace ConcurrencySandbox.Contracts.Reports;

/// <summary>How a report prints a duration measured in seconds (a sweep's sync and Task.Run times, their CIs and flags): in the unit that keeps it readable.</summary>
public static class DurationText
{
    /// <summary>4 significant digits: "40 ns", "8.833 us", "1.25 ms", "2.5 s" (never "4E-08").</summary>
    public static string Of(double seconds)
    {
        var (value, unit) = Math.Abs(seconds) switch
        {
            >= 1 or 0 => (seconds, "s"),
            >= 1e-3 => (seconds * 1e3, "ms"),
            >= 1e-6 => (seconds * 1e6, "us"),
            _ => (seconds * 1e9, "ns"),
        };
        return unit == "s" ? string.Create(CultureInfo.InvariantCulture, $"{value:0.###} s") : string.Create(CultureInfo.InvariantCulture, $"{value:G4} {unit}");
    }
}
