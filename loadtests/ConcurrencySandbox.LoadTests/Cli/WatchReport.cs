using System.Text.Json;
using System.Text.Json.Serialization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Cli;

/// <summary>A count of the pool's adjustments for one reason (Starvation, ClimbingMove, CooperativeBlocking, ...).</summary>
internal sealed record WatchReasonCount(string Reason, int Count);

/// <summary>The call site an episode's pool threads waited in, in source words, as the diagnosis under load names it.</summary>
internal sealed record WatchCallSite(string Method, string Primitive, string? File, int? Line, string? Route, int Threads, int PoolThreads);

/// <summary>One starvation episode as watch.json holds it (seconds since the watch began, and the same instant in UTC).</summary>
internal sealed record WatchEpisode(
    int Number, DateTimeOffset StartUtc, double StartSeconds, double DurationSeconds, bool Drained,
    int ThreadsAtStart, int PeakThreads, long QueuedAtStart, long PeakQueued, int StarvationInjections, int BlockingInjections, IReadOnlyList<WatchReasonCount> OtherAdjustments,
    string WhatWaited, WatchCallSite? CallSite, bool CpuBound, string? Fix)
{
    /// <summary>Every call site holding a comparable share of the episode's blocked threads, <see cref="CallSite"/> first, when two or more do (none picked); null otherwise.</summary>
    public IReadOnlyList<WatchCallSite>? CallSites { get; init; }
}

