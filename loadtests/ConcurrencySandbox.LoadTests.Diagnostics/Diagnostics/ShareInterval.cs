namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// The 95 % interval of a share counted in a sample (<paramref name="Low"/> to <paramref name="High"/>): Wilson's score
/// interval, which stays inside 0..1 and is honest for a handful of threads, where a normal interval would not be.
/// </summary>
public readonly record struct ShareInterval(double Low, double High)
{
    private const double Z = 1.96;

    /// <summary>The interval of <paramref name="count"/> of <paramref name="total"/>; 0..1 when nothing was counted.</summary>
    public static ShareInterval Of(int count, int total) => total <= 0 ? new ShareInterval(0, 1) : Of((double)count / total, total);

    /// <summary>The interval of a share <paramref name="share"/> (0..1) measured over <paramref name="total"/> samples (more than 0).</summary>
    public static ShareInterval Of(double share, int total)
    {
        var n = (double)total;
        share = Math.Clamp(share, 0, 1);
        var centre = share + (Z * Z / (2 * n));
        var spread = Z * Math.Sqrt((share * (1 - share) / n) + (Z * Z / (4 * n * n)));
        var scale = 1 + (Z * Z / n);
        return new ShareInterval(Math.Max(0, (centre - spread) / scale), Math.Min(1, (centre + spread) / scale));
    }

    public bool Contains(double share) => share >= Low && share <= High;
}
