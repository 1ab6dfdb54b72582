using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;
using Microsoft.Extensions.Time.Testing;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Issue 37's last clause: the quick run and --find-capacity agree on whether and where a service broke. The quick profile
/// put 4 users on at once at each step; a blocking service's pool, grown for the step before, starved for the step's first
/// seconds, and in a 6-s step of 117-191 requests those few were well over 1 %: Reports (a Task.WaitAll on three 120 ms
/// sections, written cold) "broke at 4 users" in the quick run where the search, climbing to each load at the quick
/// profile's pace, held 32. Against a URL the quick profile now reaches each step by that climb and is judged over its hold.
/// </summary>
public sealed class QuickClimbTests
{
    private const int Seeds = 40;

    /// <summary>The quick profile's users between two steps: "within one step" of each other.</summary>
    private const double QuickStepUsers = 4;

    private static readonly LoadShape Quick = Profiles.Create(Profiles.Quick, 1);

    private static readonly CapacityOptions Search = new(null, Open: false, StartLoad: 2, MaxLoad: 40, TimeSpan.FromSeconds(CapacityOptions.DefaultStepSeconds), TimeSpan.FromHours(1));

    [Fact]
    public void TheQuickProfileAgainstAUrlClimbsToEachStepAtTheSearchsPaceAndHoldsItAsLongAsBefore()
    {
        var (load, held) = UrlCommand.ClimbingToQuickSteps(UrlCommand.UnloadedFirst(new LoadOptions(Quick, Profiles.Quick, TimeSpan.FromSeconds(30), 100)), agents: false);
        var steps = load.Shape.Steps;

        // Each of the profile's loads held as long as before (the one-user baseline 10 s, each step 6 s), each reached by a climb.
        Assert.NotNull(held);
        var holds = held.Select(i => steps[i]).ToList();
        Assert.Equal([1.0, .. Quick.Steps.Select(s => s.Target)], holds.Select(s => s.Target));
        Assert.Equal([TimeSpan.FromSeconds(CapacityOptions.DefaultStepSeconds), .. Quick.Steps.Select(s => s.During)], holds.Select(s => s.During));
        var before = 0.0;
        var climbSeconds = 0.0;
        for (var i = 0; i < steps.Count; i++)
        {
            var step = steps[i];
            // One user at a time, never a jump; the climb's users stay below the load it climbs to.
            Assert.True(step.Target - before <= 1 || held.Contains(i), $"{step} after {before} users");
            Assert.IsType<KeepConstant>(step);
            if (held.Contains(i))
            {
                // The climb to this load (from the hold before it): no faster than the search's pace, and whole reporting intervals.
                var users = step.Target - holds.TakeWhile(h => h != step).Select(h => h.Target).DefaultIfEmpty(0).Last();
                Assert.True(users <= 1 || climbSeconds >= users / CapacityOptions.QuickUsersPerSecond - 1e-6, $"{users} users climbed in {climbSeconds} s to {step.Target}");
                Assert.Equal(0, climbSeconds % Quick.ReportingInterval.TotalSeconds, 6);
                // Its last user arrived an interval before the hold: that settling interval, at the hold's load, is not judged.
                Assert.True(users <= 1 || (steps[i - 1].Target == step.Target && steps[i - 1].During == Quick.ReportingInterval && !held.Contains(i - 1)), $"no settling interval before {step}");
                climbSeconds = 0;
            }
            else
            {
                climbSeconds += step.During.TotalSeconds;
            }
            before = step.Target;
        }
        // The climb to 4 users from none, its settling interval included, is the search's own step at 4 users, segment for segment.
        var (fromNone, heldFromNone) = CapacityOptions.ClimbingTo(Quick);
        Assert.Equal(Search.ShapeAt(4).Steps.SkipLast(1), fromNone.Steps.Take(heldFromNone.First()));
        // The experiments' quick profile is untouched: one minute, 4 users put on at each step.
        Assert.Equal(TimeSpan.FromMinutes(1), Profiles.Create(Profiles.Quick, 1).Duration);
    }

