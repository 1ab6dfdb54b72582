using System.Globalization;
namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// One agent's share of a load shape, like k6's execution segments: agent <see cref="Index"/> of <see cref="Count"/>
/// takes users <c>floor((i+1)T/N) - floor(iT/N)</c> of every user count T (so the shares add up to T exactly at every
/// moment), and of an open shape every N-th arrival from its index (so the agents' schedules together are the single
/// runner's schedule, request for request).
/// </summary>
public readonly record struct LoadSegment(int Index, int Count)
{
    /// <summary>The whole load: one runner, no agents.</summary>
    public static readonly LoadSegment Whole = new(0, 1);

    /// <summary>This segment's users of <paramref name="totalUsers"/>.</summary>
    public int UsersOf(int totalUsers) => Floor(Index + 1, totalUsers) - Floor(Index, totalUsers);

    /// <summary>The global index of this segment's <paramref name="n"/>-th arrival (0-based).</summary>
    public long ArrivalIndex(long n) => Index + n * Count;

    /// <summary>This segment's part of an arrival rate (the rate it sends at on average).</summary>
    public double RateOf(double totalRate) => totalRate / Count;

    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Index + 1}/{Count}");

    private int Floor(int position, int total) => (int)((long)position * total / Count);

    /// <summary>
    /// Why some agent of <paramref name="count"/> would send nothing under <paramref name="shape"/> (a closed shape whose
    /// peak has fewer users than agents, an open shape with fewer arrivals than agents); null when every share is non-zero.
    /// </summary>
    public static string? ZeroShare(LoadShape shape, int count)
    {
        if (shape.IsOpen)
        {
            return shape.IntendedStart(count - 1) is null
                ? string.Create(CultureInfo.InvariantCulture, $"the open shape has fewer than {count} arrivals, so some of the {count} agents would send no request; use fewer agents or a higher --rate")
                : null;
        }
        // Each share is at least floor(T/N) users, so every agent has one exactly when the peak has as many users as agents.
        var peak = (int)shape.Steps.Max(s => s.Target);
        return peak >= count
            ? null
            : string.Create(CultureInfo.InvariantCulture, $"{count} agents share the shape's peak of {peak} users, so some agent would get 0 users; use at most {peak} agents");
    }
}
