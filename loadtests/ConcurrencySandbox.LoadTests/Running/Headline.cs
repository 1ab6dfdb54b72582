using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Running;

/// <summary>
/// The report's headline, read in ten seconds (issue 37 item 7): at most <see cref="MostSentences"/> sentences of at most
/// <see cref="MostWords"/> words each, in this order: what to change and where (method, file:line, route); the load held,
/// where it broke and why; the fix and what it buys; how sure. A sentence with nothing to say is left out. Everything
/// else (the SLO and how it was set, the search, the diagnosis with its definitions) goes below it, in
/// <see cref="CapacityFinding.Describe"/> and the diagnosis paragraph. Every figure it prints is one of
/// <see cref="Figures"/>, rounded as printed, which summary.json keeps beside it (<c>headlineFigures</c>); a figure that
/// was not measured is left out, never printed as 0.
/// </summary>
internal sealed record Headline(IReadOnlyList<string> Sentences, IReadOnlyList<SummaryFigure> Figures)
{
    public const int MostSentences = 4;

    public const int MostWords = 25;

    /// <summary>How many candidate methods the first sentence lists when the runner cannot tell which blocks; the rest are below.</summary>
    public const int ListedCandidates = 3;

    public string Text => string.Join(" ", Sentences);

    /// <summary>
    /// The headline of <paramref name="finding"/> (a --find-capacity search, or a plain profile judged by the same rule)
    /// with the diagnosis of <paramref name="observation"/> (the break's step, else the most starved; null when the
    /// runtime was not observed) and, with --verify-fix, what the ramp with the sized minimum held (<paramref name="verifiedHeld"/>).
    /// </summary>
    public static Headline Of(CapacityFinding finding, VariantObservation? observation, double? verifiedHeld = null)
    {
        var words = new Words(finding.Unit);
        var diagnosis = observation?.Diagnosis;
        var cause = CauseOf(finding, diagnosis);
        var sentences = new[]
        {
            cause switch
            {
                Cause.Other => Other(finding.Findings[0]),
                Cause.Unclear => Unclear(words, finding.Findings[0]),
                _ => Change(words, cause, observation, finding.Findings.FirstOrDefault()),
            },
            Load(words, finding, cause, diagnosis),
            Fix(words, cause, observation, finding.Findings.FirstOrDefault(), verifiedHeld),
            Sure(words, cause, observation, UpstreamTraced(finding)),
        };
        return new Headline([.. sentences.OfType<string>()], words.Figures);
    }

    /// <summary>What the headline names: the cause at the break, or what the diagnosis found when nothing broke.</summary>
    private enum Cause
    {
        /// <summary>The runtime was not observed: load and latency only.</summary>
        NotObserved,

        /// <summary>The runtime was not observed, and /proc showed the cores bound the break: the CPU, no method named.</summary>
        UnobservedCpu,

        /// <summary>Held, and the pool never starved: nothing to change at the loads tried.</summary>
        Nothing,

        /// <summary>The pool starved (at the break, or while latency held).</summary>
        Starvation,
        Cpu,
        Lock,

        /// <summary>The GC: its pauses and the allocator's work (<see cref="CapacityFinding.FindingsAt"/>'s GC finding).</summary>
        Gc,
        Upstream,

        /// <summary>Other processes held most of the machine's cores over the break (<see cref="CapacityFinding.BusyMachine"/>): unsure, never the upstream.</summary>
        BusyMachine,

        /// <summary>A cause the headline has no words of its own for (a ranked finding of a kind added later): named as the finding names it.</summary>
        Other,

        /// <summary>Broke, but the heaviest finding accounts for too little of the break to be named its cause (<see cref="CauseFindings.Accounts"/>).</summary>
        Unclear,
    }

