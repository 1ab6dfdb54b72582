using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Running;

/// <summary>
/// <c>run --url --find-capacity</c>: where a service breaks. The ramp starts at <see cref="StartLoad"/> and doubles,
/// each step a fresh run (closed users climbing to it at the quick profile's pace, <see cref="RampAt"/>, or an open arrival
/// rate) judged over the <see cref="Step"/> it holds its load (<see cref="HeldPart"/>), until p99 passes the SLO or more
/// than <see cref="Experiments.Experiment.MaxFailedPercent"/> % of requests fail, or a bound is reached
/// (<see cref="MaxLoad"/>, <see cref="MaxDuration"/> over all steps); then it bisects between the last load held and
/// the first that broke (<see cref="Between"/>) until the gap is within <see cref="ResolutionPercent"/> % or
/// <see cref="BisectSteps"/> steps have run.
/// </summary>
internal sealed record CapacityOptions(double? SloP99Ms, bool Open, double StartLoad, double MaxLoad, TimeSpan Step, TimeSpan MaxDuration)
{
    /// <summary>
    /// The default SLO: p99 within this many times the unloaded p99 (one user, measured first). The diagnosis's own
    /// factor, so a step that broke that SLO has an interval whose requests the diagnosis counts as waited.
    /// </summary>
    public const double DefaultSloFactor = PoolSample.WaitedFactor;

    /// <summary>--step-s's default: how long each step, and the unloaded measure the SLO is set from, holds its load; a closed profile's one-user baseline lasts as long.</summary>
    public const double DefaultStepSeconds = 10;

    /// <summary>The narrowing stops once the load that broke is within this share above the load held.</summary>
    public const double ResolutionPercent = 12.5;

    /// <summary>--bisect-steps's default: 3 take a doubling's gap to 12.5 %, one more for a noisy step.</summary>
    public const int DefaultBisectSteps = 4;

    /// <summary>--bisect-steps's most: 16 halvings narrow any gap the doubling leaves to far under <see cref="ResolutionPercent"/>.</summary>
    public const int MaxBisectSteps = 16;

    /// <summary>The most bisection steps after the doubling found a break (<see cref="DefaultBisectSteps"/>); 0: the doubling's step is the break.</summary>
    public int BisectSteps { get; init; } = DefaultBisectSteps;

    /// <summary>
    /// The most steps a ramp runs again to confirm a break that rests on a starvation spell (<see cref="ServiceSlo.Confirmed"/>):
    /// one, its first such break (the doubling's, where the quick run's disagreement came from); a later one stands, said.
    /// A sync-over-async service starves at every break, so repeating each bisection step too would double their cost.
    /// </summary>
    public int RepeatSteps { get; init; } = 1;

    public string Unit => Open ? "requests/s" : "users";

    /// <summary>The loads the ramp tries, in order: <see cref="StartLoad"/> doubling up to <see cref="MaxLoad"/> (the last one capped at it).</summary>
    public IEnumerable<double> Loads()
    {
        for (var load = StartLoad; ; load *= 2)
        {
            yield return Math.Min(load, MaxLoad);
            if (load >= MaxLoad)
            {
                yield break;
            }
        }
    }

    /// <summary>
    /// The next load to try between one held and one that broke: halfway (closed users are whole, a rate is kept to
    /// a tenth), or null when the gap is already within <see cref="ResolutionPercent"/> % or no load lies between.
    /// </summary>
    public double? Between(double held, double broke)
    {
        if (broke - held <= held * ResolutionPercent / 100)
        {
            return null;
        }
        var half = (held + broke) / 2;
        var load = Open ? Math.Round(half, 1) : Math.Floor(half);
        return load > held && load < broke ? load : null;
    }

    /// <summary>
    /// The pace a closed step ramps at, in users added per second: the quick profile's (4 users every 6 s), read from it.
    /// A blocking service's capacity depends on how fast its load arrives (the pool injects threads over seconds), so a
    /// step that reached its load at the quick run's pace asks the quick run's question, and the two can agree.
    /// </summary>
    public static readonly double QuickUsersPerSecond = QuickPace(Profiles.Create(Profiles.Quick, 1).Steps);

    private static double QuickPace(IReadOnlyList<LoadSimulation> quick) => (quick[1].Target - quick[0].Target) / quick[0].During.TotalSeconds;

    /// <summary>The reporting interval of each step: a fifth of <see cref="Step"/>, at least 1 s.</summary>
    public TimeSpan Interval => TimeSpan.FromSeconds(Math.Max(1, Step.TotalSeconds / 5));

    /// <summary>
    /// How long a closed step at <paramref name="load"/> users ramps before it holds: the climb from 1 user and its settling
    /// interval (<see cref="ClimbThenSettle"/>). Zero for one user and for an open rate (no quick run to agree with: the
    /// quick profile is closed).
    /// </summary>
    public TimeSpan RampAt(double load) => Open ? TimeSpan.Zero : Length(ClimbThenSettle(0, (int)load, Interval));

    /// <summary>How long adding <paramref name="users"/> users takes at <see cref="QuickUsersPerSecond"/>, rounded up to whole <paramref name="interval"/>s.</summary>
    public static TimeSpan ClimbOf(double users, TimeSpan interval) => interval * Math.Ceiling(users / QuickUsersPerSecond / interval.TotalSeconds);

    /// <summary>
    /// How both commands reach a closed load from the one before it, before the hold they judge: a climb, one user at a
    /// time at <see cref="QuickUsersPerSecond"/> from <paramref name="before"/> + 1 (added as it begins) to
    /// <paramref name="load"/> - 1, rounded up to whole <paramref name="interval"/>s (<see cref="ClimbOf"/>); then one
    /// interval at <paramref name="load"/>, settling, not judged: the last user arrives as it begins, so the pool's wait
    /// for threads to serve that user falls there and not in the hold (issue 37: a blocking service needing 2 or more
    /// pool threads a user starved in the first seconds of each hold; in a 6-s quick hold that spell broke the SLO, in a
    /// 10-s search hold it was within noise). Empty when <paramref name="load"/> is at most one user above
    /// <paramref name="before"/>: no climb.
    /// </summary>
    public static IReadOnlyList<LoadSimulation> ClimbThenSettle(int before, int load, TimeSpan interval)
    {
        var climbing = load - before - 1;
        if (climbing < 1)
        {
            return [];
        }
        var climb = ClimbOf(climbing, interval);
        return [.. Profiles.SteppedRamp(before + 1, 1, climb / climbing, climb).Take(climbing), new KeepConstant(load, interval)];
    }

    private static TimeSpan Length(IEnumerable<LoadSimulation> steps) => steps.Aggregate(TimeSpan.Zero, (sum, step) => sum + step.During);

