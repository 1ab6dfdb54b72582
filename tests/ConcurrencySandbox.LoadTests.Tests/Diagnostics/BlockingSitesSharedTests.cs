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
