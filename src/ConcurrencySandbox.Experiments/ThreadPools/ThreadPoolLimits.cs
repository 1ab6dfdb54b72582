namespace ConcurrencySandbox.Experiments.ThreadPools;

/// <summary>The CLR ThreadPool's minimum and maximum worker and I/O completion threads.</summary>
public sealed record ThreadPoolLimits(int MinWorkerThreads, int MinIoThreads, int MaxWorkerThreads, int MaxIoThreads)
{
    /// <summary>The most threads the runtime accepts for any of the four settings.</summary>
    public const int MaxThreads = short.MaxValue;

    public static ThreadPoolLimits Read()
    {
        ThreadPool.GetMinThreads(out var minWorkers, out var minIo);
        ThreadPool.GetMaxThreads(out var maxWorkers, out var maxIo);
        return new ThreadPoolLimits(minWorkers, minIo, maxWorkers, maxIo);
    }
}

/// <summary>A change to any of the four settings; those left null stay as they are.</summary>
public sealed record ThreadPoolChange(int? MinWorkerThreads = null, int? MinIoThreads = null, int? MaxWorkerThreads = null, int? MaxIoThreads = null)
{
    public static ThreadPoolChange To(ThreadPoolLimits limits) =>
        new(limits.MinWorkerThreads, limits.MinIoThreads, limits.MaxWorkerThreads, limits.MaxIoThreads);

    public ThreadPoolLimits AppliedTo(ThreadPoolLimits current) => new(
        MinWorkerThreads ?? current.MinWorkerThreads,
        MinIoThreads ?? current.MinIoThreads,
        MaxWorkerThreads ?? current.MaxWorkerThreads,
        MaxIoThreads ?? current.MaxIoThreads);

    /// <summary>
    /// What is wrong with this change against the current limits, by setting name: each value 1..32767 and
    /// each minimum at most its maximum. Empty when the change may be applied.
    /// </summary>
    public IReadOnlyDictionary<string, string> Problems(ThreadPoolLimits current)
    {
        var problems = new Dictionary<string, string>();
        foreach (var (name, value) in Values())
        {
            if (value is < 1 or > ThreadPoolLimits.MaxThreads)
            {
                problems[name] = $"'{name}' must be between 1 and {ThreadPoolLimits.MaxThreads}; got {value}.";
            }
        }

        var target = AppliedTo(current);
        if (problems.Count == 0 && target.MinWorkerThreads > target.MaxWorkerThreads)
        {
            problems[nameof(MinWorkerThreads)] =
                $"'{nameof(MinWorkerThreads)}' ({target.MinWorkerThreads}) must be at most '{nameof(MaxWorkerThreads)}' ({target.MaxWorkerThreads}).";
        }

        if (problems.Count == 0 && target.MinIoThreads > target.MaxIoThreads)
        {
            problems[nameof(MinIoThreads)] =
                $"'{nameof(MinIoThreads)}' ({target.MinIoThreads}) must be at most '{nameof(MaxIoThreads)}' ({target.MaxIoThreads}).";
        }

        return problems;
    }

    private IEnumerable<(string Name, int Value)> Values()
    {
        (string, int?)[] all =
        [
            (nameof(MinWorkerThreads), MinWorkerThreads),
            (nameof(MinIoThreads), MinIoThreads),
            (nameof(MaxWorkerThreads), MaxWorkerThreads),
            (nameof(MaxIoThreads), MaxIoThreads),
        ];
        return all.Where(pair => pair.Item2.HasValue).Select(pair => (pair.Item1, pair.Item2!.Value));
    }
}