    /// <summary>
    /// The quick profile's steps against a URL, each reached as a search's step reaches its load (<see cref="ClimbThenSettle"/>),
    /// then held for its own length, then one more interval at its load, not judged, before the next climb (its first
    /// user's arrival would land in the hold's last requests); with the indexes of the holds, the only simulations the quick
    /// run judges (<see cref="CapacityFinding.OfProfileJudged"/>). The climb's users are steps of their own (every request
    /// belongs to the step it was sent in), counted and shown, not judged: its 4 users put on at once starved a pool grown
    /// for the step before, and a 6-s step of 117-191 requests broke on that spell's few (issue 37, Reports: the quick run
    /// broke at 4 users, the search held 32). A step one user above the load before it is no climb; a ramping or open step
    /// keeps its shape.
    /// </summary>
    public static (LoadShape Shape, IReadOnlyCollection<int> Held) ClimbingTo(LoadShape profile)
    {
        var steps = new List<LoadSimulation>();
        var held = new List<int>();
        var before = 0;
        foreach (var step in profile.Steps)
        {
            var climb = step is KeepConstant constant ? ClimbThenSettle(before, constant.Copies, profile.ReportingInterval) : [];
            if (climb.Count > 0 && steps.Count > 0 && before > 0)
            {
                steps.Add(new KeepConstant(before, profile.ReportingInterval));
            }
            steps.AddRange(climb);
            held.Add(steps.Count);
            steps.Add(step);
            before = (int)step.Target;
        }
        return (new LoadShape(steps, profile.ReportingInterval), held);
    }

    /// <summary>One step's whole length: its ramp, then <see cref="Step"/> held.</summary>
    public TimeSpan LengthAt(double load) => RampAt(load) + Step;

    /// <summary>
    /// One step's load shape: a closed step climbs from 1 user to <paramref name="load"/> and settles (<see cref="ClimbThenSettle"/>),
    /// then holds it for <see cref="Step"/>; an open step holds <paramref name="load"/> requests/s for <see cref="Step"/>.
    /// </summary>
    public LoadShape ShapeAt(double load)
    {
        IReadOnlyList<LoadSimulation> climb = Open ? [] : ClimbThenSettle(0, (int)load, Interval);
        return new([.. climb, Open ? new Inject(load, Step) : new KeepConstant((int)load, Step)], Interval);
    }

    /// <summary>
    /// What a step at <paramref name="load"/> is judged on: the part held at its load (its last step row at that load),
    /// not the ramp before it; the whole step when it did not ramp or no full interval held the load.
    /// </summary>
    public LatencyStats HeldPart(VariantResult step, double load) => HeldRow(step, load).Stats;

    /// <summary>The part of <see cref="HeldPart"/> as a step row: its latency, and from when to when its requests were sent (what a starvation spell is read over).</summary>
    public StepRow HeldRow(VariantResult step, double load) =>
        RampAt(load) > TimeSpan.Zero && step.HeldAt(load) is { } held ? held : new StepRow(load, 0, step.ElapsedSeconds, step.Total);

    /// <summary>The report's sentence on how each step was shaped and judged.</summary>
    public string DescribeSteps() => Open
        ? Invariant($"Each step held its arrival rate for {Step.TotalSeconds:0.#} s (--step-s) and was judged over all of it.")
        : Invariant($"Each step ramped from 1 user at the quick profile's pace ({QuickUsersPerSecond:0.##} users/s, its length rounded up to {Interval.TotalSeconds:0.#}-s intervals), then held its load for {Step.TotalSeconds:0.#} s (--step-s) and was judged over the hold only, as the quick run judges each of its steps; {SettleNotJudged}.");

    /// <summary>Said once where a report describes its steps (<see cref="ClimbThenSettle"/>).</summary>
    public const string SettleNotJudged = "each step's first interval after its last user arrived is not judged";
}

/// <summary>
/// One step of the ramp: its load and how it was judged (<see cref="StepJudgement"/>); <see cref="Repeat"/> when it ran
/// again to confirm a transient break at the same load (<see cref="ServiceSlo.Confirmed"/>).
/// </summary>
internal sealed record CapacityProbe(double Load, StepJudgement Judged, bool Repeat = false)
{
    /// <summary>Why it broke the SLO; null when it counts as held.</summary>
    public string? BrokeBecause => Judged.BrokeBecause;

    public bool Held => BrokeBecause is null;
}

/// <summary>
/// The ramp's steps in the order run, the highest load held below the break, the lowest load that broke (null when
/// none did), and what ended it: the bound that stopped the doubling before a break, or how far the bisection
/// narrowed the break (<see cref="Narrowing"/>).
/// </summary>
internal sealed record CapacityRamp(IReadOnlyList<CapacityProbe> Probes, double? Held, CapacityProbe? Broke, string? Bound, string? Narrowing)
{
    /// <summary>
    /// Runs the ramp: <paramref name="measureAsync"/> runs one step at a load and judges it. A break on a starvation spell
    /// (<see cref="StepJudgement.SpellSeconds"/>) is run again at once, at the same load, and judged with that repeat
    /// (<see cref="ServiceSlo.Confirmed"/>), up to <see cref="CapacityOptions.RepeatSteps"/> a ramp: one step at most. The
    /// doubling stops at the first break, then the bisection narrows it; each step must fit in what is left of
    /// <see cref="CapacityOptions.MaxDuration"/> since <paramref name="startedTimestamp"/> (on <paramref name="time"/>).
    /// <paramref name="heldBefore"/> is a load known to hold (one user, for a closed ramp), or null.
    /// </summary>
    public static async Task<CapacityRamp> RunAsync(CapacityOptions options, double? heldBefore, TimeProvider time, long startedTimestamp, Func<double, CancellationToken, Task<StepJudgement>> measureAsync, CancellationToken cancellationToken)
    {
        var probes = new List<CapacityProbe>();
        bool RoomFor(double load, out string? bound)
        {
            var room = time.GetElapsedTime(startedTimestamp) + options.LengthAt(load) <= options.MaxDuration;
            bound = room ? null : Invariant($"the ramp reached its max duration ({options.MaxDuration.TotalSeconds:0} s, --max-duration-s) before {load:0.#} {options.Unit}");
            return room;
        }
        async Task<CapacityProbe> ProbeAsync(double load)
        {
            var first = await measureAsync(load, cancellationToken);
            var at = probes.Count;
            probes.Add(new CapacityProbe(load, first));
            if (first.SpellSeconds is not null)
            {
                StepJudgement? again = null;
                string? notRepeated = null;
                if (probes.Count(p => p.Repeat) >= options.RepeatSteps)
                {
                    notRepeated = $"the search repeats {CountText.Of(options.RepeatSteps, "break")} on a spell, its first";
                }
                else if (RoomFor(load, out var noRoom))
                {
                    again = await measureAsync(load, cancellationToken);
                    probes.Add(new CapacityProbe(load, again, Repeat: true));
                }
                else
                {
                    notRepeated = $"no time to repeat it ({noRoom})";
                }
                probes[at] = probes[at] with { Judged = ServiceSlo.Confirmed(first, again, notRepeated ?? "when repeated") };
            }
            return probes[at];
        }

        var held = heldBefore;
        CapacityProbe? broke = null;
        string? bound = null;
        foreach (var load in options.Loads())
        {
            if (!RoomFor(load, out bound))
            {
                break;
            }
            var probe = await ProbeAsync(load);
            if (!probe.Held)
            {
                broke = probe;
                break;
            }
            held = load;
        }
        if (broke is null)
        {
            return new CapacityRamp(probes, held, null, bound ?? Invariant($"the ramp reached its max load ({options.MaxLoad:0.#} {options.Unit}, --max-load)"), null);
        }
        if (held is null)
        {
            return new CapacityRamp(probes, null, broke, null, "not narrowed: the first load tried broke");
        }
        var bisected = 0;
        string? stopped = null;
        while (options.Between(held.Value, broke.Load) is { } between)
        {
            if (bisected == options.BisectSteps)
            {
                stopped = $"the bisection's budget of {CountText.Of(options.BisectSteps, "step")} ran out";
                break;
            }
            if (!RoomFor(between, out stopped))
            {
                break;
            }
            bisected++;
            var probe = await ProbeAsync(between);
            if (probe.Held)
            {
                held = between;
            }
            else
            {
                broke = probe;
            }
        }
        var gapPercent = 100 * (broke.Load - held.Value) / held.Value;
        var by = $"{CountText.Of(bisected, "bisection step")} after the doubling";
        var narrowing = options.BisectSteps == 0
            ? Invariant($"not narrowed (--bisect-steps 0): the break lies within {gapPercent:0} % above the load held")
            : stopped is not null
            ? Invariant($"narrowed to within {gapPercent:0} % by {by}; {stopped}")
            : gapPercent <= CapacityOptions.ResolutionPercent
                ? Invariant($"narrowed to within {gapPercent:0} % by {by}")
                : Invariant($"narrowed to {CapacityFinding.LoadText(broke.Load - held.Value, options.Unit)} ({gapPercent:0} %, no load between) by {by}");
        return new CapacityRamp(probes, held, broke, null, narrowing);
    }
}

