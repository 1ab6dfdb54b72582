using System.Globalization;
using System.Text.RegularExpressions;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Running;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// A headline read in ten seconds (issue 37 item 7): on seeded diagnoses of every kind, at most four sentences of at
/// most 25 words, and every figure it prints one of its figures (summary.json's <c>headlineFigures</c>), each equal to
/// the field of the finding or diagnosis the summary writes it from.
/// </summary>
public sealed partial class HeadlineTests
{
    // A sentence ends with its stop and a space before the next one's capital (a method's "Orders.Get" has no space).
    [GeneratedRegex(@"(?<=[.!?])\s+(?=[A-Z])")]
    private static partial Regex SentenceBreak();

    // A number standing alone ("60", "507.1", the 22 of "Orders.cs:22"), not one inside a name ("p99", "SHA256").
    [GeneratedRegex(@"(?<![\w.])\d+(?:\.\d+)?(?!\w)")]
    private static partial Regex Number();

    public static TheoryData<string> Seeds => ["starvation", "cpu-bound", "cpu-bound, no dominant method", "upstream", "upstream, traced", "not observed", "held", "latency held", "ambiguous", "lock", "gc", "gc, not sampled", "a cause found later", "a weak finding", "two sites", "three sites", "five sites"];

    [Theory]
    [MemberData(nameof(Seeds))]
    public void TheHeadlineIsAtMostFourShortSentencesAndPrintsOnlyTheSummarysFigures(string seed)
    {
        var (finding, observation, sources) = Seeded(seed);

        var headline = Headline.Of(finding, observation);

        var sentences = SentenceBreak().Split(headline.Text);
        Assert.Equal(headline.Sentences, sentences);
        Assert.InRange(sentences.Length, 1, Headline.MostSentences);
        foreach (var sentence in sentences)
        {
            Assert.True(sentence.Split(' ', StringSplitOptions.RemoveEmptyEntries).Length <= Headline.MostWords, $"{sentence.Split(' ').Length} words: {sentence}");
        }
        var printed = Number().Matches(headline.Text).Select(m => double.Parse(m.Value, CultureInfo.InvariantCulture)).Order().ToList();
        Assert.Equal(printed, headline.Figures.Select(f => f.Value).Order());
        foreach (var figure in headline.Figures)
        {
            var fields = sources.Where(f => f.Name == figure.Name).Select(f => f.Value).ToList();
            Assert.True(fields.Count > 0, $"'{figure.Name}' has no field in the summary: {headline.Text}");
            // Printed to a tenth, or whole: requests/s and predicted loads.
            var whole = figure.Unit == "requests/s" || figure.Name is "async capacity" or "capacity at the minimum";
            Assert.True(fields.Any(f => Math.Abs(f - figure.Value) <= (whole ? 0.5 : 0.05)), $"{figure.Name}: {figure.Value} printed, {string.Join(" or ", fields)} in the summary");
        }
        Assert.DoesNotContain(" 0 ms", headline.Text, StringComparison.Ordinal);
    }