    [Fact]
    public void AConfigShapeAnotherProfileAndAgentsKeepTheirShapeEveryStepJudged()
    {
        foreach (var (name, agents) in new[] { ("seed003", false), ("config quick.json", false), (Profiles.Quick, true) })
        {
            var load = new LoadOptions(Quick, name, TimeSpan.FromSeconds(30), 100);
            var (kept, held) = UrlCommand.ClimbingToQuickSteps(load, agents);
            Assert.Same(load, kept);
            Assert.Null(held);
        }
    }

    [Fact]
    public async Task OnSeededPoolsThatStarveAtAJumpTheQuickRunAndTheSearchAgreeWithinOneStepWhereTheJumpsDidNot()
    {
        var jumpsDisagreed = 0;
        var seen = new List<string>();
        for (var seed = 0; seed < Seeds; seed++)
        {
            var service = PoolModel.Of(new Random(seed));
            var why = $"seed {seed}: {service}";

            var search = await SearchAsync(service);
            var climbed = service.Quick(climb: true);
            var jumped = service.Quick(climb: false);

            why += $"; search held {search.Held}, broke at {search.Broke?.Load}; quick held {climbed.HeldLoad}, broke at {climbed.BrokeAt}; with jumps held {jumped.HeldLoad}, broke at {jumped.BrokeAt}";
            Assert.True(search.Broke is not null == climbed.BrokeAt is not null, why);
            if (search.Broke is { } broke && climbed.BrokeAt is { } quickBroke)
            {
                Assert.True(Math.Abs(broke.Load - quickBroke) <= QuickStepUsers, why);
            }
            seen.Add(why);
            jumpsDisagreed += search.Broke is { } b && jumped.BrokeAt is { } j && Math.Abs(b.Load - j) <= QuickStepUsers ? 0 : 1;
        }
        // The same services under the old shape (4 users at once, each step judged whole): the jump's spell broke them early.
        Assert.True(jumpsDisagreed >= Seeds * 3 / 4, $"{jumpsDisagreed} of {Seeds} disagreed with 4 users put on at once: {string.Join(Environment.NewLine, seen)}");
    }

    /// <remarks>
    /// Not "the two agree on all 40": on this model they agree within a step on 21 of 40 once settled (15 of 40 before, mostly
    /// by both breaking low). Each of the 19 others broke lower in the search (at 5-30 users, the quick run at 16-36), all on
    /// pools adding a thread no faster than every 0.6-1 s: a search step climbs from 1 user on a fresh pool at 0.67 users/s,
    /// 1.3-2 threads/s for 2-3 threads a user, faster than such a pool grows, while the quick run reaches each load from the
    /// pool its step before grew, 4 users every 16 s. The state each step starts from (issue 37 item 6), not the settling;
    /// open (docs/notebook/diagnostics.md, 2026-12-01, s62, quick37). What the settling fixes is asserted here.
    /// </remarks>
    [Fact]
    public async Task OnSeededServicesNeedingTwoOrThreePoolThreadsAUserTheQuickRunNoLongerBreaksOnItsLastUsersArrival()
    {
        // Reports (s60) needed 2.3 pool threads a user: the climb's last user arrived as the hold began, the pool took more
        // than the 2 s between users to grow for it, and that spell broke a 6-s quick hold where a 10-s search hold held.
        var (unexpected, ununexpected, lowerSearch) = (new List<string>(), new List<string>(), new List<string>());
        var (agreed, unsettledAgreed) = (0, 0);
        for (var seed = 0; seed < Seeds; seed++)
        {
            var service = PoolModel.Of(new Random(seed), nested: true);

            var (search, quick) = (await SearchAsync(service), service.Quick(climb: true));
            var (unsettledSearch, unsettledQuick) = (await SearchAsync(service, settle: false), service.Quick(climb: true, settle: false));

            var why = $"seed {seed}: {service}; search held {search.Held}, broke at {search.Broke?.Load}; quick held {quick.HeldLoad}, broke at {quick.BrokeAt}"
                + $"; unsettled: search broke at {unsettledSearch.Broke?.Load}, quick at {unsettledQuick.BrokeAt}";
            // Broke at its first step (4 users) where the search held twice that: the first hold's arrival spell, not the service's limit.
            (BrokeOnArrival(quick, search) ? unexpected : []).Add(why);
            (BrokeOnArrival(unsettledQuick, search) ? ununexpected : []).Add(why);
            (Agree(search, quick) ? [] : search.Broke?.Load < quick.BrokeAt ? lowerSearch : unexpected).Add(why);
            agreed += Agree(search, quick) ? 1 : 0;
            unsettledAgreed += Agree(unsettledSearch, unsettledQuick) ? 1 : 0;
        }
        Assert.True(unexpected.Count == 0, string.Join(Environment.NewLine, unexpected));
        // The same services with each climb's last user arriving as its hold begins (s60's shape): the quick run broke there.
        Assert.True(ununexpected.Count >= Seeds / 2, $"{ununexpected.Count} of {Seeds} broke on arrival unsettled: {string.Join(Environment.NewLine, ununexpected)}");
        Assert.True(agreed > unsettledAgreed, $"{agreed} agreed settled, {unsettledAgreed} unsettled; the search broke lower on: {string.Join(Environment.NewLine, lowerSearch)}");
    }