/// <summary>
/// The unloaded latency the default SLO is set from: one user's run cut into rounds (its reporting intervals), the
/// median of the rounds' p99s, so one slow round (a GC, a neighbour's build on shared cores) does not set the SLO. A
/// plain profile has no one-user run: its lowest step stands for it (<paramref name="Load"/>: the load it was measured at).
/// <paramref name="Requests"/>: the answered requests those rounds hold, which the SLO's sentence states (a service whose
/// latency is random needs many for a p99 to mean anything; one user on a slow service gives few).
/// </summary>
internal sealed record UnloadedBaseline(double P99Ms, int Rounds, double LowestRoundMs, double HighestRoundMs, long Requests, string Load = UnloadedBaseline.OneUser)
{
    /// <summary>The default SLO's floor: below it a scheduler hiccup on a busy machine would break a fast service's SLO.</summary>
    public const double SloFloorMs = 10;

    /// <summary>The load --find-capacity measures its baseline at.</summary>
    public const string OneUser = "one user";

    /// <summary>The baseline of one user's run: the median of its full intervals' p99s (the whole run's p99 when none completed a request).</summary>
    public static UnloadedBaseline Of(VariantResult unloaded) => Of(unloaded.Intervals, unloaded.Total, OneUser);

    /// <summary>The baseline of <paramref name="intervals"/> at <paramref name="load"/>: the median of the full ones' p99s, else <paramref name="whole"/>'s p99.</summary>
    public static UnloadedBaseline Of(IEnumerable<IntervalRow> intervals, LatencyStats whole, string load)
    {
        var full = intervals.Where(i => !i.Partial && i.Stats.Completed > 0).ToList();
        var rounds = full.Select(i => i.Stats.P99Ms).Order().ToList();
        if (rounds.Count == 0)
        {
            return new UnloadedBaseline(whole.P99Ms, 1, whole.P99Ms, whole.P99Ms, whole.Completed, load);
        }
        var median = rounds.Count % 2 == 1 ? rounds[rounds.Count / 2] : (rounds[(rounds.Count / 2) - 1] + rounds[rounds.Count / 2]) / 2;
        return new UnloadedBaseline(median, rounds.Count, rounds[0], rounds[^1], full.Sum(i => i.Stats.Completed), load);
    }

    /// <summary>The SLO a ramp without --slo-p99-ms uses: <see cref="CapacityOptions.DefaultSloFactor"/> x the baseline, at least <see cref="SloFloorMs"/>.</summary>
    public double DefaultSloMs => Math.Max(CapacityOptions.DefaultSloFactor * P99Ms, SloFloorMs);

    /// <summary>"SLO p99 40 ms (2 x the median round's p99 of 20 ms (5 rounds of one user, 18-31 ms, from 240 requests))": which SLO, where it came from and how many requests it rests on.</summary>
    public string DescribeSlo(double sloP99Ms, bool given)
    {
        var rounds = Describe();
        var basis = given ? $"given by --slo-p99-ms; {rounds}"
            : DefaultSloMs > CapacityOptions.DefaultSloFactor * P99Ms ? Invariant($"the {SloFloorMs:0} ms floor, above {CapacityOptions.DefaultSloFactor:0} x {rounds}")
            : Invariant($"{CapacityOptions.DefaultSloFactor:0} x {rounds}");
        return Invariant($"SLO p99 {sloP99Ms:0.#} ms ({basis})");
    }

    /// <summary>"the median round's p99 of 20 ms (5 rounds of one user, 18-31 ms, from 240 requests)", or of one round "the unloaded p99 of 20 ms (one user, one round, ...)": the baseline and how many requests it rests on.</summary>
    public string Describe()
    {
        var of = Load == OneUser ? "the unloaded p99" : "the lowest step's p99";
        // As few as a response curve's knee may not rest on: said, so a p99 of noise (a slow or random service's one user) is not read as the service's.
        var few = Requests < ResponseCurve.MinimumRequestsPerStep
            ? Invariant($", fewer than the {ResponseCurve.MinimumRequestsPerStep} a p99 needs: give --slo-p99-ms or a longer --step-s")
            : "";
        var from = $"from {CountText.Of(Requests, "request")}{few}";
        return Rounds == 1
            ? Invariant($"{of} of {P99Ms:0.#} ms ({Load}, one round, {from})")
            // "the median round's", not "the unloaded" p99: a response curve's knee reads its first step's p99 of all its requests, another figure.
            : Invariant($"the median round's p99 of {P99Ms:0.#} ms ({Rounds} rounds of {Load}, {LowestRoundMs:0.#}-{HighestRoundMs:0.#} ms, {from})");
    }
}

/// <summary>The search's lowest step and what the observer saw of it: what GC and the upstream at the break are compared with.</summary>
internal sealed record LowerStep(VariantResult Result, VariantObservation? Observation);