    [Fact]
    public void EachCauseLeadsWithWhatToChangeAndWhere()
    {
        Assert.Equal("Change `Blocking.DoBlocking` (Program.cs:14, GET /orders/{id:int}): it blocks on .Result.", Headline.Of(Seeded("starvation").Finding, Seeded("starvation").Observation).Sentences[0]);
        Assert.StartsWith("Make `RiskModel.Score` (Program.cs:24, GET /risk/{id:int}) cheaper: it ran in 80 % of the CPU samples.", Headline.Of(Seeded("cpu-bound").Finding, Seeded("cpu-bound").Observation).Text);
        Assert.StartsWith("Change the blocking call in one of 5 methods, unsure which: Quotes.Nap (Quotes.cs:12), Invoices.Nap (Invoices.cs:40), Reports.Nap (Reports.cs:9), and 2 more below.",
            Headline.Of(Seeded("ambiguous").Finding, Seeded("ambiguous").Observation).Text);
        Assert.StartsWith("No method of the service to change", Headline.Of(Seeded("upstream").Finding, Seeded("upstream").Observation).Text);
        Assert.EndsWith("Unsure which dependency: the runner does not see the service's outgoing calls.", Headline.Of(Seeded("upstream").Finding, Seeded("upstream").Observation).Text, StringComparison.Ordinal);
        // Issue 38, a dependency that is not HTTP (a raw TCP store): the calls were traced and there were none, which is said.
        var notHttp = Seeded("upstream").Observation! with { Causes = new CauseTrace(1, null, []) { CallsSeconds = 2 } };
        Assert.EndsWith("Unsure which dependency: the service made no HTTP call while traced, so it waits on something else (a database, a queue, a socket).", Headline.Of(Seeded("upstream").Finding, notHttp).Text, StringComparison.Ordinal);
        var traced = Headline.Of(Seeded("upstream, traced").Finding, Seeded("upstream, traced").Observation).Text;
        Assert.Contains("Sure which dependency: the runner traced the service's outgoing calls", traced, StringComparison.Ordinal);
        Assert.DoesNotContain("5391", traced, StringComparison.Ordinal);
        Assert.StartsWith($"The first cause at the break is {CapacityFinding.WaitInside}; its evidence is below. Held 28 users; broke at 32 users, by {CapacityFinding.WaitInside}:", Headline.Of(Seeded("a cause found later").Finding, Seeded("a cause found later").Observation).Text);
        var gc = Headline.Of(Seeded("gc").Finding, Seeded("gc").Observation);
        Assert.Equal("Allocate less in `StatementBuilder.Build` (Program.cs:34, GET /api/Statements/{account:int}): it allocated 100 % of the sampled bytes, about 2.04 MB per request.", gc.Sentences[0]);
        Assert.Contains("broke at 32 users, by the GC:", gc.Sentences[1], StringComparison.Ordinal);
        Assert.Equal("Fix: allocate less per request (reuse buffers, stream the output): the GC took 17 % of the break's time.", gc.Sentences[2]);
        Assert.Equal("Sure: from 1560 allocation samples of the service at the break.", gc.Sentences[3]);
        Assert.StartsWith("Allocate less per request: the GC's work held the break, and which methods allocate was not sampled (below).", Headline.Of(Seeded("gc, not sampled").Finding, Seeded("gc, not sampled").Observation).Text);
        // A GC whose pauses were 3 % of the step came first when the busy machine's CPU was not read as the limit: not named the cause.
        var weak = Headline.Of(Seeded("a weak finding").Finding, Seeded("a weak finding").Observation);
        Assert.Equal("No clear cause of the break: the heaviest finding, GC, accounts for 3.3 % of it; the findings are below.", weak.Sentences[0]);
        Assert.StartsWith("Held 28 users; broke at 32 users: p99", weak.Sentences[1]);
        Assert.StartsWith("Unsure of the cause", weak.Sentences[^1]);
        var cpu = Headline.Of(Seeded("cpu-bound").Finding, Seeded("cpu-bound").Observation).Text;
        Assert.DoesNotContain("async", cpu, StringComparison.Ordinal);
        Assert.DoesNotContain("minimum", cpu, StringComparison.Ordinal);
    }

    /// <summary>
    /// The cold service Reports (a background service starving the pool, 2026-11-29): its stack sample was taken, ended after
    /// the load did and named nothing, and the headline said "no stack sample was taken".
    /// </summary>
    [Fact]
    public void AStackSampleThatNamedNothingIsNotSaidNeverTaken()
    {
        var (finding, observation, _) = Seeded("starvation");
        var unnamed = observation! with { Stacks = null, StacksNote = "the stack sample ended after the load did (3.7 s of it were left at the peak) and found no pool thread in user code, so it names no call site" };

        var headline = Headline.Of(finding, unnamed);

        Assert.Equal("Change the blocking call the pool's threads wait in: the stack sample did not catch it (below).", headline.Sentences[0]);
        Assert.Equal("Unsure of the place: the stack sample named no call site (why is below).", headline.Sentences[^1]);
    }

    private sealed record Seed(CapacityFinding Finding, VariantObservation? Observation, IReadOnlyList<(string Name, double Value)> Sources);

