using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>The upstream at a break: the outgoing call whose p99 grew, whether its connection pool was the limit, and what is said when no HTTP call explains it.</summary>
public sealed class UpstreamFindingTests
{
    private const string Quotes = "pricing:5001/quotes/{id}";

    [Theory]
    [InlineData("/quotes/42?currency=EUR", "pricing:5001/quotes/{id}")]
    [InlineData("/orders/3f2504e0-4f89-11d3-9a0c-0305e82c3301/lines/7", "pricing:5001/orders/{id}/lines/{id}")]
    [InlineData("/v2/quotes", "pricing:5001/v2/quotes")]
    public void ACallIsNamedByItsHostPortAndPathWithItsIdsFolded(string pathAndQuery, string call)
    {
        Assert.Equal(call, CauseTrace.CallName("pricing", 5001, pathAndQuery));
    }

    [Fact]
    public void TheCallWhoseP99GrewIsNamedWithItsLatencyBeforeAndAtTheBreakAndItsPoolAsTheLimit()
    {
        var atBreak = Call(p99Ms: 840, queued: 230, meanQueueMs: 400);
        var lowest = new LowerStep(Step(p99Ms: 260), Observed(new CauseTrace(1, null, [Call(p99Ms: 250, queued: 0, meanQueueMs: 0)])));

        var findings = CapacityFinding.FindingsAt(Step(p99Ms: 900), Observed(new CauseTrace(1, null, [atBreak])), 100, lowest);

        var upstream = Assert.Single(findings);
        Assert.Equal(("the upstream", Quotes), (upstream.Cause, upstream.Place));
        Assert.Contains("p99 250 ms at 16 users, 840 ms at the break", upstream.Evidence);
        Assert.Contains("the service's connection pool to it was the limit: 230 of 240 calls waited for a connection, 400 ms on average", upstream.Evidence);
        Assert.Equal(840 / 900.0, upstream.Weight, 3);
    }

    [Fact]
    public void ACallThatWaitedLittleForAConnectionSaysThePoolWasNotTheLimit()
    {
        var findings = CapacityFinding.FindingsAt(Step(p99Ms: 900), Observed(new CauseTrace(1, null, [Call(p99Ms: 840, queued: 3, meanQueueMs: 2)])), 100);

        Assert.Contains("the service's connection pool to it was not the limit (3 of 240 calls waited for a connection, 0 % of the calls' time)", Assert.Single(findings).Evidence);
    }

    [Fact]
    public void ACallWhoseP99NeitherGrewNorMakesUpHalfTheBreaksIsNotTheCauseAndTheUpstreamIsLeftUnnamed()
    {
        var lowest = new LowerStep(Step(p99Ms: 260), Observed(new CauseTrace(1, null, [Call(p99Ms: 250, queued: 0, meanQueueMs: 0)])));

        var upstream = Assert.Single(CapacityFinding.FindingsAt(Step(p99Ms: 900), Observed(new CauseTrace(1, null, [Call(p99Ms: 300, queued: 0, meanQueueMs: 0)])), 100, lowest));
        var named = Assert.Single(CapacityFinding.FindingsAt(Step(p99Ms: 900), Observed(new CauseTrace(1, null, [Call(p99Ms: 460, queued: 0, meanQueueMs: 0)])), 100, lowest));

        Assert.Null(upstream.Place);
        Assert.Contains("no outgoing HTTP call's p99 grew toward the break nor made up half of it", upstream.Evidence);
        // Grown 1.8 x, or over half the break's p99 whatever it was before: named.
        Assert.Equal(Quotes, named.Place);
    }

    [Fact]
    public void ADependencyThatIsNotHttpIsSaidNotNamed()
    {
        var upstream = Assert.Single(CapacityFinding.FindingsAt(Step(p99Ms: 900), Observed(new CauseTrace(1, null, [])), 100));

        Assert.Null(upstream.Place);
        Assert.Contains("no outgoing HTTP call in the step's trace (System.Net.Http's events), so what it waits on is not reached over HttpClient (a database, a queue, a socket) and is not named", upstream.Evidence);
    }

    [Fact]
    public void ARuntimeThatRefusedTheTraceLeavesTheCauseToTheCountersAndSaysSo()
    {
        const string refused = "the runtime refused the allocation and HTTP trace (ServerErrorException: ...), so GC and the upstream are named from the counters only";

        var upstream = Assert.Single(CapacityFinding.FindingsAt(Step(p99Ms: 900), Observed(null) with { CauseTraceNote = refused }, 100));

        Assert.Equal("the upstream", upstream.Cause);
        Assert.EndsWith($"which call is not known: {refused}", upstream.Evidence);
    }

    private static UpstreamCall Call(double p99Ms, int queued, double meanQueueMs) =>
        new(Quotes, 240, p99Ms / 2, p99Ms / 3, p99Ms, queued, meanQueueMs, new Dictionary<int, int> { [200] = 240 });

    /// <summary>A step of 16 users at 20 % CPU whose p99 was <paramref name="p99Ms"/>.</summary>
    private static VariantResult Step(double p99Ms)
    {
        var key = new VariantKey("16-users");
        var telemetry = new[] { 20.0, 20.0 }.Select((cpu, i) => new TelemetryRow(key, i + 1, default(RuntimeSnapshot) with { Process = new ProcessTelemetry(0, cpu, 0, 0) })).ToList();
        return new VariantResult(key, "/x", "users", 5, [new IntervalRow(key, 1, "users", 16, 100, TestStats.Uniform(100, p99Ms / 3, p99Ms: p99Ms))], telemetry, TestStats.Uniform(100, p99Ms / 3, p99Ms: p99Ms));
    }

    /// <summary>A pool that was not short, a stack sample with no pool thread in user code, and <paramref name="causes"/>.</summary>
    private static VariantObservation Observed(CauseTrace? causes)
    {
        var diagnosis = StarvationDiagnosis.From(new DiagnosisInputs(16, "the peak's users", 1, 50, 2, 0, 0, null) { ProcessorCount = 2 });
        return new VariantObservation("pid 1", 5, 1, [], null, null, diagnosis, null) { Causes = causes };
    }
}
