using System.Globalization;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// One rule for a figure under its own noise, wherever it is printed (report.html's tables and evidence charts,
/// summary.md, the seed table, the claims and the console's lines): an amount that cannot be below 0 (bytes or CPU per
/// message net of idle, where the idle's own share was the larger) measured below 0, or a figure whose 95 % CI reaches
/// 0, is no finding. It reads "no difference measured (within noise: ...)" with the measured value, never as a signed
/// tiny number.
/// </summary>
public static class Noise
{
    public const string NoDifference = "no difference measured";

    /// <summary>True when <paramref name="value"/> (an amount that cannot be below 0) or its 95 % CI [<paramref name="low"/>, <paramref name="high"/>] does not tell it from 0.</summary>
    public static bool Within(double value, double? low = null, double? high = null) => value < 0 || Reaches0(low, high);

    /// <summary>True when a 95 % CI [<paramref name="low"/>, <paramref name="high"/>] of a figure that may be signed (a difference) reaches 0.</summary>
    public static bool Reaches0(double? low, double? high) => low <= 0 && high >= 0;

    /// <summary>"no difference measured (within noise: measured -1.064 B)".</summary>
    public static string Describe(string measured) => $"{NoDifference} (within noise: measured {measured})";

    /// <summary>An amount as printed: "242.166 B", or <see cref="Describe"/> of it when it is under its noise.</summary>
    public static string Amount(double value, string unit, string format = "0.###")
    {
        var measured = $"{value.ToString(format, CultureInfo.InvariantCulture)} {unit}".TrimEnd();
        return Within(value) ? Describe(measured) : measured;
    }

    /// <summary>
    /// B - A of two figures each with its 95 % CI: "+12.3 [4.1, 20.5]", or <see cref="Describe"/> of it when the
    /// difference's interval [B's low - A's high, B's high - A's low] reaches 0, which is when the two intervals overlap.
    /// </summary>
    public static string Difference(double a, double aLow, double aHigh, double b, double bLow, double bHigh, string format)
    {
        var (low, high) = (bLow - aHigh, bHigh - aLow);
        var measured = $"{Signed(b - a, format)} [{Signed(low, format)}, {Signed(high, format)}]";
        return Reaches0(low, high) ? Describe(measured) : measured;
    }

    /// <summary>"+12.3", "-4.1" or "0".</summary>
    public static string Signed(double value, string format) => value.ToString("+" + format + ";-" + format + ";0", CultureInfo.InvariantCulture);

    /// <summary>A bar's height: 0 for a figure under its noise (its label says what was measured), else the figure.</summary>
    public static double Drawn(double value) => Within(value) ? 0 : value;
}