    // The cause at the break: the first ranked finding's, else as CapacityFinding.CauseOf worded it (a plain profile);
    // without a break, a starved pool or nothing.
    private static Cause CauseOf(CapacityFinding finding, StarvationDiagnosis? diagnosis)
    {
        if (diagnosis is null)
        {
            // Not observed, and /proc showed the cores bound it (CapacityFinding.UnobservedCpuFinding): the CPU, with no method.
            return finding.Findings is [{ Cause: "CPU" }, ..] ? Cause.UnobservedCpu : Cause.NotObserved;
        }
        var at = finding.Findings.Count > 0 ? finding.Findings[0].Cause : finding.Cause ?? "";
        if (finding.Findings.Count > 0 && !CauseFindings.Accounts(finding.Findings[0]))
        {
            return Cause.Unclear;
        }
        if (finding.Findings.Count > 0 && at is not ("pool starvation" or "CPU" or "a contended lock" or "GC" or "the upstream" or CapacityFinding.BusyMachine))
        {
            return Cause.Other;
        }
        return at.StartsWith("pool starvation", StringComparison.Ordinal) ? Cause.Starvation
            : at.StartsWith("CPU", StringComparison.Ordinal) ? Cause.Cpu
            : at.StartsWith("a contended lock", StringComparison.Ordinal) ? Cause.Lock
            : at == "GC" ? Cause.Gc
            : at.StartsWith("the upstream", StringComparison.Ordinal) ? Cause.Upstream
            : at.StartsWith(CapacityFinding.BusyMachine, StringComparison.Ordinal) ? Cause.BusyMachine
            : diagnosis.Starved ? Cause.Starvation
            : Cause.Nothing;
    }