    private static bool BrokeOnArrival(CapacityFinding quick, CapacityRamp search) =>
        quick.BrokeAt is { } broke && broke <= QuickStepUsers && search.Held >= 2 * QuickStepUsers;

    /// <summary>Both broke within one quick step of each other, or neither did.</summary>
    private static bool Agree(CapacityRamp search, CapacityFinding quick) =>
        search.Broke is { } broke ? quick.BrokeAt is { } quickBroke && Math.Abs(broke.Load - quickBroke) <= QuickStepUsers : quick.BrokeAt is null;

    /// <summary>
    /// A climbed shape as it was before each climb settled (s60): the simulations at a held load that are not its hold (the
    /// settling interval before it, the interval after it) left out, so the last user arrives as the hold begins.
    /// </summary>
    private static (LoadShape Shape, IReadOnlyCollection<int> Held) WithoutSettling((LoadShape Shape, IReadOnlyCollection<int> Held) climbed)
    {
        var steps = climbed.Shape.Steps;
        var heldLoads = climbed.Held.Select(i => steps[i].Target).ToHashSet();
        var kept = Enumerable.Range(0, steps.Count).Where(i => climbed.Held.Contains(i) || !heldLoads.Contains(steps[i].Target)).ToList();
        return (new LoadShape([.. kept.Select(i => steps[i])], climbed.Shape.ReportingInterval), [.. kept.Select((step, at) => (step, at)).Where(k => climbed.Held.Contains(k.step)).Select(k => k.at)]);
    }