    [Theory]
    // Pricing under --find-capacity (2026-11-29): one waiter of three sampled threads headed "Sure".
    [InlineData("lock", 1, 3, "Unsure: only 1 of 3 sampled pool threads waited for it.")]
    [InlineData("lock", 2, 3, "Fairly sure: 2 of 3 sampled pool threads waited for it.")]
    [InlineData("lock", 1, 2, "Fairly sure: 1 of 2 sampled pool threads waited for it.")]
    [InlineData("lock", 7, 8, "Sure: 7 of 8 sampled pool threads waited for it.")]
    [InlineData("lock", 40, 43, "Sure: 40 of 43 sampled pool threads waited for it.")]
    // The starvation sentence said "Sure" of any half of the sampled threads (1 of 2 included), "Fairly sure" of fewer.
    [InlineData("starvation", 1, 2, "Fairly sure: 1 of 2 sampled pool threads waited there.")]
    [InlineData("starvation", 5, 12, "Unsure: only 5 of 12 sampled pool threads waited there.")]
    [InlineData("starvation", 40, 43, "Sure: 40 of 43 sampled pool threads waited there.")]
    public void TheSureSentenceIsSureOnlyOfAMajorityOfTheSampledThreadsBeyondTheSamplesNoise(string seed, int waiters, int sampled, string sure)
    {
        Assert.Equal(sure, Headline.Of(Seeded(seed).Finding, Sampled(seed, waiters, sampled, new Random(waiters))).Sentences[^1]);
    }

    [Theory]
    [InlineData("lock", "waited for it.")]
    [InlineData("starvation", "waited there.")]
    public void OnSeededStacksTheSureSentenceNeverSaysSureOfAMinorityOrOfAFewThreads(string cause, string waited)
    {
        for (var seed = 0; seed < 500; seed++)
        {
            var random = new Random(seed);
            var sampled = random.Next(1, 80);
            var waiters = random.Next(1, sampled + 1);

            var sure = Headline.Of(Seeded(cause).Finding, Sampled(cause, waiters, sampled, random)).Sentences[^1];

            var word = sure[..sure.IndexOf(':', StringComparison.Ordinal)];
            Assert.EndsWith(Invariant($" {waiters} of {sampled} sampled pool threads {waited}"), sure, StringComparison.Ordinal);
            // Under half is never sure of the place; at least half, with too few threads to rule out fewer, only fairly.
            Assert.Equal(2 * waiters < sampled, word == "Unsure");
            Assert.False(word == "Sure" && (sampled < 4 || ShareInterval.Of(waiters, sampled).Low <= 0.5), $"{word} from {waiters} of {sampled}");
            // Nearly all (the share other causes call all) of a dozen or more: sure.
            Assert.True(word == "Sure" || waiters < BlockingSites.NearlyAllShare * sampled || sampled < 12, $"{word} from {waiters} of {sampled}");
        }
    }

    private static VariantObservation Sampled(string seed, int waiters, int sampled, Random random) =>
        seed == "lock" ? LockSampled(waiters, sampled, random) : StarvationSampled(waiters, sampled);

    /// <summary>The starvation seed's observation with <paramref name="waiters"/> of <paramref name="sampled"/> pool threads parked at its call, the others outside user code.</summary>
    private static VariantObservation StarvationSampled(int waiters, int sampled)
    {
        var observation = Seeded("starvation").Observation!;
        var parked = observation.Stacks!.Top! with { Threads = waiters };
        List<BlockingSite> sites = [parked];
        if (sampled > waiters)
        {
            sites.Add(new BlockingSite(BlockingSites.NoUserCode, sampled - waiters, InUserCode: false));
        }
        return observation with { Stacks = new BlockingSites(sampled, sampled + 4, sites) };
    }

    /// <summary>The lock seed's observation with <paramref name="waiters"/> of <paramref name="sampled"/> pool threads waiting for the lock, the others outside user code or running.</summary>
    private static VariantObservation LockSampled(int waiters, int sampled, Random random)
    {
        var call = new BlockingCall("Inventory.Reserve", BlockingPrimitive.Lock, new SourceLine("/src/LockSleep/Program.cs", 31), "GET /inventory/{id:int}", null, null, null);
        var outside = random.Next(0, sampled - waiters + 1);
        var running = sampled - waiters - outside;
        List<BlockingSite> sites = [new("Inventory.Reserve -> Monitor.Enter", waiters, InUserCode: true, InRequest: true, call)];
        if (running > 0)
        {
            sites.Add(new BlockingSite("Inventory.Reserve", running, InUserCode: true, InRequest: true) { Busy = true });
        }
        if (outside > 0)
        {
            sites.Add(new BlockingSite(BlockingSites.NoUserCode, outside, InUserCode: false));
        }
        return Seeded("lock").Observation! with { Stacks = new BlockingSites(sampled, sampled + 4, sites) };
    }

    private static readonly ServiceSlo Slo = new(409.8, "SLO p99 409.8 ms (2 x the median round's p99 of 204.9 ms (5 rounds of one user, 198.2-230.4 ms))");

