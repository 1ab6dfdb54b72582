using System.Runtime.CompilerServices;
using System.Text.RegularExpressions;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Right, or honestly unsure (issue 37): when several methods could be the one that blocks, the call site lists them all
/// and the headline says it is unsure; a figure that was not measured is left out with its reason, never printed as 0.
/// </summary>
public sealed partial class HonestlyUnsureTests
{
    // What the shared before-stop hook refuses in a committed report.
    [GeneratedRegex(@"(whole|for its) 0 ms wait|about 0 users")]
    private static partial Regex ZeroFigure();

    // Two methods of this assembly that make the same blocking call: a stack with no application frame cannot tell them apart.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void NapBeforeQuote() => Thread.Sleep(0);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void NapBeforeInvoice() => Thread.Sleep(0);

    [Fact]
    public void AWaitWithNoApplicationFrameThatSeveralMethodsMakeListsThemAllAndPicksNone()
    {
        NapBeforeQuote();
        NapBeforeInvoice();
        var stack = new ThreadStack(1,
        [
            "UNMANAGED_CODE_TIME", "System.Threading.Thread.SleepInternal", "System.Threading.Thread.Sleep", "dynamicClass.lambda_method7",
            "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke", "System.Threading.ThreadPoolWorkQueue.Dispatch", "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart",
        ]);
        using var resolver = new CallSiteResolver();

        var call = resolver.ResolveInlinedAway(stack, [typeof(HonestlyUnsureTests).Assembly.Location])!;

        var listed = Regex.Match(call.Method, @"^one of (?<n>\d+): ");
        Assert.True(listed.Success, call.Method);
        Assert.True(int.Parse(listed.Groups["n"].Value, System.Globalization.CultureInfo.InvariantCulture) >= 2, call.Method);
        Assert.Matches(@"HonestlyUnsureTests\.NapBeforeQuote \(HonestlyUnsureTests\.cs:\d+\)", call.Method);
        Assert.Matches(@"HonestlyUnsureTests\.NapBeforeInvoice \(HonestlyUnsureTests\.cs:\d+\)", call.Method);
        // No line of its own: that would be the first method's.
        Assert.Null(call.Line);
        Assert.DoesNotContain("the first is named", call.Note);

        var sites = new BlockingSites(4, 6, [new BlockingSite($"{call.Method} -> {call.Primitive}", 4, InUserCode: true, InRequest: true, call)]);
        var diagnosis = StarvationDiagnosis.From(Starved() with { BlockingMethod = sites.MethodToChange, BlockingCandidates = call.Candidates, CallSite = sites.Describe(sites.Top!) });
        var finding = new CapacityFinding("users", new ServiceSlo(200, "SLO p99 200 ms"), 2, 4, "p99 900 ms", "pool starvation (...)", null);
        var headline = Headline.Of(finding, new VariantObservation("pid 1", 5, 1, [], sites, null, diagnosis, null));
        Assert.StartsWith($"Change the blocking call in one of {call.Candidates} methods, unsure which: ", headline.Sentences[0]);
        Assert.Contains($"make the blocking call async in whichever it is of one of {call.Candidates}: ", diagnosis.Describe());
        Assert.DoesNotContain("`", headline.Sentences[0]);
        Assert.StartsWith("Unsure which:", headline.Sentences[^1]);
    }

    [Theory]
    // A random 0-9 s delay whose fastest request waited nothing, and one that answered within a fraction of a millisecond.
    [InlineData(0.0)]
    [InlineData(0.3)]
    public void AWaitTheFastestRequestDoesNotShowIsLeftOutWithItsReasonNotPrintedAsZero(double fastestMs)
    {
        var diagnosis = StarvationDiagnosis.From(Starved() with { HoldMs = fastestMs, CpuMsPerRequest = 3, ProcessorCount = 2 });

        var paragraph = diagnosis.Describe();

        Assert.DoesNotMatch(ZeroFigure(), paragraph);
        Assert.Contains("how long it holds a pool thread is not known", paragraph);
        Assert.Contains("what async buys is not predicted", paragraph);
        Assert.Null(diagnosis.AsyncCapacity);
        // A wait the fastest request does show is still said, with what async buys.
        var measured = StarvationDiagnosis.From(Starved() with { HoldMs = 500, CpuMsPerRequest = 2, ProcessorCount = 2 }).Describe();
        Assert.Contains("it holds a pool thread for its whole 500 ms wait", measured);
        Assert.Contains("about 500 users", measured);
    }

    [Fact]
    public void AQueueEmptyAtEverySampleOfAStarvedStepIsNotSaidToHavePeakedAtZero()
    {
        // InlinedHelper's 32-users break: the pool caught up between two counter samples, so no sample saw its queue.
        var broke = RecordedBreak.InlinedHelperAt32Users;
        var diagnosis = broke.Diagnose();

        var cause = CapacityFinding.CauseOf(broke.Result, broke.Observed(diagnosis), 204.9, null);

        Assert.True(diagnosis.Starved);
        Assert.DoesNotContain("peaked at 0", cause);
        Assert.DoesNotContain("peaked at 0", diagnosis.Describe());
        Assert.Contains("the queue was empty at every counter sample, one a second, so how long it grew between them is not known", cause);
    }

    /// <summary>A starved step of 16 users: 10 pool threads for a need of 16, 6 s starved.</summary>
    private static DiagnosisInputs Starved() => new(16, "the peak's users", 1, 10, 2, 12, 0, null)
    {
        Spell = new StarvedSpell(6, 0, 6, 12, 16, 0, 900),
        BlockingMethod = "Orders.Get",
        ProcessorCount = 2,
        CpuMsPerRequest = 2,
    };
}