    [Fact]
    public void TheStepThatConfirmedABreakStandsAsJudgedAsTheSearchsRepeatDoes()
    {
        // QuoteDesk's quick run (2026-11-30, s59): 16 users broke on a spell, confirmed by 20, itself starved and "held" by 24.
        var slo = new ServiceSlo(250, "SLO p99 250 ms (given)");
        for (var seed = 0; seed < Seeds; seed++)
        {
            var random = new Random(seed);
            double[] loads = [4, 8, 12, 16, 20, 24, 28];
            var first = 1 + random.Next(0, loads.Length - 3);
            var steps = loads.Select((load, i) => new StepRow(load, 6 * i, 6 * (i + 1), TestStats.Of(Latencies(random, i == first || i == first + 1, slo.P99Ms)))).ToList();
            var spell = new StarvedSpell(12, 6 * first, 6 * (first + 2), 2, 0, 0, null) { Spans = [(6 * first, 6 * (first + 2))] };
            var run = new VariantResult(new VariantKey("target"), "/x", "users", 6 * loads.Length, [], [], steps[0].Stats) { Steps = steps };

            var (finding, judged) = CapacityFinding.OfProfileJudged(run, slo.P99Ms, (_, _) => null, spell);

            Assert.Equal(loads[first], finding.BrokeAt);
            Assert.Contains($"; confirmed by the next step, {loads[first + 1]:0} users", finding.BrokeBecause!, StringComparison.Ordinal);
            // The confirming step broke, as the search's repeat reads when it broke again; never "starved, then held".
            Assert.Equal(StepJudgement.Broke, judged[first + 1].Verdict);
            Assert.DoesNotContain("confirmed", judged[first + 1].Why!, StringComparison.Ordinal);
            Assert.Empty(finding.NotConfirmed);

            // The search on the same rounds: the break repeated, confirmed, and its repeat read as it was judged.
            var ramp = CapacityRampOf(slo, spellAt: loads[first]);
            Assert.Contains("; confirmed when repeated", ramp.Probes.First(p => p.Load >= loads[first]).Judged.BrokeBecause!, StringComparison.Ordinal);
            Assert.Equal(StepJudgement.Broke, ramp.Probes.Single(p => p.Repeat).Judged.Verdict);
        }
    }

    private static IEnumerable<double> Latencies(Random random, bool slow, double sloMs) =>
        Enumerable.Range(0, 200).Select(i => sloMs * (slow && i % 10 == 0 ? 1.5 + random.NextDouble() : 0.3 + (0.5 * random.NextDouble())));

    /// <summary>A search whose every step holds but the one at <paramref name="spellAt"/>, broken on a spell in both its rounds.</summary>
    private static CapacityRamp CapacityRampOf(ServiceSlo slo, double spellAt)
    {
        var time = new FakeTimeProvider();
        var random = new Random(1);
        var spell = new StarvedSpell(4, 1, 5, 2, 0, 0, null) { Spans = [(1, 5)] };
        return CapacityRamp.RunAsync(Search with { MaxLoad = 64 }, 1, time, time.GetTimestamp(), (load, _) =>
            Task.FromResult(slo.Judge(TestStats.Of(Latencies(random, load >= spellAt, slo.P99Ms)), 0, 10, spell)), CancellationToken.None).GetAwaiter().GetResult();
    }

    /// <summary>The search on <paramref name="service"/>: its one-user run sets the SLO, each step a fresh pool, judged over its hold.</summary>
    private static async Task<CapacityRamp> SearchAsync(PoolModel service, bool settle = true)
    {
        var slo = ServiceSlo.Of(null, UnloadedBaseline.Of(service.Run(new LoadShape([new KeepConstant(1, Search.Step)], Search.Interval)).Result));
        var time = new FakeTimeProvider();
        return await CapacityRamp.RunAsync(Search, 1, time, time.GetTimestamp(), (load, _) =>
        {
            var shape = Search.ShapeAt(load);
            var (result, spell) = service.Run(settle ? shape : WithoutSettling((shape, [shape.Steps.Count - 1])).Shape);
            var held = Search.HeldRow(result, load);
            return Task.FromResult(slo.Judge(held.Stats, held.FromSeconds, held.ToSeconds, spell));
        }, CancellationToken.None);
    }

