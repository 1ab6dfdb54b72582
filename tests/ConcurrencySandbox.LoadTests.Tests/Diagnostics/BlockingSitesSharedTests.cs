using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Two blocking sites in one request (the sample service's <c>/quotes/{id}</c>: Orders.Quote on the request's thread,
/// Orders.SupplierPrice on a queued pool thread): when the stack sample holds comparable shares of the blocked threads in
/// each (neither's 95 % interval excludes the other's share), the diagnosis and the headline name every one with its
/// share, not the one the sample happened to rank first (the headline named each in 2 of 4 runs); a dominant site is
/// still named alone. Seeded sample counts.
/// </summary>
public sealed class BlockingSitesSharedTests
{
    private static readonly BlockingCall Quote = new("Orders.Quote", BlockingPrimitive.Result, new SourceLine("/src/SampleService/Program.cs", 40), "GET /quotes/{id:int}", null, null, null);

    private static readonly BlockingCall SupplierPrice = new("Orders.SupplierPrice", BlockingPrimitive.Sleep, new SourceLine("/src/SampleService/Program.cs", 47), "GET /quotes/{id:int}", null, null, null) { Queued = true };

    private static readonly BlockingCall Audit = new("Orders.Audit", BlockingPrimitive.Wait, new SourceLine("/src/SampleService/Program.cs", 55), "GET /quotes/{id:int}", null, null, null);

    [Theory]
    [InlineData(13, 12, "Orders.Quote (Program.cs:40) 52 % and Orders.SupplierPrice (Program.cs:47) 48 %")]
    [InlineData(12, 13, "Orders.SupplierPrice (Program.cs:47) 52 % and Orders.Quote (Program.cs:40) 48 %")]
    public void TwoSitesHoldingComparableSharesAreBothNamedWithTheirShares(int quoteThreads, int supplierThreads, string named)
    {
        var sites = Sampled((Quote, quoteThreads), (SupplierPrice, supplierThreads));

        Assert.Equal(2, sites.Holding.Count);
        Assert.StartsWith($"two call sites hold the pool's threads: {named} of the 25 blocked threads sampled (", sites.DescribeHolding());
        Assert.Contains("wait in Orders.Quote (Program.cs:40) blocks on .Result", sites.DescribeHolding(), StringComparison.Ordinal);
        Assert.Contains("wait in Orders.SupplierPrice (Program.cs:47) blocks on Thread.Sleep", sites.DescribeHolding(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(22, 3)]
    [InlineData(30, 10)]
    public void ADominantSiteIsNamedAlone(int quoteThreads, int supplierThreads)
    {
        var sites = Sampled((Quote, quoteThreads), (SupplierPrice, supplierThreads));

        Assert.Equal([sites.Top!], sites.Holding);
        Assert.Equal(sites.Describe(sites.Top!), sites.DescribeHolding());
    }

    /// <summary>
    /// One method and line reached two ways (inlined into the request's handler, and run by the work item the request
    /// queued) is one place to change: its sites count together, and a third method is compared with their sum.
    /// </summary>
    [Theory]
    [InlineData(2, 1, 0)]
    [InlineData(7, 6, 0)]
    [InlineData(7, 6, 12)]
    public void OneMethodAndLineReachedTwoWaysIsOneSiteWithItsThreadsTogether(int inlined, int queued, int quote)
    {
        var onRequestThread = SupplierPrice with { Queued = false, InlinedInto = "Orders.Quote" };
        var sites = Sampled([(onRequestThread, inlined), (SupplierPrice, queued), .. quote > 0 ? [(Quote, quote)] : Array.Empty<(BlockingCall, int)>()]);

        var holding = sites.Holding;

        Assert.Equal(holding.Count, holding.Select(BlockingSites.NameOf).Distinct().Count());
        Assert.Equal(inlined + queued, holding.Single(s => BlockingSites.MethodOf(s) == "Orders.SupplierPrice").Threads);
        Assert.Equal(quote > 0 ? 2 : 1, holding.Count);
        if (quote > 0)
        {
            Assert.StartsWith("two call sites hold the pool's threads: Orders.SupplierPrice (Program.cs:47) 52 % and Orders.Quote (Program.cs:40) 48 %", sites.DescribeHolding());
        }
        else
        {
            Assert.DoesNotContain("call sites hold", sites.DescribeHolding(), StringComparison.Ordinal);
        }
    }

    /// <summary>
    /// One method blocking at two lines (two waits in it, or a line attribution that moved between samples) is one place to
    /// change: named once with its threads together and both lines, in the diagnosis and the headline, whether it holds the
    /// pool alone or beside another site (seeded counts; the old code named it twice and split its share).
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    [InlineData(6)]
    public void OneMethodBlockingAtTwoLinesIsNamedOnceWithBothLinesAndItsSharesSummed(int seed)
    {
        var random = new Random(seed);
        var (atFirst, atSecond) = (random.Next(3, 16), random.Next(3, 16));
        // Beside it: nothing, a comparable Orders.Quote, or a minor one.
        var quote = random.Next(3) switch { 0 => 0, 1 => atFirst + atSecond + random.Next(-2, 3), _ => random.Next(1, 3) };
        var first = new BlockingCall("Orders.SupplierPrice", BlockingPrimitive.Sleep, new SourceLine("/src/SampleService/Orders.cs", 69), "GET /quotes/{id:int}", null, null, null);
        var second = first with { Primitive = random.Next(2) == 0 ? BlockingPrimitive.Sleep : BlockingPrimitive.Result, Line = new SourceLine("/src/SampleService/Orders.cs", 70) };
        var sites = Sampled([(first, atFirst), (second, atSecond), .. quote > 0 ? [(Quote, quote)] : Array.Empty<(BlockingCall, int)>()]);

        var supplier = sites.Holding.Where(s => BlockingSites.MethodOf(s) == "Orders.SupplierPrice").ToList();
        var (headline, diagnosis) = Diagnosed(sites);

        Assert.Equal(atFirst + atSecond, Assert.Single(supplier).Threads);
        Assert.Equal("Orders.SupplierPrice (Orders.cs:69, 70)", BlockingSites.NameOf(supplier[0]));
        var named = sites.Holding.Count > 1
            ? $"`Orders.SupplierPrice` (Orders.cs:69, 70) {100.0 * (atFirst + atSecond) / sites.BlockedThreads:0} %"
            : "Change `Orders.SupplierPrice` (Orders.cs:69, 70, GET /quotes/{id:int}): it blocks on ";
        Assert.Contains(named, headline.Sentences[0], StringComparison.Ordinal);
        Assert.Single(System.Text.RegularExpressions.Regex.Matches(headline.Text, "Orders.SupplierPrice"));
        Assert.DoesNotContain("(Orders.cs:70)", diagnosis.Describe(), StringComparison.Ordinal);
        Assert.Contains("its threads waited at Orders.cs:69, 70", diagnosis.Describe(), StringComparison.Ordinal);
    }

    /// <summary>A method without lines that waits in two ways stays two sites: nothing says they are one place (StarvedSpellTests' lock and sleep).</summary>
    [Fact]
    public void AMethodWithoutLinesWaitingInTwoWaysStaysTwoSites()
    {
        var sleeps = new BlockingCall("Inventory.Reserve", BlockingPrimitive.Sleep, null, "GET /inventory/{id:int}", null, null, null);
        var sites = Sampled((sleeps, 12), (sleeps with { Primitive = BlockingPrimitive.Lock }, 11));

        Assert.Equal(2, sites.Holding.Count);
        Assert.All(sites.Holding, s => Assert.Empty(s.Lines));
    }

    [Fact]
    public void ThreeSitesHoldingComparableSharesAreAllNamedAndAMinorFourthIsNot()
    {
        var minor = new BlockingCall("Orders.Log", BlockingPrimitive.FileIo, new SourceLine("/src/SampleService/Program.cs", 60), null, null, null, null);
        var sites = Sampled((Quote, 9), (SupplierPrice, 8), (Audit, 8), (minor, 1));

        Assert.Equal(["Orders.Quote", "Orders.SupplierPrice", "Orders.Audit"], sites.Holding.Select(BlockingSites.MethodOf));
        Assert.StartsWith("three call sites hold the pool's threads: Orders.Quote (Program.cs:40) 35 %, Orders.SupplierPrice (Program.cs:47) 31 % and Orders.Audit (Program.cs:55) 31 % of the 26 blocked threads sampled", sites.DescribeHolding());
    }

    [Fact]
    public void TheHeadlineAndTheDiagnosisNameBothSitesAndTheFixMakesBothAsync()
    {
        var (headline, diagnosis) = Diagnosed(Sampled((Quote, 13), (SupplierPrice, 12)));

        Assert.Equal("Change the two call sites holding the pool's blocked threads: `Orders.Quote` (Program.cs:40) 52 % and `Orders.SupplierPrice` (Program.cs:47) 48 %.", headline.Sentences[0]);
        Assert.Contains("Fix: make them async", headline.Text, StringComparison.Ordinal);
        Assert.Contains("Sure: 25 of 27 sampled pool threads waited at these two sites.", headline.Text, StringComparison.Ordinal);
        Assert.Contains("The blocking call sites: two call sites hold the pool's threads: Orders.Quote (Program.cs:40) 52 % and Orders.SupplierPrice (Program.cs:47) 48 %", diagnosis.Describe(), StringComparison.Ordinal);
        Assert.Contains("make `Orders.Quote` and `Orders.SupplierPrice` async", diagnosis.Describe(), StringComparison.Ordinal);
        Assert.Contains(headline.Figures, f => f is { Name: "share of the blocked threads", Value: 52 });
        Assert.Contains(headline.Figures, f => f is { Name: "share of the blocked threads", Value: 48 });
    }

    [Fact]
    public void WithADominantSiteTheHeadlineNamesItAlone()
    {
        var (headline, diagnosis) = Diagnosed(Sampled((Quote, 22), (SupplierPrice, 3)));

        Assert.Equal("Change `Orders.Quote` (Program.cs:40, GET /quotes/{id:int}): it blocks on .Result.", headline.Sentences[0]);
        Assert.DoesNotContain("SupplierPrice", headline.Text, StringComparison.Ordinal);
        Assert.Contains("make `Orders.Quote` async", diagnosis.Describe(), StringComparison.Ordinal);
    }

    /// <summary>
    /// summary.json's stacks carry every comparable site (holding, Top first) beside Top, as the headline names them; with
    /// a dominant site the field is left out, and either way the summary reads back through the contract unchanged.
    /// </summary>
    [Theory]
    [InlineData(13, 12, 2)]
    [InlineData(9, 8, 3)]
    [InlineData(22, 3, 1)]
    public void TheSummaryCarriesEveryComparableSiteBesideTop(int quoteThreads, int supplierThreads, int holding)
    {
        var sites = holding == 3 ? Sampled((Quote, quoteThreads), (SupplierPrice, supplierThreads), (Audit, supplierThreads)) : Sampled((Quote, quoteThreads), (SupplierPrice, supplierThreads));
        var report = SyntheticReports.LoadRun("fanout", ["sync"], 10, 5, (_, _) => 100);
        var observed = SyntheticReports.Observed(SyntheticReports.StarvingAdjustments(3, 2)) with { Stacks = sites };

        var summary = (report with { Observations = new Dictionary<string, VariantObservation> { ["sync"] = observed } }).Analysed();
        var stacks = summary.Observations["sync"].Stacks!;

        Assert.Equal("Orders.Quote", stacks.Top!.Source!.Method);
        if (holding > 1)
        {
            Assert.Equal(sites.Holding.Select(BlockingSites.MethodOf), stacks.Holding!.Select(s => s.Source!.Method));
            Assert.Equal(sites.Holding.Select(s => s.Source!.Line!.Line), stacks.Holding!.Select(s => s.Source!.Line!.Line));
        }
        else
        {
            Assert.Null(stacks.Holding);
        }
        var json = summary.ToJson();
        Assert.Equal(holding > 1, json.Contains("\"holding\"", StringComparison.Ordinal));
        Assert.True(System.Text.Json.Nodes.JsonNode.DeepEquals(System.Text.Json.Nodes.JsonNode.Parse(json), System.Text.Json.Nodes.JsonNode.Parse(ConcurrencySandbox.Contracts.Reports.RunSummary.Parse(json).ToJson())));
    }

    /// <summary>A method merged from two lines keeps both in summary.json (lines), beside its call site's one.</summary>
    [Fact]
    public void TheSummaryKeepsEveryLineOfAMergedMethod()
    {
        var at70 = SupplierPrice with { Queued = false, Line = new SourceLine("/src/SampleService/Program.cs", 48) };
        var report = SyntheticReports.LoadRun("fanout", ["sync"], 10, 5, (_, _) => 100);
        var observed = SyntheticReports.Observed(SyntheticReports.StarvingAdjustments(3, 2)) with { Stacks = Sampled((SupplierPrice, 12), (at70, 9)) };

        var top = (report with { Observations = new Dictionary<string, VariantObservation> { ["sync"] = observed } }).Analysed().Observations["sync"].Stacks!.Top!;

        Assert.Equal(21, top.Threads);
        Assert.Equal([47, 48], top.Lines!.Select(l => l.Line));
    }

    /// <summary>watch's episode names every comparable site, in its line, its fix and watch.json's call sites, as the run's headline does; a dominant one alone.</summary>
    [Theory]
    [InlineData(13, 12, 2)]
    [InlineData(22, 3, 1)]
    public void AWatchEpisodeNamesEveryComparableSite(int quoteThreads, int supplierThreads, int named)
    {
        var sites = Sampled((Quote, quoteThreads), (SupplierPrice, supplierThreads));
        var episode = new StarvationEpisode(2, 9, true, 4, 10, 40, 60, 3, 5, []);

        var diagnosis = EpisodeDiagnosis.Of(episode, sites);
        var line = ConcurrencySandbox.LoadTests.Cli.WatchReport.Line(1, episode, diagnosis);
        var written = ConcurrencySandbox.LoadTests.Cli.WatchReport.Of(
            DiagnosticsChannel.OfProcess(Environment.ProcessId), DateTimeOffset.UnixEpoch, 20, "stopped", false, [], [], [episode], [diagnosis], 0).Episodes.Single();

        Assert.Equal(named, diagnosis.Holding.Count == 0 ? 1 : diagnosis.Holding.Count);
        Assert.Contains("Orders.Quote", line, StringComparison.Ordinal);
        Assert.Equal(named == 2, line.Contains("Orders.SupplierPrice", StringComparison.Ordinal));
        Assert.Equal(named == 2, diagnosis.Fix!.Contains("Orders.SupplierPrice", StringComparison.Ordinal));
        Assert.Equal("Orders.Quote", written.CallSite!.Method);
        Assert.Equal(named == 2 ? ["Orders.Quote", "Orders.SupplierPrice"] : null, written.CallSites?.Select(c => c.Method).ToArray());
    }

    /// <summary>The headline and the diagnosis of InlinedHelper's recorded break at 32 users, its stack sample replaced by <paramref name="sites"/>.</summary>
    private static (Headline Headline, StarvationDiagnosis Diagnosis) Diagnosed(BlockingSites sites)
    {
        var broke = RecordedBreak.InlinedHelperAt32Users with { Sites = sites };
        var diagnosis = broke.Diagnose();
        var observation = broke.Observed(diagnosis);
        var finding = new CapacityFinding("users", new ServiceSlo(409.8, "SLO p99 409.8 ms"), 28, 32, "p99 507.1 ms", CapacityFinding.CauseOf(broke.Result, observation, 204.9, null), null, null, broke.Result.Total);
        return (Headline.Of(finding, observation), diagnosis);
    }

    /// <summary>A stack sample of pool threads parked at each call site (the request's own for the first, queued work's for the others), with 2 idle ones.</summary>
    private static BlockingSites Sampled(params (BlockingCall Call, int Threads)[] sites)
    {
        var parked = sites.Select(s => new BlockingSite($"{s.Call.Method} -> Task.InternalWait", s.Threads, InUserCode: true, InRequest: !s.Call.Queued, s.Call))
            .OrderByDescending(s => s.Threads)
            .Append(new BlockingSite(BlockingSites.NoUserCode, 2, InUserCode: false))
            .ToList();
        return new BlockingSites(parked.Sum(s => s.Threads), parked.Sum(s => s.Threads) + 8, parked);
    }
}