/// <summary>
/// What the ramp found: the SLO and how it was set, the last load held, the load that broke it and why, how finely the
/// break was narrowed, or the bound that ended the ramp first. A plain profile's steps make the same finding
/// (<see cref="OfProfile"/>), by the same rule (<see cref="ServiceSlo"/>).
/// </summary>
/// <param name="Broke">The latency and outcomes of the step that broke (null when none did).</param>
internal sealed record CapacityFinding(string Unit, ServiceSlo Slo, double? HeldLoad, double? BrokeAt, string? BrokeBecause, string? Cause, string? Bound, string? Narrowing = null, LatencyStats? Broke = null)
{
    /// <summary>
    /// How the load held was judged when it counts as held although its p99 passed the SLO: within the p99's noise
    /// (<see cref="ServiceSlo.WithinNoise"/>), or a transient starvation spell that did not repeat (<see cref="ServiceSlo.Confirmed"/>);
    /// null when it held clearly (or nothing held).
    /// </summary>
    public StepJudgement? HeldJudged { get; init; }

    /// <summary>
    /// The loads that broke in one round on a transient starvation spell and held when confirmed (<see cref="StepJudgement.StarvedThenHeld"/>),
    /// with why, in the order run: counted as held, said below the headline.
    /// </summary>
    public IReadOnlyList<(double Load, string Why)> NotConfirmed { get; init; } = [];

    /// <summary>Every cause seen at the break, ranked (<see cref="FindingsAt"/>): the first is <see cref="Cause"/>; empty when none broke or it was not observed.</summary>
    public IReadOnlyList<CauseFinding> Findings { get; init; } = [];

    /// <summary>The report's sentence: "Held 48 users; broke at 52 users (p99 1,234 ms; narrowed to within 8 % ...; SLO ...): pool starvation (...)".</summary>
    public string Describe()
    {
        // A held load that starved in one round is said once, among the loads not confirmed as breaks below.
        var noise = HeldJudged is { Verdict: StepJudgement.HeldWithinNoise } ? $" ({HeldJudged.Why})" : "";
        var held = HeldLoad is { } h ? $"Held {LoadText(h, Unit)}{noise}" : "Held no load tried";
        var narrowed = Narrowing is null ? "" : $"; {Narrowing}";
        var cause = Cause is null ? "" : $": {Cause}";
        var spells = NotConfirmed.Count == 0 ? ""
            : $" Not a break, counted as held: {string.Join("; ", NotConfirmed.Select(n => $"{LoadText(n.Load, Unit)}, {n.Why}"))}.";
        return (BrokeAt is { } b
            ? $"{held}; broke at {LoadText(b, Unit)} ({BrokeBecause}{narrowed}; {Slo.Described}){cause}."
            : Invariant($"{held} without breaking ({Slo.Described}); the break is above: {Bound}.")) + spells;
    }

    /// <summary>"60 users", "1 user", "250 requests/s".</summary>
    public static string LoadText(double load, string unit) => Invariant($"{load:0.#} {(load == 1 && unit == "users" ? "user" : unit)}");

    /// <summary>
    /// What a plain load profile says about the break, by the rule of --find-capacity's steps (<see cref="ServiceSlo"/>):
    /// each step judged in turn, the load held the highest step before the first that broke. The SLO is the one given,
    /// else the default one of its lowest step (standing for unloaded; a profile of one step has none, nor one whose lowest
    /// step answered nothing, so only failures and a step with no answer break it: a timeout is no p99 to set an SLO from). A starved pool alone breaks nothing: the headline says "starved for N s; latency held".
    /// A step at the SLO within its p99's noise counts as held, as in the search, and the finding says so (<see cref="HeldJudged"/>).
    /// A break that rests on a transient starvation spell (<paramref name="spell"/>: the run's, null when not observed) is
    /// confirmed by the profile's next judged step, the one above it (the search repeats the step instead): broke too, the
    /// break stands, and that next step stands as it was judged, as the search's repeat does (it confirmed a break, so it is
    /// not itself read against the step above it); held, the ramp goes on. The last step's has no step above it, and stands, said.
    /// With <paramref name="heldSimulations"/> (the indexes of the quick profile's holds in its shape, each reached by a climb
    /// and a settling interval: <see cref="CapacityOptions.ClimbingTo"/>) only the steps of those simulations are judged, each over its hold, as the search judges its steps; the climb's steps are
    /// counted and shown, "climbing" (<see cref="StepJudgement.Climbing"/>).
    /// </summary>
    /// <param name="causeAt">The cause at the break of the run (<see cref="CauseOf"/>), given the baseline's p99.</param>
    public static CapacityFinding OfProfile(VariantResult result, double? givenSloP99Ms, Func<VariantResult, double, string?> causeAt, StarvedSpell? spell = null, IReadOnlyCollection<int>? heldSimulations = null) =>
        OfProfileJudged(result, givenSloP99Ms, causeAt, spell, heldSimulations).Finding;