    /// <summary>
    /// A seeded sync-over-async service on a modelled thread pool: each request blocks its pool thread on an awaited call to
    /// a dependency that serves <paramref name="Connections"/> at a time, <paramref name="WaitMs"/> each (a tenth either way),
    /// whose continuation needs another pool thread; the pool's one queue is FIFO, so with every thread blocked nothing
    /// completes (the continuations queue behind new requests) until the pool adds a thread. It adds one as soon as every
    /// thread is held, but no sooner than <paramref name="InjectMs"/> after the last (the runtime's injection for threads
    /// blocked on a task, then its starvation injection): users put on one at a time slower than that find a thread, 4 at
    /// once starve it for seconds. It holds about 2 x <paramref name="Connections"/> users within an SLO of 2 x one user's
    /// p99. Closed users, as the runner's: each sends again when answered; their count follows the shape. With
    /// <see cref="Threads"/> above 1 a request's thread blocks on work queued for another pool thread, which blocks in turn
    /// (a <c>Task.Run(...).Result</c> chain), the last making the call: each user holds that many threads.
    /// </summary>
    private sealed record PoolModel(double WaitMs, double InjectMs, int Connections, int Seed)
    {
        /// <summary>The pool threads a request blocks: 1, or 2-3 when <paramref name="nested"/>.</summary>
        public static PoolModel Of(Random random, bool nested = false) =>
            new(100 + random.Next(0, 250), 500 + random.Next(0, 500), 6 + random.Next(0, 12), random.Next()) { Threads = nested ? 2 + random.Next(0, 2) : 1 };

        public int Threads { get; init; } = 1;

        /// <summary>The quick run's finding: the profile with its one-user baseline, reached by climbs (judged over the holds) or put on at once (every step judged whole).</summary>
        public CapacityFinding Quick(bool climb, bool settle = true)
        {
            var profile = UrlCommand.UnloadedFirst(new LoadOptions(QuickClimbTests.Quick, Profiles.Quick, TimeSpan.FromSeconds(30), 100)).Shape;
            if (!climb)
            {
                var (jumped, jumpSpell) = Run(profile);
                return CapacityFinding.OfProfile(jumped, null, (_, _) => null, jumpSpell);
            }
            var (shape, held) = settle ? CapacityOptions.ClimbingTo(profile) : WithoutSettling(CapacityOptions.ClimbingTo(profile));
            var (result, spell) = Run(shape);
            return CapacityFinding.OfProfile(result, null, (_, _) => null, spell, held);
        }

        /// <summary>One run of <paramref name="shape"/> on a fresh pool: its intervals and steps (each request in the step it was sent in) and the spans the pool starved in.</summary>
        public (VariantResult Result, StarvedSpell Spell) Run(LoadShape shape)
        {
            var random = new Random(Seed);
            var end = shape.Duration.TotalMilliseconds;
            // Events in time order: a user's send (id >= 0), a call's answer (~request), the pool adding a thread (int.MinValue).
            var events = new PriorityQueue<int, (double At, long Order)>();
            long order = 0;
            void At(double at, int what) => events.Enqueue(what, (at, order++));
            for (var (at, users) = (0.0, 0); at < end; at += 50)
            {
                // A user starts when the shape reaches it (the runner looks every 50 ms).
                for (; users < shape.UsersAt(TimeSpan.FromMilliseconds(at)); users++)
                {
                    At(at, users);
                }
            }
            // The pool's one queue, in order: a request's start at a level (1 to Threads; it then blocks its thread on the next
            // level's, the last on the call) or a call's continuation (level 0).
            var queue = new Queue<(int Request, int Level)>();
            var free = 2;
            var (calls, waiting) = (0, new Queue<int>());
            var requests = new List<(int User, double SentAt)>();
            var sent = new List<(double At, double Ms)>();
            var starved = new List<(double From, double To)>();
            var (addedAt, adding) = (double.NegativeInfinity, false);
            double? queuedSince = null;
            void Call(double now, int request)
            {
                calls++;
                At(now + (WaitMs * (0.9 + (0.2 * random.NextDouble()))), ~request);
            }
            while (events.TryDequeue(out var what, out var when))
            {
                var now = when.At;
                if (what == int.MinValue)
                {
                    // Every thread held: the pool adds one; work that waited for it is a starved span.
                    adding = false;
                    if (free == 0)
                    {
                        (free, addedAt) = (1, now);
                        if (queuedSince is { } since)
                        {
                            starved.Add((since, now));
                        }
                    }
                }
                else if (what >= 0)
                {
                    if (now < end)
                    {
                        requests.Add((what, now));
                        queue.Enqueue((requests.Count - 1, 1));
                    }
                }
                else
                {
                    // The call answered: the next one waiting for a connection goes, and the continuation queues for a thread.
                    calls--;
                    if (waiting.TryDequeue(out var next))
                    {
                        Call(now, next);
                    }
                    queue.Enqueue((~what, 0));
                }
                // Free threads take the queue's work in order: a start blocks its thread until the call's continuation has run on another.
                while (free > 0 && queue.TryDequeue(out var work))
                {
                    if (work.Level > 0)
                    {
                        free--;
                        if (work.Level < Threads)
                        {
                            queue.Enqueue((work.Request, work.Level + 1));
                        }
                        else if (calls < Connections)
                        {
                            Call(now, work.Request);
                        }
                        else
                        {
                            waiting.Enqueue(work.Request);
                        }
                    }
                    else
                    {
                        // The continuation ends the call: every thread the request blocked is free again.
                        var (user, sentAt) = requests[work.Request];
                        free += Threads;
                        sent.Add((sentAt, now - sentAt));
                        At(now, user);
                    }
                }
                queuedSince = queue.Count == 0 ? null : queuedSince ?? now;
                if (free == 0 && !adding)
                {
                    // A blocked thread leaves none free: the pool adds one at once, but no sooner than InjectMs after the last.
                    adding = true;
                    At(Math.Max(now, addedAt + InjectMs), int.MinValue);
                }
            }
            return (Rows(shape, sent), Spell(starved));
        }

