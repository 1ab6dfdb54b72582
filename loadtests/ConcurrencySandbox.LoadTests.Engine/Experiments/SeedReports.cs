namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>
/// The five field reports the experiments re-run (shared/seeds, ../shared/EXPERIMENTS.md), each in the words a report
/// introduces it with the first time it names it, so a reader who never saw the seeds knows what "seed 003" is.
/// </summary>
public static class SeedReports
{
    /// <summary>Each seed: what it is, and the effect it saw, which a verdict says reproduced or not.</summary>
    private static readonly Dictionary<string, (string About, string Effect)> Seeds = new(StringComparer.Ordinal)
    {
        ["000"] = ("a field report on starting 4, 40 and 80 listeners at once (\"Multithreading Performance\")",
            "a burst of requests on a fresh process waits while the thread pool adds threads, unless its minimum is raised"),
        ["001"] = ("a 2011 post on a socket server's garbage at 50 clients (\"Sockets and Bockets 4\")",
            "pooled socket buffers leave less garbage, a smaller heap and less CPU than allocating ones"),
        ["002"] = ("a report on the CPU each clrzmq receive costs (\"clrzmq Receive\")",
            "a buffer allocated per receive costs more CPU than a preallocated one"),
        ["003"] = ("a 2006 report on fanning out on the ThreadPool (\"More fun with Thread Pools\")",
            "blocking calls on the shared ThreadPool starve it, so latency climbs with the load"),
        ["004"] = ("a 2015 post on Task.Run for CPU work (\"Basic .Net Async\")",
            "wrapping CPU work in Task.Run buys no throughput under load"),
    };

    /// <summary>"seed 003, a 2006 report on fanning out on the ThreadPool (...)"; null for a run that re-runs no seed (run --url).</summary>
    public static string? Introduce(string seed) => Seeds.TryGetValue(seed, out var s) ? $"seed {seed}, {s.About}" : null;

    /// <summary>"blocking calls on the shared ThreadPool starve it, so latency climbs with the load": what "seed 003's effect" is, in words; null for no seed.</summary>
    public static string? Effect(string seed) => Seeds.TryGetValue(seed, out var s) ? s.Effect : null;
}
