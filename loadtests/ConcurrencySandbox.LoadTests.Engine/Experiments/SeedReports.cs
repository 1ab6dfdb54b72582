namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>
/// The five field reports the experiments re-run (shared/seeds, ../shared/EXPERIMENTS.md), each in the words a report
/// introduces it with the first time it names it, so a reader who never saw the seeds knows what "seed 003" is.
/// </summary>
public static class SeedReports
{
    private static readonly Dictionary<string, string> About = new(StringComparer.Ordinal)
    {
        ["000"] = "a field report on starting 4, 40 and 80 listeners at once (\"Multithreading Performance\")",
        ["001"] = "a 2011 post on a socket server's garbage at 50 clients (\"Sockets and Bockets 4\")",
        ["002"] = "a report on the CPU each clrzmq receive costs (\"clrzmq Receive\")",
        ["003"] = "a 2006 report on fanning out on the ThreadPool (\"More fun with Thread Pools\")",
        ["004"] = "a 2015 post on Task.Run for CPU work (\"Basic .Net Async\")",
    };

    /// <summary>"seed 003, a 2006 report on fanning out on the ThreadPool (...)"; null for a run that re-runs no seed (run --url).</summary>
    public static string? Introduce(string seed) => About.TryGetValue(seed, out var about) ? $"seed {seed}, {about}" : null;

    /// <summary>"fanout (quick) re-runs seed 003, a 2006 report ..." as a title; <paramref name="what"/> alone for a run that re-runs no seed.</summary>
    public static string ReRunBy(string what, string seed) => Introduce(seed) is { } introduced ? $"{what} re-runs {introduced}" : what;
}