    /// <summary><see cref="OfProfile"/>, with how each of the run's steps was judged (<see cref="VariantResult.Steps"/>, in order), as summary.json keeps them.</summary>
    public static (CapacityFinding Finding, IReadOnlyList<StepJudgement> Steps) OfProfileJudged(VariantResult result, double? givenSloP99Ms, Func<VariantResult, double, string?> causeAt, StarvedSpell? spell = null, IReadOnlyCollection<int>? heldSimulations = null)
    {
        var unit = result.LoadUnit == "rate" ? "requests/s" : result.LoadUnit;
        var steps = result.Steps.Count > 0 ? result.Steps : [new StepRow(result.PeakLoad, 0, result.ElapsedSeconds, result.Total)];
        var lowest = steps[0];
        var oneUser = lowest.Load == 1 && unit == "users";
        var baseline = UnloadedBaseline.Of(result.Intervals.Where(i => i.ElapsedSeconds > lowest.FromSeconds && i.ElapsedSeconds <= lowest.ToSeconds + 1e-6), lowest.Stats,
            oneUser ? UnloadedBaseline.OneUser : Invariant($"{lowest.Load:0.#} {unit}"));
        var slo = givenSloP99Ms is not null ? ServiceSlo.Of(givenSloP99Ms, baseline)
            : steps.Count < 2 ? new ServiceSlo(double.PositiveInfinity, "no SLO: one load step, so no lower step to set one from (give --slo-p99-ms)")
            : baseline.Requests == 0 ? new ServiceSlo(double.PositiveInfinity, "no SLO: the lowest step answered no request, so it has no p99 to set one from (give --slo-p99-ms)")
            : ServiceSlo.Of(null, baseline);
        // One user is the unloaded measure the default SLO is set from: it holds by definition, as --find-capacity's does.
        var unloadedHolds = oneUser && givenSloP99Ms is null && baseline.Requests > 0;
        var climbing = steps.Select(step => heldSimulations is not null && !heldSimulations.Contains(step.Simulation)).ToList();
        var judged = steps.Select((step, i) => climbing[i]
            ? new StepJudgement(StepJudgement.Climbing, Invariant($"climbing to {LoadText(steps.Skip(i).FirstOrDefault(s => heldSimulations!.Contains(s.Simulation))?.Load ?? step.Load, unit)} at the quick profile's pace ({CapacityOptions.QuickUsersPerSecond:0.##} users/s), or settling at it: counted, not judged, as --find-capacity judges each step over its hold"))
            : unloadedHolds && step == lowest ? new StepJudgement(StepJudgement.Held, "the unloaded measure the SLO is set from")
            : slo.Judge(step.Stats, step.FromSeconds, step.ToSeconds, spell, unit == "users" ? step.Load : null)).ToList();
        var held = Enumerable.Range(0, steps.Count).Where(i => !climbing[i]).ToList();
        for (var h = 0; h < held.Count; h++)
        {
            var (i, next) = (held[h], h + 1 < held.Count ? held[h + 1] : (int?)null);
            var confirmed = ServiceSlo.Confirmed(judged[i], next is { } n ? judged[n] : null,
                next is { } above ? $"by the next step, {LoadText(steps[above].Load, unit)}" : "the profile's last step, with no step above it");
            // The step that confirmed a break stands as judged, as the search's repeat does: read against the step above it, it
            // could say "starved, then held" of a load that confirmed the break below it (QuoteDesk: 16 users broke, confirmed by 20, "held" by 24).
            if (judged[i].SpellSeconds is not null && confirmed.Verdict == StepJudgement.Broke && next is { } confirming)
            {
                judged[confirming] = judged[confirming] with { SpellSeconds = null };
            }
            judged[i] = confirmed;
        }
        double? heldLoad = null;
        StepJudgement? heldJudged = null;
        var notConfirmed = new List<(double, string)>();
        foreach (var i in held)
        {
            var step = steps[i];
            if (judged[i].BrokeBecause is { } why)
            {
                var gap = heldLoad is { } h ? Invariant($"the profile's steps {step.Load - h:0.#} {unit} apart") : "the profile's first step broke";
                return (new CapacityFinding(unit, slo, heldLoad, step.Load, why, causeAt(result, baseline.P99Ms), null, $"{gap}; run --find-capacity to narrow it", step.Stats) { HeldJudged = heldJudged, NotConfirmed = notConfirmed }, judged);
            }
            heldLoad = step.Load;
            heldJudged = judged[i].Verdict is StepJudgement.HeldWithinNoise or StepJudgement.StarvedThenHeld ? judged[i] : null;
            if (judged[i].Verdict == StepJudgement.StarvedThenHeld)
            {
                notConfirmed.Add((step.Load, judged[i].Why!));
            }
        }
        return (new CapacityFinding(unit, slo, heldLoad, null, null, null, Invariant($"the profile's peak ({result.PeakLoad:0.#} {unit}); run --find-capacity")) { HeldJudged = heldJudged, NotConfirmed = notConfirmed }, judged);
    }

    /// <summary>The process's CPU use (a share of all its processors) at or above which the cores are its limit.</summary>
    public const double CpuLimitPercent = 90;

    /// <summary>
    /// The cause at the break: pool starvation when the observer's diagnosis says starved (the one rule,
    /// <see cref="PoolSample.Starved"/>, that also decides the diagnosis paragraph and --verify-fix's minimum; a pool that
    /// caught up between two counter samples included, and one whose threads (nearly) all waited inside requests while the
    /// step's trace saw no outgoing HTTP call, whatever the queue at the samples) and the sampled threads do not mostly wait for a lock, else CPU
    /// when the process used its cores' limit, or when the machine's cores were spent, by the service, the runner loading
    /// it or other processes, while the requests waited for a core (<see cref="CoreUse.Bound"/>: on one machine the load
    /// generator and the neighbours take cores from the service, which alone then stays under the limit), else a contended lock when most sampled pool
    /// threads wait on one in user code, else CPU when the stack sample found the requests' pool threads running and
    /// none blocked (<see cref="DiagnosisInputs.RequestsRunNotBlock"/>: on a shared machine the process may get less than
    /// its cores) and its threads were not measured waiting for a core under <see cref="CoreUse.WaitedForCoreShare"/> of the
    /// requests' time, else the upstream (latency grew while the pool was not short); without the observer, the CPU when
    /// /proc showed the cores bound the step (<paramref name="unobservedCores"/>, <see cref="UnobservedCpuFinding"/>), else why
    /// no cause can be said; "no clear cause" when the heaviest finding accounts for less than <see cref="CauseFindings.LeastShare"/> of the break.
    /// </summary>
    public static string CauseOf(VariantResult broke, VariantObservation? observation, double unloadedP99Ms, string? notObservedBecause, LowerStep? lowest = null, CoreUse? unobservedCores = null) =>
        observation?.Diagnosis is null
            ? UnobservedCpuFinding(unobservedCores, InFlight(broke), notObservedBecause) is { } cpu ? cpu.Describe()
            : $"cause not known: the runtime was not observed ({notObservedBecause ?? "no pool series"}){(unobservedCores is null ? "" : $"; read from /proc over the step, the cores did not bind it ({unobservedCores.Describe(InFlight(broke))}), and the pool, a lock, the GC or an upstream cannot be seen without the runtime's diagnostics channel")}"
            : FindingsAt(broke, observation, unloadedP99Ms, lowest)[0] is var first && CauseFindings.Accounts(first) ? first.Describe()
            : Invariant($"no clear cause: the heaviest finding accounts for {100 * first.Weight:0} % of the break by its measure, under the {100 * CauseFindings.LeastShare:0} % a cause is named from: {first.Describe()}");