        public override string ToString() => $"{Threads} pool threads a request, a call of {WaitMs:0} ms, {Connections} at a time; a thread every {InjectMs:0} ms of starvation";

        private static StarvedSpell Spell(List<(double From, double To)> starvedMs)
        {
            List<(double From, double To)> spans = [.. starvedMs.Select(s => (s.From / 1000, s.To / 1000))];
            return spans.Count == 0 ? StarvedSpell.None
                : new StarvedSpell(spans.Sum(s => s.To - s.From), spans[0].From, spans[^1].To, spans.Count, 0, 0, null) { Spans = spans };
        }

        /// <summary>The intervals and steps the runner cuts: each interval's load the users at its middle, a step the intervals in a row at one load of one simulation, each request in the interval and step it was sent in.</summary>
        private static VariantResult Rows(LoadShape shape, List<(double At, double Ms)> sent)
        {
            var key = new VariantKey("target");
            var width = shape.ReportingInterval.TotalMilliseconds;
            var count = (int)Math.Round(shape.Duration.TotalMilliseconds / width);
            var intervals = Enumerable.Range(0, count).Select(i =>
            {
                var latencies = sent.Where(s => s.At >= i * width && s.At < (i + 1) * width).Select(s => s.Ms).ToList();
                return new IntervalRow(key, (i + 1) * width / 1000, "users", shape.UsersAt(TimeSpan.FromMilliseconds((i + 0.5) * width)), latencies.Count * 1000 / width, TestStats.Of(latencies));
            }).ToList();
            var steps = new List<StepRow>();
            int SimulationOf(int interval) => shape.StepAt(TimeSpan.FromMilliseconds((interval + 0.5) * width));
            for (var i = 0; i < count;)
            {
                var to = i;
                while (to + 1 < count && intervals[to + 1].Load == intervals[i].Load && SimulationOf(to + 1) == SimulationOf(i))
                {
                    to++;
                }
                var (fromMs, toMs) = (i * width, (to + 1) * width);
                steps.Add(new StepRow(intervals[i].Load, fromMs / 1000, toMs / 1000, TestStats.Of(sent.Where(s => s.At >= fromMs && s.At < toMs).Select(s => s.Ms))) { Simulation = SimulationOf(i) });
                i = to + 1;
            }
            return new VariantResult(key, "/x", "users", shape.Duration.TotalSeconds, intervals, [], TestStats.Of(sent.Select(s => s.Ms))) { Steps = steps };
        }
    }
}