/// <summary>
/// What <c>watch</c> saw, the one input of watch.md and watch.json: the process and how it was reached, how long and how
/// it was watched (samples, the ranges of the pool's threads and queue, its adjustments by reason) and each episode.
/// </summary>
internal sealed record WatchReport(
    string Process, string Channel, DateTimeOffset StartedUtc, double WatchedSeconds, string EndedBecause, bool ProcessExited,
    int Samples, int ThreadsMin, int ThreadsMax, long QueuedMin, long QueuedMax, int EventsLost,
    IReadOnlyList<WatchReasonCount> Adjustments, IReadOnlyList<WatchEpisode> Episodes)
{
    public const string MarkdownFile = "watch.md";
    public const string JsonFile = "watch.json";

    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web)
    {
        WriteIndented = true,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    public static WatchReport Of(
        DiagnosticsChannel channel, DateTimeOffset startedUtc, double watchedSeconds, string endedBecause, bool processExited,
        IReadOnlyList<PoolReading> readings, IReadOnlyList<AdjustmentMark> marks, IReadOnlyList<StarvationEpisode> episodes, IReadOnlyList<EpisodeDiagnosis> diagnoses, int eventsLost) =>
        new(channel.Process, channel.Description, startedUtc, watchedSeconds, endedBecause, processExited, readings.Count,
            readings.Count == 0 ? 0 : readings.Min(r => r.Threads), readings.Count == 0 ? 0 : readings.Max(r => r.Threads),
            readings.Count == 0 ? 0 : readings.Min(r => r.Queued), readings.Count == 0 ? 0 : readings.Max(r => r.Queued), eventsLost,
            [.. marks.GroupBy(m => m.Reason).Select(g => new WatchReasonCount(g.Key, g.Count())).OrderByDescending(c => c.Count).ThenBy(c => c.Reason, StringComparer.Ordinal)],
            [.. episodes.Select((e, i) => Episode(i + 1, startedUtc, e, diagnoses[i]))]);

    private static WatchEpisode Episode(int number, DateTimeOffset startedUtc, StarvationEpisode e, EpisodeDiagnosis d)
    {
        WatchCallSite Site(BlockingSite s) =>
            new(s.Source?.Method ?? s.CallSite, s.Source?.Primitive ?? "", s.Source?.Line?.File, s.Source?.Line?.Line, s.Source?.Route, s.Threads, d.PoolThreads);
        return new WatchEpisode(number, startedUtc.AddSeconds(e.StartSeconds), e.StartSeconds, e.DurationSeconds, e.Drained,
            e.ThreadsAtStart, e.PeakThreads, e.QueuedAtStart, e.PeakQueued, e.StarvationInjections, e.BlockingInjections,
            [.. e.OtherInjections.Select(o => new WatchReasonCount(o.Reason, o.Count))], d.WhatWaited, d.Site is { } site ? Site(site) : null, d.CpuBound, d.Fix)
        {
            CallSites = d.Holding.Count > 1 ? [.. d.Holding.Select(Site)] : null,
        };
    }

    /// <summary>The line printed as an episode ends: when, how long, the pool, what waited, the fix.</summary>
    public static string Line(int number, StarvationEpisode e, EpisodeDiagnosis d) =>
        Invariant($"episode {number}: at +{e.StartSeconds:0.0} s for {e.DurationSeconds:0.0} s{(e.Drained ? "" : " (still starving when the watch ended)")}, pool {e.ThreadsAtStart} -> {e.PeakThreads} threads, queue {e.QueuedAtStart} -> {e.PeakQueued} at most, {Injections(e.StarvationInjections, e.BlockingInjections)}; {d.WhatWaited}{(d.Fix is { } fix ? $"; fix: {fix}" : "")}");

    private static string Injections(int starvation, int blocking) =>
        $"{CountText.Of(starvation)} Starvation and {CountText.Of(blocking)} CooperativeBlocking {CountText.Noun(starvation + blocking, "injection")}";

    /// <summary>The closing line: how many episodes, how long, where the report is.</summary>
    public string Closing(string markdownPath) =>
        Invariant($"watch: {(Episodes.Count == 0 ? "no starvation" : CountText.Of(Episodes.Count, "starvation episode"))} in {WatchedSeconds:0.#} s of {Process} ({EndedBecause}); report: {markdownPath}");

    public static void Write(string folder, WatchReport report)
    {
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, JsonFile), JsonSerializer.Serialize(report, Json));
        File.WriteAllText(Path.Combine(folder, MarkdownFile), report.Markdown());
    }

    public string Markdown()
    {
        var page = new HtmlPage(Invariant($"watch: {Process}"))
            .Paragraph(Headline())
            .Paragraph(Invariant($"Watched {Channel} from {StartedUtc:yyyy-MM-dd HH:mm:ss} UTC for {WatchedSeconds:0.#} s ({EndedBecause}), sending it no request: {Samples} counter samples, the pool's threads {ThreadsMin} to {ThreadsMax}, its queue {QueuedMin} to {QueuedMax} work items; the pool's adjustments by reason: {(Adjustments.Count == 0 ? "none" : string.Join(", ", Adjustments.Select(a => $"{a.Reason} {a.Count}")))}.{(EventsLost > 0 ? $" INCOMPLETE: the runtime dropped {EventsLost} events (its session buffers were full)." : "")}"))
            .Paragraph(ProcessExited ? Invariant($"ENDED EARLY: {EndedBecause}; this report holds what was seen until then.") : null);
        if (Episodes.Count == 0)
        {
            return page.ToMarkdown();
        }
        page.Paragraph("An episode starts where the pool's queue began to hold work before the runtime's first starving injection (ThreadPoolWorkerThreadAdjustment with reason Starvation, or CooperativeBlocking while work was queued: a pool thread blocked waiting on a Task; hill climbing alone is no episode) and ends at the first counter sample after its last such injection whose queue is empty.")
            .Table(new TextTable(
                ["#", "start (UTC)", "since watch began", "lasted", "threads at start -> peak", "queue at start -> peak", "Starvation injections", "CooperativeBlocking injections", "other adjustments"],
                [.. Episodes.Select(e => (IReadOnlyList<string>)
                [
                    Invariant($"{e.Number}"), Invariant($"{e.StartUtc:HH:mm:ss.f}"), Invariant($"{e.StartSeconds:0.0} s"), Invariant($"{e.DurationSeconds:0.0} s{(e.Drained ? "" : ", still starving at the end")}"),
                    Invariant($"{e.ThreadsAtStart} -> {e.PeakThreads}"), Invariant($"{e.QueuedAtStart} -> {e.PeakQueued}"), Invariant($"{e.StarvationInjections}"), Invariant($"{e.BlockingInjections}"),
                    e.OtherAdjustments.Count == 0 ? "none" : string.Join(", ", e.OtherAdjustments.Select(a => $"{a.Reason} {a.Count}")),
                ])],
                new HashSet<int>()));
        foreach (var e in Episodes)
        {
            page.Heading(2, Invariant($"Episode {e.Number}"))
                .Paragraph(Invariant($"What waited: {e.WhatWaited}."))
                .Paragraph(e.Fix is { } fix ? $"Fix: {fix}" : "Fix: none named: the stack sample does not show the pool's threads in a known blocking call or running on a core.");
        }
        return page.ToMarkdown();
    }

    private string Headline()
    {
        if (Episodes.Count == 0)
        {
            return Invariant($"Nothing starved: in the {WatchedSeconds:0.#} s watched the runtime injected no thread for Starvation, nor for CooperativeBlocking while work was queued.");
        }
        var starved = Episodes.Sum(e => e.DurationSeconds);
        return Invariant($"The pool starved in {CountText.Of(Episodes.Count, "episode")}, {starved:0.#} s of the {WatchedSeconds:0.#} s watched, {Injections(Episodes.Sum(e => e.StarvationInjections), Episodes.Sum(e => e.BlockingInjections))} in all; {MostNamed()}");
    }

    /// <summary>
    /// The call site the episodes name most, each episode counted for every site it names (all the comparable ones,
    /// <see cref="WatchEpisode.CallSites"/>, as its line and fix do, not only the one its sample ranked first); sites
    /// named as often are all said, none picked.
    /// </summary>
    private string MostNamed()
    {
        var counts = Episodes
            .SelectMany(e => (e.CallSites ?? (e.CallSite is { } site ? [site] : [])).Select(s => s.Method).Distinct())
            .GroupBy(method => method)
            .Select(g => (Method: g.Key, Episodes: g.Count()))
            .ToList();
        if (counts.Count == 0)
        {
            return "no stack sample named a call site.";
        }
        var most = counts.Max(c => c.Episodes);
        var named = counts.Where(c => c.Episodes == most).Select(c => c.Method).Order(StringComparer.Ordinal).ToList();
        return named.Count == 1
            ? Invariant($"the call site most named: {named[0]} ({most} of {Episodes.Count} episodes).")
            : Invariant($"the call sites most named: {CountText.Listed(named)} ({most} of {Episodes.Count} episodes each).");
    }
}