    /// <summary>
    /// Every cause seen at the break, one finding each, ranked (<see cref="CauseFindings.Rank"/>): the first is the cause
    /// <see cref="CauseOf"/> names; empty without the observer's diagnosis.
    /// </summary>
    /// <remarks>
    /// GC and the upstream are read against <paramref name="lowest"/>, the search's lowest step: the GC when it paused the process
    /// enough or its pause share or the allocation per request grew toward the break (<see cref="GcFigures.IsCauseBeside"/>), or
    /// enough of the CPU samples were in the allocator, named by the allocation trace's types and methods and
    /// ranked with the CPU by its share of the break's time (<see cref="GcShare"/>); the upstream call whose p99 grew the most, and whether the connection pool to it was the
    /// limit (<see cref="UpstreamCall.PoolWasTheLimit"/>).
    /// </remarks>
    public static IReadOnlyList<CauseFinding> FindingsAt(VariantResult broke, VariantObservation? observation, double unloadedP99Ms, LowerStep? lowest = null, CoreUse? unobservedCores = null, string? notObservedBecause = null)
    {
        var inFlight = InFlight(broke);
        if (observation?.Diagnosis is not { } diagnosis)
        {
            return UnobservedCpuFinding(unobservedCores, inFlight, notObservedBecause) is { } unobserved ? [unobserved] : [];
        }
        var found = new List<CauseFinding>();
        var peakCpuPercent = broke.Telemetry.Count == 0 ? 0 : broke.Telemetry.Max(t => t.Snapshot.Process.CpuPercent);
        var cores = observation.Cores is { } use ? $"; {use.Describe(inFlight)}" : "";
        // Threads queued behind a lock starve the pool too, but more threads would not help: the lock is the cause.
        var lockSite = observation.Stacks?.LockSite;
        if (diagnosis.Starved && lockSite is null)
        {
            var spell = diagnosis.Inputs.Spell;
            found.Add(new CauseFinding("pool starvation", diagnosis.Inputs.BlockingMethod, Invariant($"{diagnosis.Queue}, {spell.DescribeInjections()} while starved for {spell.StarvedSeconds:0.#} s, {CountText.Of(observation.Adjustments.Count, "adjustment")} in all; the pool had {diagnosis.Inputs.PoolThreadsAtPeak} threads, the load needed {diagnosis.NeededThreads}"),
                [new("pool threads at the peak", diagnosis.Inputs.PoolThreadsAtPeak, "threads"), new("threads needed", diagnosis.NeededThreads, "threads")], 1));
        }
        var lowestLoad = lowest?.Result switch
        {
            null => "",
            { LoadUnit: "rate" } low => Invariant($"{low.PeakLoad:0.#} requests/s"),
            var low => LoadText(low.PeakLoad, low.LoadUnit),
        };
        var gc = GcFinding(broke, observation, lowest, lowestLoad);
        if (gc is ({ } gcFinding, _))
        {
            found.Add(gcFinding);
        }
        if (CpuFinding(observation, diagnosis, peakCpuPercent, inFlight, cores) is { } cpu)
        {
            // The GC's pauses and the allocator's work are the cores' time too: the CPU's own share is what is left, and it says how much was the GC's.
            found.Add(gc is (_, { } share) ? cpu with { Weight = share.CpuWeight(cpu.Weight), Evidence = $"{cpu.Evidence}; {share.Describe()}" } : cpu);
        }
        var upstream = UpstreamFinding(broke, observation, lowest, lowestLoad, inFlight);
        if (upstream is not null)
        {
            found.Add(UnlessBusy(upstream, observation.Cores, inFlight));
        }
        if (lockSite is not null)
        {
            found.Add(new CauseFinding("a contended lock", lockSite.Source?.Method, Invariant($"{observation.Stacks!.Describe(lockSite)}; requests pass it one at a time, so neither more pool threads nor more cores raise the load it holds; p99 grew from {unloadedP99Ms:0.#} ms to {broke.Total.P99Ms:0.#} ms"),
                [new("pool threads waiting on it", lockSite.Threads, "threads")], (double)lockSite.Threads / Math.Max(lockSite.Threads, observation.Stacks.PoolThreads)));
        }
        if (found.Count == 0 && observation.HoldsOutgoingConnection == false)
        {
            found.Add(WithoutDependency(broke, observation, diagnosis, unloadedP99Ms, peakCpuPercent, inFlight));
        }
        if (found.Count == 0)
        {
            // No HTTP call grew (or none was seen): the dependency is not named, and why.
            var unnamed = observation.Causes is not { } trace ? observation.CauseTraceNote is { } note ? $"; which call is not known: {note}" : ""
                : trace.Calls.Count == 0 ? "; no outgoing HTTP call in the step's trace (System.Net.Http's events), so what it waits on is not reached over HttpClient (a database, a queue, a socket) and is not named"
                : $"; no outgoing HTTP call's p99 grew toward the break nor made up half of it ({string.Join("; ", trace.Calls.Select(c => c.Describe()))}), so what it waits on is not named";
            found.Add(UnlessBusy(new CauseFinding("the upstream", null, Invariant($"{PoolNotShort(broke, diagnosis, unloadedP99Ms)} and the CPU peaked at {peakCpuPercent:0} %{cores}{unnamed}"),
                P99Grew(broke, unloadedP99Ms), P99GrowthShare(broke, unloadedP99Ms)), observation.Cores, inFlight));
        }
        return CauseFindings.Rank(found);
    }

    /// <summary>The cause read as "a wait inside the service" when no TCP connection it opened could have held its requests.</summary>
    public const string WaitInside = "a wait inside the service";

    /// <summary>
    /// The cause at a break no rule before it named, of a service that held no TCP connection it opened at the peak
    /// (<see cref="VariantObservation.HoldsOutgoingConnection"/>): it calls no dependency over TCP, so the upstream is not
    /// named. When the machine's cores were spent (by the service, the runner loading it and other processes), the requests
    /// waited on them: the CPU, with the hot method (a CPU-bound service sharing two cores with its runner and a parallel
    /// test held 40 % of them, its threads queueing under a quarter of the requests' time, and was sent upstream, CI
    /// 2026-11-30). With cores to spare, on something inside the process (an async limiter, a channel, a timer) or over
    /// a channel that is not TCP, not named.
    /// </summary>
    private static CauseFinding WithoutDependency(VariantResult broke, VariantObservation observation, StarvationDiagnosis diagnosis, double unloadedP99Ms, double peakCpuPercent, double inFlight)
    {
        const string noConnection = "the service held no TCP connection it opened at the peak, so it waited on no dependency over TCP";
        var grew = PoolNotShort(broke, diagnosis, unloadedP99Ms);
        if (observation.Cores is { Spent: true } spent)
        {
            return new CauseFinding("CPU", observation.Hot?.Dominant?.Describe(), Invariant($"{spent.Describe(inFlight)}; {grew} and {noConnection}: the requests waited on the cores the service shares with the runner and other processes{HotText(observation, diagnosis)}"),
                [new("process CPU at the peak", peakCpuPercent, "%"), .. P99Grew(broke, unloadedP99Ms)], P99GrowthShare(broke, unloadedP99Ms));
        }
        var cores = observation.Cores is { } use ? $"; {use.Describe(inFlight)}" : "";
        return new CauseFinding(WaitInside, null, Invariant($"{grew}, the CPU peaked at {peakCpuPercent:0} %{cores}, and {noConnection}: what the requests waited on inside the process (an async lock or limiter, a channel, a timer) or over a channel that is not TCP is not named"),
            P99Grew(broke, unloadedP99Ms), P99GrowthShare(broke, unloadedP99Ms));
    }

    /// <summary>"; the hot method: ..." where the CPU went, for every CPU cause, or why it is not known.</summary>
    private static string HotText(VariantObservation observation, StarvationDiagnosis diagnosis) =>
        observation.Hot is { } methods ? $"; {methods.Describe(diagnosis.Inputs.CpuMsPerRequest, diagnosis.Inputs.ProcessorCount)}"
            : $"; the hot method is not known: no stack sample of the step ({observation.StacksNote ?? "none was taken"})";

    private static string PoolNotShort(VariantResult broke, StarvationDiagnosis diagnosis, double unloadedP99Ms) =>
        Invariant($"p99 grew from {unloadedP99Ms:0.#} ms to {broke.Total.P99Ms:0.#} ms while the pool, at {diagnosis.Inputs.PoolThreadsAtPeak} threads, was not short");