    // 1. What to change and where.
    private static string? Change(Words w, Cause cause, VariantObservation? observation, CauseFinding? first)
    {
        var stacks = observation?.Stacks;
        switch (cause)
        {
            case Cause.Starvation when stacks?.Top is { } top:
                if (top.Source is { Unsure: true } unsure)
                {
                    var listed = unsure.Listed.Take(ListedCandidates).Select(w.Step);
                    var more = unsure.Candidates > ListedCandidates ? $", and {w.Figure("candidates not listed", unsure.Candidates - ListedCandidates)} more below" : "";
                    return Invariant($"Change the blocking call in one of {w.Figure("candidates", unsure.Candidates)} methods, unsure which: {string.Join(", ", listed)}{more}.");
                }
                if (stacks.Holding is { Count: > 1 } holding)
                {
                    return Shared(w, stacks, holding);
                }
                return top.Source is { } call
                    ? $"Change `{call.Method}`{w.Where(top.AllLines, call.Scope)}: it blocks on {Short(call.Primitive)}."
                    : $"Change `{stacks.MethodToChange}`: it blocks in {top.CallSite.Split(" -> ")[^1]}.";
            case Cause.Starvation:
                return "Change the blocking call the pool's threads wait in: the stack sample did not catch it (below).";
            case Cause.Cpu when observation?.Hot?.Dominant is { } hot:
                return Invariant($"Make `{hot.Method}`{w.Where(hot.Line, hot.Route)} cheaper: it ran in {w.Figure("hot method's CPU share", 100 * hot.Share, "%")} % of the CPU samples.");
            case Cause.Cpu:
                return "The cores bound it, and no one method of the application dominates their time (below).";
            case Cause.Lock when stacks?.LockSite?.Source is { } locked:
                return $"Shorten the lock in `{locked.Method}`{w.Where(locked.Line, locked.Route)}: requests pass it one at a time.";
            case Cause.Lock:
                return "Shorten the contended lock the pool's threads wait on (below).";
            case Cause.Gc when observation?.Causes?.Allocations is { Methods: [var site, ..] }:
                var route = observation.Hot?.Methods.FirstOrDefault(m => m.Method == site.Name)?.Route;
                var perRequest = first?.Figures.FirstOrDefault(f => f.Name == "allocated per request") is { } bytes
                    ? $", about {w.Figure("MB allocated per request", bytes.Value / 1_000_000, "MB", "0.##")} MB per request" : "";
                return Invariant($"Allocate less in `{site.Name}`{w.Where(site.Line, route)}: it allocated {w.Figure("method's share of the sampled bytes", 100 * site.Share, "%", "0")} % of the sampled bytes{perRequest}.");
            case Cause.Gc:
                return "Allocate less per request: the GC's work held the break, and which methods allocate was not sampled (below).";
            case Cause.Upstream:
                return "No method of the service to change: latency grew while its pool and CPU were not short, so look upstream.";
            case Cause.BusyMachine when first?.Figures.FirstOrDefault() is { } others:
                return Invariant($"No cause named: the machine was busy, other processes held {w.Figure(others.Name, others.Value, "%", "0")} % of the cores.");
            case Cause.NotObserved:
                return "No method named: the service's runtime was not observed (why is below).";
            case Cause.UnobservedCpu:
                return "The cores bound it, read from /proc: no method named, as the service's diagnostics channel is closed (below).";
            default:
                return null;
        }
    }

    // 1. when two or more call sites hold comparable shares of the blocked threads: each named with its share (up to
    // ListedCandidates, the rest below), none picked.
    private static string Shared(Words w, BlockingSites stacks, IReadOnlyList<BlockingSite> holding)
    {
        var blocked = stacks.BlockedThreads;
        var shown = holding.Count > ListedCandidates ? ListedCandidates - 1 : holding.Count;
        var named = holding.Take(shown).Select(s => $"`{BlockingSites.MethodOf(s)}`{w.Where(s.AllLines, null)} {w.Figure("share of the blocked threads", 100.0 * s.Threads / blocked, "%", "0")} %").ToList();
        if (holding.Count > shown)
        {
            named.Add($"{w.Figure("call sites not listed", holding.Count - shown)} more below");
        }
        return $"Change the {BlockingSites.CountWord(holding.Count)} call sites holding the pool's blocked threads: {CountText.Listed(named)}.";
    }

    // 1. for a cause without words of its own: the finding's cause and place, its evidence below.
    private static string Other(CauseFinding first) =>
        $"The first cause at the break is {first.Cause}{(first.Place is { } place ? $", in {place}" : "")}; its evidence is below.";

    // 1. when no finding accounts for enough of the break: none named as its cause, the heaviest said with its share.
    private static string Unclear(Words w, CauseFinding first) =>
        $"No clear cause of the break: the heaviest finding, {first.Cause}, accounts for {w.Figure("heaviest finding's share of the break", 100 * first.Weight, "%")} % of it; the findings are below.";

    // 2. The load held, where it broke and why; a starved pool that kept p99 within the SLO is said so, never "broke".
    private static string Load(Words w, CapacityFinding finding, Cause cause, StarvationDiagnosis? diagnosis)
    {
        // Held at the SLO within the p99's noise, or past it in one round that did not repeat: said, so a reader does not take it for a clear hold (the why is below).
        var noise = finding.HeldJudged?.Verdict switch
        {
            StepJudgement.HeldWithinNoise => " (at the SLO, within noise)",
            StepJudgement.StarvedThenHeld => " (starved in one round; held when confirmed)",
            _ => "",
        };
        var held = finding.HeldLoad is { } h ? $"Held {w.Load("held", h)}{noise}" : "Held no load tried";
        var slo = double.IsFinite(finding.Slo.P99Ms) ? $"the SLO of {w.Figure("SLO p99", finding.Slo.P99Ms, "ms")} ms" : "an SLO (none was set)";
        if (finding.BrokeAt is { } broke)
        {
            var stats = finding.Broke;
            var why = stats switch
            {
                null => "it broke the SLO",
                // No answer: a timeout is a lower bound on a latency, never one (ServiceSlo.BrokeBy).
                { Completed: 0, Requests: 0 } => "no request was sent in it, every user still waiting on an earlier one",
                { Completed: 0 } => $"no request was answered ({w.Figure("timed out at the break", stats.TimedOut, "requests", "0")} timed out, {w.Figure("failed without an answer at the break", stats.Failed - stats.TimedOut, "requests", "0")} failed)",
                _ when stats.P99Ms > finding.Slo.P99Ms && stats.Outcomes.FailedPercent <= Experiments.Experiment.MaxFailedPercent =>
                    $"p99 {(stats.P99.IsLowerBound ? "\u2265 " : "")}{w.Figure("p99 at the break", stats.P99Ms, "ms")} ms passed {slo}",
                // Within the SLO and its failures: its users waited through it on earlier requests (ServiceSlo.WaitedThrough).
                _ when stats.Outcomes.FailedPercent <= Experiments.Experiment.MaxFailedPercent && finding.BrokeBecause is { } waited => waited,
                _ => $"{w.Figure("failed at the break", stats.Outcomes.FailedPercent, "%")} % of its requests failed or timed out",
            };
            var by = cause switch
            {
                Cause.Starvation => ", by pool starvation",
                Cause.Cpu or Cause.UnobservedCpu => ", by the CPU",
                Cause.Lock => ", at a contended lock",
                Cause.Gc => ", by the GC",
                Cause.Upstream => ", by the upstream",
                Cause.BusyMachine => ", on a busy machine",
                Cause.Other => $", by {finding.Findings[0].Cause}",
                _ => "",
            };
            return $"{held}; broke at {w.Load("broke at", broke)}{by}: {why}.";
        }
        var within = double.IsFinite(finding.Slo.P99Ms) ? $" within {slo}" : " with no SLO to judge p99 by";
        return diagnosis?.Inputs.Spell is { Happened: true } spell
            ? $"{held}{within}; the pool starved for {w.Figure("starved", spell.StarvedSeconds, "s", "0.#")} s, but latency held."
            : $"{held}{within}; the break is above.";
    }

    // 3. The fix and what it buys.
    private static string? Fix(Words w, Cause cause, VariantObservation? observation, CauseFinding? first, double? verifiedHeld)
    {
        var diagnosis = observation?.Diagnosis;
        switch (cause)
        {
            case Cause.Starvation when diagnosis is not null:
                var async = diagnosis.AsyncCapacity is { } a && a >= 0.5 ? $" (about {w.Load("async capacity", a, "0")})" : "";
                var minimum = Invariant($"set the pool's minimum to {w.Figure("minimum threads", diagnosis.NeededThreads, "threads")} threads");
                var buys = diagnosis.MinimumCapacity >= 0.5 ? $" (about {w.Load("capacity at the minimum", diagnosis.MinimumCapacity, "0")})" : "";
                var measured = verifiedHeld is { } v ? $"; with it, measured: held {w.Load("held with the minimum", v)}" : "";
                var them = observation?.Stacks?.Holding.Count > 1 ? "them" : "it";
                return $"Fix: make {them} async{async}, or {minimum}{buys}{measured}.";
            case Cause.Cpu when observation?.Hot?.Dominant is { } hot && diagnosis is not null && HotMethods.Buys(hot, observation.Hot.CpuSamples, diagnosis.Inputs.CpuMsPerRequest, diagnosis.Inputs.ProcessorCount) is { } buy:
                return $"Fix: make it cheaper; without it the cores carry {w.Figure("requests/s without the hot method", buy.WithoutPerSecond, "requests/s", "0")} requests/s or more, not {w.Figure("requests/s now", buy.NowPerSecond, "requests/s", "0")}.";
            case Cause.Cpu or Cause.UnobservedCpu:
                return "Fix: cheaper requests or more cores; more pool threads would not help.";
            case Cause.Lock:
                return "Fix: hold the lock for less time or not at all; more threads or cores would not help.";
            case Cause.Gc when first is not null:
                return Invariant($"Fix: allocate less per request (reuse buffers, stream the output): the GC took {w.Figure("GC's share of the break", 100 * first.Weight, "%", "0")} % of the break's time.");
            case Cause.Upstream:
                return "Fix: make the dependency faster or call it less; more pool threads or cores would not help.";
            default:
                return null;
        }
    }

    private const string Unsure = "Unsure";

    /// <summary>
    /// How sure <paramref name="threads"/> of <paramref name="sampled"/> pool threads waiting at one place make the headline
    /// of that place: "Sure" when they are a majority beyond the sample's noise (the low end of their share's 95 % interval,
    /// <see cref="ShareInterval"/>, over half: 4 of 4, 9 of 10, 40 of 43), "Fairly sure" when they are at least half but too
    /// few to rule out fewer (1 of 2, 2 of 3), <see cref="Unsure"/> under half (1 of 3: most threads were elsewhere).
    /// </summary>
    internal static string SureOf(int threads, int sampled) =>
        ShareInterval.Of(threads, sampled).Low > 0.5 ? "Sure" : 2 * threads >= sampled && sampled > 0 ? "Fairly sure" : Unsure;

    /// <summary>"Sure: 40 of 43", "Unsure: only 1 of 3": <see cref="SureOf"/> the threads at the named place, with its figures; the starvation and the lock sentence alike.</summary>
    private static string SureFrom(Words w, int threads, int sampled)
    {
        var sure = SureOf(threads, sampled);
        var only = sure == Unsure ? "only " : "";
        return Invariant($"{sure}: {only}{w.Figure("threads there", threads, "threads")} of {w.Figure("pool threads sampled", sampled, "threads")}");
    }

    // 4. How sure: how much of the stack sample the named place held, or why the runner cannot say.
    private static string? Sure(Words w, Cause cause, VariantObservation? observation, bool upstreamTraced)
    {
        var stacks = observation?.Stacks;
        switch (cause)
        {
            case Cause.Starvation when stacks?.Top is { Source.Unsure: true }:
                return "Unsure which: no frame of the application was on the stack, and each of them makes that call.";
            case Cause.Starvation when stacks?.Top is { } top:
                var (threads, there) = stacks.Holding is { Count: > 1 } sites
                    ? (sites.Sum(s => s.Threads), $"at these {BlockingSites.CountWord(sites.Count)} sites")
                    : (top.Threads, "there");
                return Invariant($"{SureFrom(w, threads, stacks.PoolThreads)} sampled pool threads waited {there}.");
            case Cause.Cpu when observation?.Hot is { } hot:
                return Invariant($"{(hot.Dominant is null ? "Unsure" : "Sure")}: from {w.Figure("CPU samples", hot.CpuSamples, "samples")} CPU samples of the service at the break.");
            case Cause.Lock when stacks?.LockSite is { } site:
                return Invariant($"{SureFrom(w, site.Threads, stacks.PoolThreads)} sampled pool threads waited for it.");
            case Cause.Gc when observation?.Causes?.Allocations is { Methods: [var allocating, ..] } allocations:
                return Invariant($"{(allocating.Share > HotMethods.DominantShare ? "Sure" : "Unsure")}: from {w.Figure("allocation samples", allocations.Samples, "samples", "0")} allocation samples of the service at the break.");
            case Cause.Upstream:
                return upstreamTraced
                    ? "Sure which dependency: the runner traced the service's outgoing calls; the slowest, by host and port, is below."
                    // Traced, and no HTTP call: what it waits on is not HTTP (a raw TCP store, issue 38's cold service Vault).
                    : observation?.Causes is { Calls.Count: 0 }
                    ? "Unsure which dependency: the service made no HTTP call while traced, so it waits on something else (a database, a queue, a socket)."
                    : "Unsure which dependency: the runner does not see the service's outgoing calls.";
            case Cause.BusyMachine:
                return "Unsure of the cause: run it again on a quieter machine; what the step showed is below.";
            case Cause.NotObserved:
                return "Unsure of the cause: only load and latency were measured.";
            case Cause.UnobservedCpu:
                return "Unsure of the place: with the channel closed, only the process's CPU time was read (DOTNET_EnableDiagnostics=0 closes it).";
            case Cause.Unclear:
                return Invariant($"Unsure of the cause: none of the findings accounts for the {w.Figure("share a cause is named from", 100 * CauseFindings.LeastShare, "%", "0")} % of the break a cause is named from.");
            case Cause.Starvation or Cause.Cpu or Cause.Lock:
                // A sample can be taken and still name nothing (it ended after the load did, with no pool thread in user code).
                return stacks is null ? "Unsure of the place: the stack sample named no call site (why is below)." : null;
            default:
                return null;
        }
    }

    /// <summary>
    /// Whether the upstream finding at the break names the call it traced (host:port and path). The headline leaves that
    /// place out: a host:port is no figure of the summary's (an address's numbers would read as figures), so it is below.
    /// </summary>
    private static bool UpstreamTraced(CapacityFinding finding) => finding.Findings is [{ Cause: "the upstream", Place: not null }, ..];

    /// <summary>The primitive's first words: ".Result" of ".Result (a blocking wait on a Task)".</summary>
    private static string Short(string primitive) => primitive.Split(" (")[0];

    /// <summary>The headline's words for figures: each printed as rounded and kept as that value, in <see cref="Figures"/>.</summary>
    private sealed class Words(string unit)
    {
        public List<SummaryFigure> Figures { get; } = [];

        public string Figure(string name, double value, string figureUnit = "", string format = "0.#")
        {
            var text = value.ToString(format, CultureInfo.InvariantCulture);
            Figures.Add(new SummaryFigure(name, double.Parse(text, CultureInfo.InvariantCulture), figureUnit));
            return text;
        }

        /// <summary>"60 users", "1 user", "250 requests/s"; a prediction whole (<paramref name="format"/> "0").</summary>
        public string Load(string name, double value, string format = "0.#")
        {
            var text = Figure(name, value, unit, format);
            return $"{text} {(text == "1" && unit == "users" ? "user" : unit)}";
        }

        /// <summary>" (Orders.cs:22, GET /orders/{id:int})": the line and the route, each when known.</summary>
        public string Where(SourceLine? line, string? route) => Where(line is null ? [] : [line], route);

        /// <summary>" (Orders.cs:69, 70, GET /quotes/{id:int})": the lines (each file named once) and the route, each when known.</summary>
        public string Where(IReadOnlyList<SourceLine> lines, string? route)
        {
            var parts = lines.GroupBy(l => Path.GetFileName(l.File)).Select(f => $"{f.Key}:{string.Join(", ", f.Select(l => Figure("line", l.Line)))}").ToList();
            if (route is not null)
            {
                parts.Add(route);
            }
            return parts.Count == 0 ? "" : $" ({string.Join(", ", parts)})";
        }

        /// <summary>"A.X (A.cs:12)": a candidate method with its line.</summary>
        public string Step(CallStep step) => $"{step.Method}{Where(step.Line, null)}";
    }
}
