using ConcurrencySandbox.Contracts.Reports;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// The report's "Inside the runtime" section: per observed variant the counters' health, the pool's adjustments by
/// reason, where the pool threads were parked at the peak, the diagnosis paragraph, and the --verify-fix before/after.
/// </summary>
internal static class ObserverSection
{
    public const string Heading = "Inside the runtime";

    private const string Source = "Counters: the runtime's System.Runtime counters every second and its ThreadPoolWorkerThreadAdjustment events, read over the diagnostics IPC channel (EventPipe) on the runner's own thread, never through the API's HTTP port; stacks: sampled at the peak step as dotnet-stack does.";

    public static HtmlPage AppendTo(HtmlPage page, RunSummary r)
    {
        if (Sources(r) is not { } sources)
        {
            return page;
        }
        page.Heading(2, Heading).Paragraph(sources);
        if (r.Observations.Count > 0)
        {
            page.Paragraph(Source).Table(Table(r));
        }
        foreach (var line in Paragraphs(r))
        {
            page.Paragraph(line);
        }
        return FixTable(r) is { } fix ? page.Heading(3, "Fix verified").Table(fix) : page;
    }

    private static TextTable Table(RunSummary r) => new(
        ["variant", "process", "samples", "longest gap (s)", "pool adjustments by reason", "pool threads at the peak", "series"],
        [.. r.Observations.Select(o => (IReadOnlyList<string>)
        [
            o.Key, o.Value.Process, CountText.Of(o.Value.Samples), Invariant($"{o.Value.LongestGapSeconds:0.0#}"),
            o.Value.Adjustments.Count == 0 ? "none" : string.Join(", ", o.Value.AdjustmentsByReason.Select(a => $"{a.Key} {CountText.Of(a.Value)}")),
            o.Value.StacksText ?? o.Value.StacksNote ?? "not sampled",
            o.Value.Series,
        ])],
        new HashSet<int> { 2, 3 });

    /// <summary>Where each variant's runtime figures came from (the observer's channel, an HTTP endpoint, or none and why); null when no variant says.</summary>
    private static string? Sources(RunSummary r)
    {
        var sources = r.Variants.Where(v => v.TelemetrySource is not null).Select(v => $"{v.Name}: {v.TelemetrySource}").ToList();
        return sources.Count == 0 ? null : $"Where the runtime's figures came from: {string.Join("; ", sources)}.";
    }

    /// <summary>Each observed variant's diagnosis, or once why the diagnosis does not fit this experiment's load.</summary>
    private static IEnumerable<string> Paragraphs(RunSummary r) => r.DiagnosisDoesNotApplyBecause is { } why
        ? r.Observations.Count > 0 ? [$"No starvation diagnosis: {why}"] : []
        : r.Observations.Where(o => o.Value.DiagnosisText is not null).Select(o => $"**{o.Key}**: {o.Value.DiagnosisText}");

    private static TextTable? FixTable(RunSummary r)
    {
        if (r.Fix is not { } fix || Find(r, fix.Before) is not { } before || Find(r, fix.After) is not { } after)
        {
            return null;
        }
        IReadOnlyList<IReadOnlyList<string>> rows = [Row("before", before, "default"), Row("after", after, CountText.Of(fix.MinimumThreads))];
        if (r.Observations.GetValueOrDefault(fix.Before)?.Diagnosis is { Inputs.HoldMs: > 0 } diagnosis)
        {
            rows = [.. rows, Predicted(after.Name, fix.MinimumThreads, diagnosis.Inputs, before.PeakLoad)];
        }
        return new TextTable(
            ["", "variant", "pool minimum", "mean (ms)", "p99 (ms)", "max (ms)", "RPS", "errors", "peak threads"],
            rows,
            new HashSet<int> { 3, 4, 5, 6, 7, 8 });

        // With the minimum, no request waits for a thread: each takes the unqueued latency, and a closed load's users go round at that pace.
        static IReadOnlyList<string> Predicted(string label, int minimum, SummaryDiagnosisInputs inputs, double peakLoad) =>
        [
            "predicted", label, CountText.Of(minimum), Invariant($"{inputs.HoldMs:0.#}"), "", "",
            inputs.LoadUnit == "rate" ? Invariant($"{peakLoad:0.##}") : Invariant($"{peakLoad * 1000 / inputs.HoldMs:0.##}"),
            "0", CountText.Of(minimum),
        ];

        static IReadOnlyList<string> Row(string when, SummaryVariant v, string minimum) =>
        [
            when, v.Name, minimum, ReportWriter.Latency(v, v.MeanMs, "meanMs"), ReportWriter.Latency(v, v.P99Ms, "p99Ms"), ReportWriter.Latency(v, v.MaxMs, "maxMs"),
            Invariant($"{v.RequestsPerSecond:0.##}"), CountText.Of(v.Failed), v.PeakThreads is { } threads ? CountText.Of(threads) : "n/a",
        ];
    }

    private static SummaryVariant? Find(RunSummary r, string label) => r.Variants.FirstOrDefault(v => v.Name == label);
}