    private static SummaryFigure[] P99Grew(VariantResult broke, double unloadedP99Ms) => [new("p99 unloaded", unloadedP99Ms, "ms"), new("p99 at the break", broke.Total.P99Ms, "ms")];

    /// <summary>How much of the break's p99 the growth from the unloaded p99 is: the weight of a cause read from that growth.</summary>
    private static double P99GrowthShare(VariantResult broke, double unloadedP99Ms) => broke.Total.P99Ms > 0 ? Math.Max(0, 1 - (unloadedP99Ms / broke.Total.P99Ms)) : 0;

    /// <summary>The cause named when other processes held most of the machine's cores over the break: never the upstream.</summary>
    public const string BusyMachine = "a busy machine";

    /// <summary>
    /// <paramref name="upstream"/>, unless the machine was busy with others over the step (<see cref="CoreUse.BusyWithOthers"/>)
    /// and no outgoing call was seen to grow: then "the machine was busy: other processes held 88 % of the cores", an unsure
    /// cause of the same weight with the upstream's evidence kept beside it, since what the requests waited on is not told
    /// apart from one such step. A traced call that grew is measured whoever held the cores: it stays named, with the others'
    /// share said (a dependency on the same machine shares its cores).
    /// </summary>
    private static CauseFinding UnlessBusy(CauseFinding upstream, CoreUse? cores, double inFlight) =>
        cores is not { BusyWithOthers: true } ? upstream
            : upstream.Place is not null ? upstream with { Evidence = Invariant($"{upstream.Evidence}; other processes held {cores.OthersOverStepPercent:0} % of the machine's cores over the step, so a dependency on this machine may have answered slower for them") }
            : new CauseFinding(BusyMachine, null,
                Invariant($"the machine was busy: other processes held {cores.OthersOverStepPercent:0} % of the cores over the step ({cores.Describe(inFlight)}), so what the requests waited on cannot be told from this step; latency grew while the pool and the service's CPU were not short, which on a quiet machine would point upstream: {upstream.Evidence}"),
                [new("other processes' share of the cores", cores.OthersOverStepPercent, "%"), .. upstream.Figures], upstream.Weight);

    /// <summary>
    /// The GC finding and the GC's share of the break (<see cref="GcShare"/>): when the GC is a cause at the break by its
    /// counters (<see cref="GcFigures.IsCauseBeside"/>), or the CPU samples were in the allocator enough
    /// (<see cref="GcShare.AllocatorLeadShare"/>; its counters may have been lost); weighed by that share, named by the
    /// allocation trace's types and methods; null otherwise.
    /// </summary>
    private static (CauseFinding Finding, GcShare Share)? GcFinding(VariantResult broke, VariantObservation observation, LowerStep? lowest, string lowestLoad)
    {
        var before = lowest is null ? null : GcFigures.Of(lowest.Result, lowest.Observation?.EventsLost ?? 0);
        var (figures, notRead) = GcFigures.Between(broke, double.NegativeInfinity, broke.ElapsedSeconds, observation.EventsLost);
        var allocations = observation.Causes?.Allocations;
        var share = new GcShare(figures?.PauseShare, allocations is not null && observation.Hot is { } hot && AllocatedBytesPerCpuMs(broke, observation.Causes!, allocations) is { } rate ? hot.AllocatorCalls(allocations, rate) : null);
        if (figures?.IsCauseBeside(before) != true && share.InAllocator is not >= GcShare.AllocatorLeadShare)
        {
            return null;
        }
        var named = allocations is not null ? $"; {allocations.Describe(figures?.BytesPerRequest)}"
            : $"; which types and methods allocate is not known: {observation.CauseTraceNote ?? "the step's trace saw no allocation sample"}";
        var counted = figures?.Describe(before, lowestLoad) ?? $"the GC's counters were not read over the step ({notRead})";
        SummaryFigure[] counters = figures is null ? [] : [new("time in GC pauses", 100 * figures.PauseShare, "%"), new("allocated per request", figures.BytesPerRequest, "B"), new("peak heap", figures.PeakHeapBytes, "B")];
        SummaryFigure[] sampled = share.InAllocator is { } inAllocator ? [new("CPU samples in the allocator", 100 * inAllocator, "%")] : [];
        return (new CauseFinding("GC", allocations?.Methods.FirstOrDefault()?.Describe(), $"{counted}{named}; {share.Describe()}", [.. counters, .. sampled], share.OfTheBreak), share);
    }

    /// <summary>The requests in flight over a step, by Little's law: a closed load's users, an open one's rate x its mean time in the system.</summary>
    private static double InFlight(VariantResult step) => step.LoadUnit == "rate" ? step.PeakLoad * step.Total.MeanMs / 1000 : step.PeakLoad;

    /// <summary>
    /// The CPU finding of a break whose runtime was not observed (DOTNET_EnableDiagnostics=0 closes the channel the counters,
    /// the stacks and the traces all come over), from what the operating system still shows of a local process: who held
    /// the machine's cores over the step and how long the service's threads queued for one (<paramref name="cores"/>, read
    /// from /proc). The CPU when they bound the requests (<see cref="CoreUse.Bound"/>, weight 1) or the service held its
    /// cores' limit (<see cref="CpuLimitPercent"/>, weighed by its share); no method named, and why. Null otherwise, or
    /// without the reading: the pool, a lock, the GC and an upstream are not seen from /proc, so none is named.
    /// </summary>
    public static CauseFinding? UnobservedCpuFinding(CoreUse? cores, double inFlight, string? notObservedBecause)
    {
        if (cores is null || !(cores.Bound(inFlight) || cores.ServicePercent >= CpuLimitPercent))
        {
            return null;
        }
        var evidence = $"read from /proc: {cores.Describe(inFlight)}; no method named because the service's diagnostics channel is closed ({notObservedBecause ?? "not observed"})";
        return new CauseFinding("CPU", null, evidence, [new("service's share of the cores", cores.ServicePercent, "%"), new("machine's cores busy", cores.BusyPercent, "%")],
            cores.Bound(inFlight) ? 1 : cores.ServicePercent / 100);
    }

    /// <summary>
    /// The service's allocation per ms of its CPU at the break: the allocation trace's bytes per second over the CPU ms
    /// per second of the step's counted span (the process's CPU time counter), what a frame's native time is weighed
    /// against (<see cref="HotMethods.AllocatorCalls"/>); null when either is not known.
    /// </summary>
    private static double? AllocatedBytesPerCpuMs(VariantResult broke, CauseTrace trace, AllocationSamples allocations) =>
        trace.Seconds > 0 && broke.CountedSpanBetween(double.NegativeInfinity, broke.ElapsedSeconds).Span is { Seconds: > 0 } span && span.Growth(s => s.Process.CpuTimeMs) is > 0 and var cpuMs
            ? allocations.SampledBytes / trace.Seconds / (cpuMs / span.Seconds)
            : null;

