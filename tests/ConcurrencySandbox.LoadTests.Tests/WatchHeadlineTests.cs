using ConcurrencySandbox.LoadTests.Cli;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// watch.md's headline counts the call sites the episodes name as the episodes name them: every comparable site an
/// episode names (<see cref="WatchEpisode.CallSites"/>), not only the one its sample happened to rank first.
/// </summary>
public sealed class WatchHeadlineTests
{
    /// <summary>Each episode as "Top" or "Top+Other+...": the site its sample ranked first, then the other comparable ones it names.</summary>
    [Theory]
    // Orders.Quote ranked first twice, but Orders.Price was named in all three episodes.
    [InlineData(new[] { "Orders.Quote+Orders.Price", "Orders.Quote+Orders.Price", "Orders.Price" }, "the call site most named: Orders.Price (3 of 3 episodes).")]
    // Named as often: both said, none picked.
    [InlineData(new[] { "Orders.Quote+Orders.Price", "Orders.Price+Orders.Quote" }, "the call sites most named: Orders.Price and Orders.Quote (2 of 2 episodes each).")]
    [InlineData(new[] { "Stock.Count", "Orders.Quote+Orders.Price+Stock.Count", "Stock.Count" }, "the call site most named: Stock.Count (3 of 3 episodes).")]
    // One site per episode: counted as before.
    [InlineData(new[] { "Orders.Quote", "Orders.Price", "Orders.Quote" }, "the call site most named: Orders.Quote (2 of 3 episodes).")]
    [InlineData(new[] { "", "" }, "no stack sample named a call site.")]
    public void TheHeadlineCountsEverySiteAnEpisodeNames(string[] episodes, string said)
    {
        var report = new WatchReport("pid 4242 (dotnet)", "the diagnostics IPC channel of pid 4242", new DateTimeOffset(2026, 11, 29, 17, 0, 0, TimeSpan.Zero), 60, "watched for the 60 s asked", false,
            60, 2, 40, 0, 80, 0, [], [.. episodes.Select((e, i) => Episode(i + 1, e))]);

        var headline = report.Markdown().Split('\n')[2];

        Assert.EndsWith(said, headline.TrimEnd());
    }

    private static WatchEpisode Episode(int number, string sites)
    {
        var named = sites.Length == 0 ? [] : sites.Split('+').Select(m => new WatchCallSite(m, ".Result", "Orders.cs", 10 + m.Length, "GET /orders/{id:int}", 6, 12)).ToList();
        return new WatchEpisode(number, new DateTimeOffset(2026, 11, 29, 17, 0, number, TimeSpan.Zero), number * 10, 5, true, 2, 20, 4, 40, 3, 9, [],
            "what waited", named.FirstOrDefault(), false, null)
        {
            CallSites = named.Count > 1 ? named : null,
        };
    }
}
