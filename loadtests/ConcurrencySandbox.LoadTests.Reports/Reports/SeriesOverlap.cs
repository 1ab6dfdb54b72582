namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// Finds the series of a panel that another series hides, from where they are drawn (in pixels). A series lies on another
/// when every pixel of it (its points, and points every few pixels along its lines) is within <see cref="Pixels"/> of the
/// other's lines or points, whatever their axis. Lines and dots compare with lines and dots; bars only with bars drawn after
/// them (over them), top with top at the same x: a band of a stack thinner than that is invisible, while the bars on top
/// always show.
/// </summary>
internal static class SeriesOverlap
{
    /// <summary>How close (in pixels) a series must stay to another at every point to count as lying on it.</summary>
    public const double Pixels = 3;

    private const double SampleStep = 4;

    /// <summary>How far apart (in pixels) two bars' middles may be and still be the same interval's.</summary>
    private const double SameBarPixels = 0.5;

    /// <summary>
    /// True when every pixel of <paramref name="series"/> lies within <see cref="Pixels"/> of <paramref name="other"/>; each is a
    /// list of polylines in pixels, a polyline of one point being a dot, or with <paramref name="bars"/> a bar's top.
    /// </summary>
    public static bool LiesOn(IReadOnlyList<IReadOnlyList<(double X, double Y)>> series, IReadOnlyList<IReadOnlyList<(double X, double Y)>> other, bool bars) =>
        series.Count > 0 && other.Count > 0 && series.SelectMany(Samples).All(p => other.Any(line => bars
            ? Math.Abs(p.X - line[0].X) <= SameBarPixels && Math.Abs(p.Y - line[0].Y) <= Pixels
            : Distance(p, line) <= Pixels));

    /// <summary>
    /// For each series of a panel in draw order, the series it lies on and must be made visible against, or null. Of two
    /// lines that lie on each other only the later is marked (it is drawn on top, the earlier shows through its gaps).
    /// Several lying on one base take turns (<see cref="Overlap"/>).
    /// </summary>
    public static IReadOnlyList<Overlap?> HiddenAgainst(IReadOnlyList<(IReadOnlyList<IReadOnlyList<(double X, double Y)>> Pixels, bool IsBars)> series)
    {
        var on = new bool[series.Count, series.Count];
        for (var i = 0; i < series.Count; i++)
        {
            for (var j = 0; j < series.Count; j++)
            {
                on[i, j] = Hides(j, i, series[j].IsBars, series[i].IsBars) && LiesOn(series[i].Pixels, series[j].Pixels, series[i].IsBars);
            }
        }
        var against = Enumerable.Range(0, series.Count).Select(i => Enumerable.Range(0, series.Count)
            .Where(j => on[i, j] && (!on[j, i] || i > j))
            .Select(j => (int?)j)
            .FirstOrDefault()).ToList();
        return [.. against.Select((b, i) => b is { } baseIndex
            ? new Overlap(baseIndex, against.Take(i + 1).Count(a => a == baseIndex), against.Count(a => a == baseIndex))
            : null)];
    }

    /// <summary>
    /// Whether series <paramref name="cover"/> can hide series <paramref name="covered"/> (both indexes in draw order): a line or
    /// dot any other line or dot, a bar only an earlier bar.
    /// </summary>
    public static bool Hides(int cover, int covered, bool coverIsBars, bool coveredIsBars) =>
        cover != covered && coverIsBars == coveredIsBars && (!coverIsBars || cover > covered);

    /// <summary>The polyline's points, and points every <see cref="SampleStep"/> pixels along each of its segments.</summary>
    private static IEnumerable<(double X, double Y)> Samples(IReadOnlyList<(double X, double Y)> line)
    {
        for (var i = 0; i < line.Count; i++)
        {
            yield return line[i];
            if (i + 1 < line.Count)
            {
                var (a, b) = (line[i], line[i + 1]);
                var steps = (int)(Math.Sqrt(Square(b.X - a.X) + Square(b.Y - a.Y)) / SampleStep);
                for (var k = 1; k < steps; k++)
                {
                    var t = (double)k / steps;
                    yield return (a.X + t * (b.X - a.X), a.Y + t * (b.Y - a.Y));
                }
            }
        }
    }

    /// <summary>The distance from <paramref name="p"/> to the nearest point of the polyline (to its one point when it has one).</summary>
    private static double Distance((double X, double Y) p, IReadOnlyList<(double X, double Y)> line)
    {
        if (line.Count == 1)
        {
            return Math.Sqrt(Square(p.X - line[0].X) + Square(p.Y - line[0].Y));
        }
        var nearest = double.PositiveInfinity;
        for (var i = 0; i + 1 < line.Count; i++)
        {
            nearest = Math.Min(nearest, SegmentDistance(p, line[i], line[i + 1]));
        }
        return nearest;
    }

    private static double SegmentDistance((double X, double Y) p, (double X, double Y) a, (double X, double Y) b)
    {
        var lengthSquared = Square(b.X - a.X) + Square(b.Y - a.Y);
        var t = lengthSquared == 0 ? 0 : Math.Clamp(((p.X - a.X) * (b.X - a.X) + (p.Y - a.Y) * (b.Y - a.Y)) / lengthSquared, 0, 1);
        return Math.Sqrt(Square(p.X - (a.X + t * (b.X - a.X))) + Square(p.Y - (a.Y + t * (b.Y - a.Y))));
    }

    private static double Square(double value) => value * value;
}

/// <summary>A series that lies on the series <paramref name="Base"/>: its turn (1 to <paramref name="Of"/>) among those lying on that base, so their dashes and diamonds alternate.</summary>
internal sealed record Overlap(int Base, int Turn, int Of);