    /// <summary>How much an outgoing call's p99 must grow from the lowest step to the break to be the upstream's cause (or take <see cref="UpstreamShare"/> of the break).</summary>
    public const double UpstreamGrowthFactor = 1.5;

    /// <summary>The share of the break an outgoing call accounts for (<see cref="UpstreamWeight"/>) from which it is the upstream's cause, grown or not (a busy machine's unloaded call is slow too).</summary>
    public const double UpstreamShare = 0.5;

    /// <summary>
    /// The upstream finding: the outgoing HTTP call with the highest p99 at the break, when it grew by
    /// <see cref="UpstreamGrowthFactor"/> from the lowest step (or no lower step traced it) or accounts for
    /// <see cref="UpstreamShare"/> of the break (<see cref="UpstreamWeight"/>), weighed by that share, with whether the
    /// connection pool to it was the limit; null otherwise.
    /// </summary>
    private static CauseFinding? UpstreamFinding(VariantResult broke, VariantObservation observation, LowerStep? lowest, string lowestLoad, double inFlight)
    {
        if (observation.Causes is not { Calls: [var slowest, ..] } trace)
        {
            return null;
        }
        var (weight, measure) = UpstreamWeight(slowest, trace.CallsSeconds, inFlight, broke);
        var before = lowest?.Observation?.Causes?.Calls.FirstOrDefault(c => c.Call == slowest.Call);
        if (before is not null && slowest.P99Ms < UpstreamGrowthFactor * before.P99Ms && weight < UpstreamShare)
        {
            return null;
        }
        var grew = before is null ? Invariant($"p99 {slowest.P99Ms:#,0} ms at the break (no lower step's trace saw it)") : Invariant($"p99 {before.P99Ms:#,0} ms at {lowestLoad}, {slowest.P99Ms:#,0} ms at the break");
        var pool = slowest.PoolWasTheLimit
            ? Invariant($"the service's connection pool to it was the limit: {slowest.QueuedRequests} of {slowest.Requests} calls waited for a connection, {slowest.MeanQueueMs:0.#} ms on average ({100 * slowest.QueueShare:0} % of the calls' time)")
            : Invariant($"the service's connection pool to it was not the limit ({slowest.QueuedRequests} of {slowest.Requests} calls waited for a connection, {100 * slowest.QueueShare:0} % of the calls' time): the dependency itself answered slower");
        return new CauseFinding("the upstream", slowest.Call, $"{slowest.Call}: {grew}; {measure}; {pool}; {slowest.Describe()}",
            [new("call p99 at the break", slowest.P99Ms, "ms"), .. before is null ? Array.Empty<SummaryFigure>() : [new("call p99 at the lowest step", before.P99Ms, "ms")], new("call's share of the break", 100 * weight, "%"), new("time waiting for a connection", 100 * slowest.QueueShare, "%")],
            weight);
    }

    /// <summary>
    /// The share of the break an outgoing call accounts for, and in words: its mean share of the requests' time at the
    /// break (<see cref="UpstreamCall.ShareOfRequests"/>), what a faster dependency would take off every request; where
    /// that is not known (no trace length, no load in flight), its p99 over the break's. Not the p99s' ratio first: the
    /// request's tail and the call's need not be the same requests (a cold service whose call was 86 % of its requests'
    /// mean time read 0.52 by its p99, and ranked below a weaker finding).
    /// </summary>
    private static (double Weight, string Words) UpstreamWeight(UpstreamCall call, double tracedSeconds, double inFlight, VariantResult broke)
    {
        if (call.ShareOfRequests(tracedSeconds, inFlight) is { } share)
        {
            // What it costs a request: that share of the held load's mean time (the climb's requests were fewer at once).
            var requestMs = broke.HeldAt(broke.PeakLoad)?.Stats.MeanMs ?? broke.Total.MeanMs;
            return (share, Invariant($"the calls took {100 * share:0} % of the requests' time at the break, about {share * requestMs:0.#} ms of each request's {requestMs:0.#} ms on average ({call.Requests} calls of {call.MeanMs:0.#} ms on average over {tracedSeconds:0.#} s traced, {inFlight:0.#} requests in flight)"));
        }
        var p99Share = broke.Total.P99Ms > 0 ? Math.Min(1, call.P99Ms / broke.Total.P99Ms) : 0;
        return (p99Share, Invariant($"its p99 is {100 * p99Share:0} % of the break's p99 (its share of the requests' time is not known: no length of its trace or load in flight)"));
    }

    /// <summary>
    /// The CPU finding: when the process used its cores' limit, or the machine's cores were spent while the requests waited
    /// for one (<see cref="CoreUse.Bound"/>), or the stack sample found the requests' pool threads running and none blocked;
    /// null otherwise. With the hot method (<see cref="HotMethods"/>) as its place and evidence.
    /// </summary>
    private static CauseFinding? CpuFinding(VariantObservation observation, StarvationDiagnosis diagnosis, double peakCpuPercent, double inFlight, string cores)
    {
        // Where the CPU went, for every CPU cause: the hot method, what it costs per request, the load without it.
        var hot = HotText(observation, diagnosis);
        var running = (diagnosis.Inputs.BusySite is { } busy ? $"; {busy}" : "") + hot;
        var place = observation.Hot?.Dominant?.Describe();
        SummaryFigure[] figures = [new("process CPU at the peak", peakCpuPercent, "%")];
        if (peakCpuPercent >= CpuLimitPercent)
        {
            return new CauseFinding("CPU", place, Invariant($"the process used {peakCpuPercent:0} % of its {diagnosis.Inputs.ProcessorCount} cores{running}{cores}"), figures, peakCpuPercent / 100);
        }
        if (observation.Cores is { } spent && spent.Bound(inFlight))
        {
            return new CauseFinding("CPU", place, Invariant($"{spent.Describe(inFlight)}{running}"), figures, 1);
        }
        // The threads that held the requests ran, none blocked: the cores bound them, also when other processes on a shared
        // machine held some of the cores; unless the service's threads were measured queueing for a core under the share
        // at which the cores bind: then the requests waited elsewhere, off any thread (an async call), and the few threads
        // caught running were not what held them (a service waiting on a dependency that serves 6 at a time, 2 of 3
        // pool threads caught running its continuations with 32 requests in flight, the process at 7 % of its cores).
        if (observation.Cores?.WaitedShare(inFlight) is { } waited && waited < CoreUse.WaitedForCoreShare)
        {
            return null;
        }
        return diagnosis.Inputs.BusySite is { } computing
            ? new CauseFinding("CPU", place, Invariant($"the stack sample found the requests' pool threads running, none blocked: {computing}; the process used {peakCpuPercent:0} % of its {diagnosis.Inputs.ProcessorCount} cores, under the {CpuLimitPercent:0} % that alone would show it: other processes on the machine may have held the rest{cores}{hot}"), figures, CpuLimitPercent / 100)
            : null;
    }
}