    private static Seed Seeded(string seed)
    {
        var broke = RecordedBreak.InlinedHelperAt32Users;
        var finding = new CapacityFinding("users", Slo, 28, 32, "p99 507.1 ms", null, null, "narrowed to within 14 % by 2 bisection steps after the doubling", broke.Result.Total);
        (string, double)[] load = [("held", finding.HeldLoad!.Value), ("broke at", finding.BrokeAt!.Value), ("SLO p99", Slo.P99Ms), ("p99 at the break", broke.Result.Total.P99Ms)];
        switch (seed)
        {
            case "starvation":
            {
                var call = new BlockingCall("Blocking.DoBlocking", BlockingPrimitive.Result, new SourceLine("/src/InlinedHelper/Program.cs", 14), "GET /orders/{id:int}", null, "the lambda in Program (top-level statements)", null);
                var named = broke with { Sites = new BlockingSites(44, 52, [new BlockingSite("the lambda in Program (top-level statements) -> Task.InternalWait", 37, InUserCode: true, InRequest: true, call), new BlockingSite(BlockingSites.NoUserCode, 7, InUserCode: false)]) };
                var diagnosis = named.Diagnose();
                var observation = named.Observed(diagnosis);
                return new Seed(finding with { Cause = CapacityFinding.CauseOf(named.Result, observation, 204.9, null) }, observation, Sources(load, diagnosis, ("line", 14), ("threads there", 37), ("pool threads sampled", 44)));
            }
            case "two sites" or "three sites" or "five sites":
            {
                // Comparable shares of the blocked threads at each site: each named with its share, none picked.
                var counts = seed switch { "two sites" => new[] { 13, 12 }, "three sites" => [9, 8, 8], _ => [6, 5, 5, 5, 5] };
                var parked = counts.Select((threads, i) => new BlockingSite($"Orders.Step{i} -> Task.InternalWait", threads, InUserCode: true, InRequest: true,
                    new BlockingCall($"Orders.Step{i}", BlockingPrimitive.Result, new SourceLine("/src/Program.cs", 40 + i), "GET /quotes/{id:int}", null, null, null))).ToList();
                var named = broke with { Sites = new BlockingSites(counts.Sum() + 2, 60, [.. parked, new BlockingSite(BlockingSites.NoUserCode, 2, InUserCode: false)]) };
                var diagnosis = named.Diagnose();
                var observation = named.Observed(diagnosis);
                return new Seed(finding with { Cause = CapacityFinding.CauseOf(named.Result, observation, 204.9, null) }, observation,
                    Sources(load, diagnosis, [.. counts.Select((threads, i) => ("line", 40.0 + i)), .. counts.Select(threads => ("share of the blocked threads", Math.Round(100.0 * threads / counts.Sum()))),
                        ("threads there", counts.Sum()), ("pool threads sampled", counts.Sum() + 2), ("call sites not listed", counts.Length - 2)]));
            }
            case "ambiguous":
            {
                var listed = new[] { ("Quotes.Nap", "Quotes.cs", 12), ("Invoices.Nap", "Invoices.cs", 40), ("Reports.Nap", "Reports.cs", 9), ("Orders.Nap", "Orders.cs", 7), ("Carts.Nap", "Carts.cs", 3) }
                    .Select(c => new CallStep(c.Item1, new SourceLine($"/src/{c.Item2}", c.Item3))).ToList();
                var call = new BlockingCall($"one of 5: {string.Join(", ", listed)}", BlockingPrimitive.Sleep, null, "GET /orders/{id:int}", null, null, null) { Candidates = 5, Listed = listed };
                var sites = new BlockingSites(8, 10, [new BlockingSite($"{call.Method} -> Thread.Sleep", 8, InUserCode: true, InRequest: true, call)]);
                var diagnosis = StarvationDiagnosis.From(Starved() with { BlockingMethod = sites.MethodToChange, BlockingCandidates = 5 });
                return new Seed(finding with { Cause = "pool starvation (...)" }, Observed(diagnosis) with { Stacks = sites },
                    Sources(load, diagnosis, ("candidates", 5), ("candidates not listed", 2), ("line", 12), ("line", 40), ("line", 9)));
            }
            case "cpu-bound" or "cpu-bound, no dominant method":
            {
                var share = seed == "cpu-bound" ? 0.8 : 0.3;
                var hot = new HotMethod("RiskModel.Score", share, share * 0.9, new SourceLine("/src/CpuHash/Program.cs", 24), null, "GET /risk/{id:int}", 0);
                var diagnosis = StarvationDiagnosis.From(Starved() with { Spell = StarvedSpell.None, BusySite = "3 of 4 pool threads run RiskModel.Score", CpuMsPerRequest = 1.8, StarvationAdjustments = 0, PeakQueueLength = 0 });
                var observation = Observed(diagnosis) with { Hot = new HotMethods(1200, 0.3, [hot]) };
                var buys = HotMethods.Buys(hot, 1200, 1.8, 2)!.Value;
                return new Seed(finding with { Cause = "CPU (the process used 98 % of its 2 cores)" }, observation,
                    Sources(load, diagnosis, ("hot method's CPU share", 100 * share), ("line", 24), ("requests/s without the hot method", buys.WithoutPerSecond), ("requests/s now", buys.NowPerSecond), ("CPU samples", 1200)));
            }
            case "upstream":
            {
                var diagnosis = StarvationDiagnosis.From(Starved() with { Spell = StarvedSpell.None, PoolThreadsAtPeak = 50, StarvationAdjustments = 0, PeakQueueLength = 0 });
                return new Seed(finding with { Cause = "the upstream (p99 grew from 204.9 ms to 507.1 ms while the pool, at 50 threads, was not short and the CPU peaked at 8 %)" }, Observed(diagnosis), Sources(load, diagnosis));
            }
            case "upstream, traced":
            {
                // Issue 38's upstream finding names the call it traced by host:port; the headline must print no number that is not a figure.
                var diagnosis = StarvationDiagnosis.From(Starved() with { Spell = StarvedSpell.None, PoolThreadsAtPeak = 50, StarvationAdjustments = 0, PeakQueueLength = 0 });
                var upstream = new CauseFinding("the upstream", "127.0.0.1:5391/quotes/{id}", "127.0.0.1:5391/quotes/{id}: p99 480 ms at the break", [new("call p99 at the break", 480, "ms")], 0.95);
                return new Seed(finding with { Cause = upstream.Describe(), Findings = [upstream] }, Observed(diagnosis), Sources(load, diagnosis));
            }
            case "not observed":
                return new Seed(finding with { Cause = "cause not known: the runtime was not observed (pid 7 is not a .NET process)" }, null, [.. load]);
            case "held":
            {
                var diagnosis = StarvationDiagnosis.From(Starved() with { Spell = StarvedSpell.None, PoolThreadsAtPeak = 50, StarvationAdjustments = 0, PeakQueueLength = 0 });
                return new Seed(finding with { BrokeAt = null, BrokeBecause = null, Broke = null, HeldLoad = 1024, Bound = "the ramp reached its max load (1024 users, --max-load)" }, Observed(diagnosis), Sources(load, diagnosis, ("held", 1024)));
            }
            case "latency held":
            {
                var diagnosis = StarvationDiagnosis.From(Starved() with { Spell = new StarvedSpell(53.9, 2, 56, 242, 900, 0, 300) });
                return new Seed(finding with { BrokeAt = null, BrokeBecause = null, Broke = null, HeldLoad = 40, Bound = "the profile's peak (40 users); run --find-capacity" }, Observed(diagnosis),
                    Sources(load, diagnosis, ("held", 40), ("starved", 53.9)));
            }
            case "lock":
            {
                var call = new BlockingCall("Inventory.Reserve", BlockingPrimitive.Lock, new SourceLine("/src/LockSleep/Program.cs", 31), "GET /inventory/{id:int}", null, null, null);
                var diagnosis = StarvationDiagnosis.From(Starved() with { Spell = StarvedSpell.None, PoolThreadsAtPeak = 50, StarvationAdjustments = 0, PeakQueueLength = 0 });
                var observation = Observed(diagnosis) with { Stacks = new BlockingSites(8, 20, [new BlockingSite("Inventory.Reserve -> Monitor.Enter", 7, InUserCode: true, InRequest: true, call)]) };
                return new Seed(finding with { Cause = "a contended lock (7 of 8 pool threads wait in Inventory.Reserve ...)" }, observation, Sources(load, diagnosis, ("line", 31), ("threads there", 7), ("pool threads sampled", 8)));
            }
            case "a cause found later":
            {
                // A ranked finding of a kind the headline has no words of its own for (a service with no outgoing connection
                // that waited with cores to spare): named as found.
                var diagnosis = StarvationDiagnosis.From(Starved() with { Spell = StarvedSpell.None, PoolThreadsAtPeak = 50, StarvationAdjustments = 0, PeakQueueLength = 0 });
                var inside = new CauseFinding(CapacityFinding.WaitInside, null, "p99 grew from 204.9 ms to 507.1 ms while the pool, at 50 threads, was not short", [new("p99 at the break", 507.1, "ms")], 0.6);
                return new Seed(finding with { Cause = inside.Describe(), Findings = [inside] }, Observed(diagnosis), Sources(load, diagnosis));
            }
            case "gc" or "gc, not sampled":
            {
                // Issue 38's GC (a controller building a 6,000-entry statement and its JSON a request, never seen by the
                // project, 2026-11-30): the allocating method with its line and route, its bytes per request, the GC's share.
                var diagnosis = StarvationDiagnosis.From(Starved() with { Spell = StarvedSpell.None, PoolThreadsAtPeak = 7, StarvationAdjustments = 0, PeakQueueLength = 2 });
                var gc = new CauseFinding("GC", "StatementBuilder.Build (Program.cs:34)", "the GC paused the process 11.9 % of the step ...", [new("time in GC pauses", 11.9, "%"), new("allocated per request", 2_040_000, "B")], 0.17);
                var allocations = new AllocationSamples(1560, 275_500_000, [new AllocationSite("System.String", 0.65)], [new AllocationSite("StatementBuilder.Build", 1, new SourceLine("/src/Ledger/Program.cs", 34))]);
                var hot = new HotMethod("StatementBuilder.Build", 0.6, 0.1, new SourceLine("/src/Ledger/Program.cs", 37), null, "GET /api/Statements/{account:int}", 0);
                var observation = Observed(diagnosis) with { Hot = new HotMethods(300, 1, [hot]), Causes = seed == "gc" ? new CauseTrace(1, allocations, []) : null };
                List<(string, double)> named = seed == "gc" ? [("line", 34), ("method's share of the sampled bytes", 100), ("MB allocated per request", 2.04), ("allocation samples", 1560)] : [];
                return new Seed(finding with { Cause = gc.Describe(), Findings = [gc] }, observation, Sources(load, diagnosis, [.. named, ("GC's share of the break", 17)]));
            }
            case "a weak finding":
            {
                var diagnosis = StarvationDiagnosis.From(Starved() with { Spell = StarvedSpell.None, PoolThreadsAtPeak = 50, StarvationAdjustments = 0, PeakQueueLength = 0 });
                var gc = new CauseFinding("GC", "RiskModel.Score", "at least 3 % of the break's time was the GC's", [new("time in GC pauses", 3.3, "%")], 0.033);
                return new Seed(finding with { Cause = $"no clear cause: ... {gc.Describe()}", Findings = [gc] }, Observed(diagnosis),
                    Sources(load, diagnosis, ("heaviest finding's share of the break", 3.3), ("share a cause is named from", 100 * CauseFindings.LeastShare)));
            }
            default:
                throw new ArgumentOutOfRangeException(nameof(seed), seed, null);
        }
    }

    /// <summary>The fields the summary writes the headline's figures from: the finding's, the diagnosis's, and those given (a line for each method named).</summary>
    private static List<(string Name, double Value)> Sources((string, double)[] load, StarvationDiagnosis diagnosis, params (string Name, double Value)[] more)
    {
        List<(string Name, double Value)> sources = [.. load, .. more, ("minimum threads", diagnosis.NeededThreads), ("capacity at the minimum", diagnosis.MinimumCapacity)];
        if (diagnosis.AsyncCapacity is { } async)
        {
            sources.Add(("async capacity", async));
        }
        if (diagnosis.Inputs.Spell.Happened)
        {
            sources.Add(("starved", diagnosis.Inputs.Spell.StarvedSeconds));
        }
        return sources;
    }

    private static DiagnosisInputs Starved() => new(16, "the peak's users", 1, 10, 2, 60, 3, "a call site")
    {
        Spell = new StarvedSpell(6, 0, 6, 12, 16, 0, 900),
        ProcessorCount = 2,
        HoldMs = 100,
        CpuMsPerRequest = 2,
    };

    private static VariantObservation Observed(StarvationDiagnosis diagnosis) => new("pid 1", 5, 1, [], null, null, diagnosis, null);
}
