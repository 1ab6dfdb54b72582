namespace ConcurrencySandbox.Experiments.ThreadPools;

/// <summary>The CLR ThreadPool's minimum and maximum worker and I/O completion threads.</summary>
public sealed record ThreadPoolLimits(int MinWorkerThreads, int MinIoThreads, int MaxWorkerThreads, int MaxIoThreads)
{
    /// <summary>The most threads the runtime accepts for any of the four settings.</summary>
    public const int MaxThreads = short.MaxValue;

    public static ThreadPoolLimits Read()
    {
        var snapshot = ThreadPoolSnapshot.Capture();
        return new(snapshot.MinWorkerThreads, snapshot.MinIoThreads, snapshot.MaxWorkerThreads, snapshot.MaxIoThreads);
    }
}

/// <summary>
/// A change to any of the four settings; those left null stay as they are. Values are as sent (long), so that
/// <see cref="Problems"/> can name an out-of-range one; apply a change only once it has no problems.
/// </summary>
public sealed record ThreadPoolChange(long? MinWorkerThreads = null, long? MinIoThreads = null, long? MaxWorkerThreads = null, long? MaxIoThreads = null)
{
    public static ThreadPoolChange To(ThreadPoolLimits limits) =>
        new(limits.MinWorkerThreads, limits.MinIoThreads, limits.MaxWorkerThreads, limits.MaxIoThreads);

    public ThreadPoolLimits AppliedTo(ThreadPoolLimits current) => new(
        checked((int)(MinWorkerThreads ?? current.MinWorkerThreads)),
        checked((int)(MinIoThreads ?? current.MinIoThreads)),
        checked((int)(MaxWorkerThreads ?? current.MaxWorkerThreads)),
        checked((int)(MaxIoThreads ?? current.MaxIoThreads)));

    /// <summary>
    /// What is wrong with this change against the current limits: each value 1..32767 and each minimum at most
    /// its maximum. Keyed by setting name as <paramref name="nameOf"/> spells it (a JSON property, a
    /// configuration key); empty when the change may be applied.
    /// </summary>
    public IReadOnlyDictionary<string, string> Problems(ThreadPoolLimits current, Func<string, string> nameOf)
    {
        var problems = new Dictionary<string, string>();
        foreach (var (setting, value) in Values())
        {
            if (value is < 1 or > ThreadPoolLimits.MaxThreads)
            {
                problems[nameOf(setting)] = $"'{nameOf(setting)}' must be an integer from 1 to {ThreadPoolLimits.MaxThreads}; got {value}.";
            }
        }

        if (problems.Count > 0)
        {
            return problems;
        }

        var target = AppliedTo(current);
        (string Min, int MinValue, string Max, int MaxValue)[] pairs =
        [
            (nameof(MinWorkerThreads), target.MinWorkerThreads, nameof(MaxWorkerThreads), target.MaxWorkerThreads),
            (nameof(MinIoThreads), target.MinIoThreads, nameof(MaxIoThreads), target.MaxIoThreads),
        ];
        foreach (var (min, minValue, max, maxValue) in pairs.Where(pair => pair.MinValue > pair.MaxValue))
        {
            problems[nameOf(min)] = $"'{nameOf(min)}' ({minValue}) must be at most '{nameOf(max)}' ({maxValue}).";
        }

        return problems;
    }

    private IEnumerable<(string Name, long Value)> Values()
    {
        (string, long?)[] all =
        [
            (nameof(MinWorkerThreads), MinWorkerThreads),
            (nameof(MinIoThreads), MinIoThreads),
            (nameof(MaxWorkerThreads), MaxWorkerThreads),
            (nameof(MaxIoThreads), MaxIoThreads),
        ];
        return all.Where(pair => pair.Item2.HasValue).Select(pair => (pair.Item1, pair.Item2!.Value));
    }
}
