using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>An <see cref="ExperimentReport"/> as summary.json holds it (<see cref="RunSummary"/>, the contract <c>compare</c> reads back).</summary>
internal static class ReportSummary
{
    public static RunSummary Of(ExperimentReport r, string commandLine) => new(
        RunSummary.CurrentSchemaVersion,
        r.Experiment,
        r.Seed,
        r.Profile,
        r.LoadShape,
        r.Target,
        r.StartedAt,
        new SummaryMachine(r.Machine.CpuModel, r.Machine.LogicalCores, r.Machine.ProcessorCount, r.Machine.Runtime, r.Machine.Os),
        r.ApiProcessorCount,
        [.. r.Variants.Select(v => Variant(v, r.ExpectedToFail.Contains(v.Key.Name)))],
        [.. r.Finding.Comparisons.Select(c => new SummaryComparison(c.Figure, c.Seed, c.Today))],
        r.Finding.Outcome.ToString(),
        r.Finding.Verdict,
        [.. r.Thresholds.Select(t => new SummaryThreshold(t.Threshold, t.Variant, t.Actual, t.Passed))],
        r.Passed,
        commandLine,
        r.Observations.ToDictionary(o => o.Key, o => Observation(o.Value)),
        r.Fix is { } fix ? new SummaryFix(fix.Before, fix.After, fix.MinimumThreads) : null)
    {
        Headline = r.Headline,
        Capacity = r.Capacity,
        Rounds = r.Rounds,
        Partial = r.Partial,
        Claims = r.Finding.Claims.Count == 0 ? null : [.. r.Finding.Claims.Select(c => new SummaryClaim(c.What, c.Verdict.ToString(), c.Figure, c.Interval, c.Why))],
    };

    private static SummaryVariant Variant(VariantResult v, bool expectedToFail)
    {
        var peak = v.SentAtPeak();
        var (peakFrom, peakTo) = v.PeakStep();
        return new SummaryVariant(
            v.Key.Label,
            v.Request,
            v.LoadUnit,
            v.PeakLoad,
            v.ElapsedSeconds,
            v.Total.Requests,
            v.Total.Ok,
            v.Total.Failed,
            Outcomes(v.Total.Outcomes),
            expectedToFail,
            [.. v.Failures.Select(f => new SummaryOutcomeCount(f.What, f.Count))],
            v.RequestsPerSecond,
            v.Total.MeanMs,
            v.Total.MinMs,
            v.Total.P50Ms,
            v.Total.P75Ms,
            v.Total.P95Ms,
            v.Total.P99Ms,
            v.Total.P999Ms,
            v.Total.MaxMs,
            NullIfNaN(v.PeakLoadMeanMs),
            new SummarySentAtPeak(peak.Requests, peak.Completed, peak.TimedOut, peak.ConnectionErrors, NullIfNaN(peak.AtLeastMeanMs)),
            [.. v.Steps.Select(s => new SummaryStep(s.Load, s.FromSeconds, s.ToSeconds, s.RequestsPerSecond, Outcomes(s.Stats.Outcomes), s.Stats.P50Ms, s.Stats.P99Ms)
            {
                LowerBounds = LowerBounds(s.Stats, LatencyBounds.P50 | LatencyBounds.P99),
                NoAnswer = s.Stats.NoAnswer ? true : null,
            })],
            [peakFrom, peakTo],
            v.PeakThreads,
            v.PeakQueue,
            v.MaxQueueWaitMs,
            [.. v.Figures.Select(f => new SummaryFigure(f.Name, f.Value, f.Unit))],
            v.TelemetrySource)
        {
            Agents = v.Agents.Count == 0 ? null : [.. v.Agents.Select(a => new SummaryAgent(
                a.Index, a.Host, a.Requests, a.CpuSeconds, a.ElapsedSeconds, a.ProcessorCount, a.CpuPercent, a.ClientBound, a.Fault, v.SecondsWithout(a.Index)))],
            LowerBounds = LowerBounds(v.Total, ~LatencyBounds.None),
        };
    }

    /// <summary>The summary's names of the figures among <paramref name="shown"/> that are lower bounds; null when none is.</summary>
    private static string[]? LowerBounds(LatencyStats stats, LatencyBounds shown)
    {
        var names = BoundNames.Where(b => (stats.LowerBounds & shown & b.Bound) != 0).Select(b => b.Name).ToArray();
        return names.Length == 0 ? null : names;
    }

    private static readonly (LatencyBounds Bound, string Name)[] BoundNames =
    [
        (LatencyBounds.Mean, "meanMs"), (LatencyBounds.Min, "minMs"), (LatencyBounds.P50, "p50Ms"), (LatencyBounds.P75, "p75Ms"),
        (LatencyBounds.P95, "p95Ms"), (LatencyBounds.P99, "p99Ms"), (LatencyBounds.P999, "p999Ms"), (LatencyBounds.Max, "maxMs"),
    ];

    private static SummaryOutcomes Outcomes(OutcomeCounts o) =>
        new(o.Ok, o.HttpErrors, o.TimedOut, o.ConnectionErrors, o.Requests, o.Failed, o.Completed, o.NotCompleted, o.FailedPercent);

    private static SummaryObservation Observation(VariantObservation o) => new(
        o.Process,
        o.Samples,
        o.LongestGapSeconds,
        [.. o.Adjustments.Select(a => new SummaryAdjustment(a.ElapsedSeconds, a.NewWorkerThreadCount, a.Reason))],
        o.Stacks is { } stacks
            ? new SummaryStacks(stacks.PoolThreads, stacks.AllThreads, [.. stacks.Sites.Select(Site)], stacks.BlocksQueuedWork, stacks.Top is { } top ? Site(top) : null)
            : null,
        o.StacksNote,
        o.Diagnosis is { Inputs: var i } d
            ? new SummaryDiagnosis(
                new SummaryDiagnosisInputs(i.RequestsInFlight, i.InFlightBasis, i.ThreadsPerRequest, i.PoolThreadsAtPeak, i.GrowthPerSecond, i.PeakQueueLength, i.StarvationAdjustments, i.CallSite),
                d.NeededThreads, d.Starved, d.SecondsToGrow)
            : null,
        o.LostReason,
        o.AdjustmentsByReason) { EventsLost = o.EventsLost };

    private static SummaryBlockingSite Site(BlockingSite s) => new(s.CallSite, s.Threads, s.InUserCode, s.InRequest,
        s.Source is { } c ? new SummaryCallSite(c.Method, c.Primitive, Line(c.Line), c.Route, c.Handler, c.InlinedInto, c.Note)
        {
            Candidates = c.Candidates,
            Listed = c.Listed.Count > 0 ? [.. c.Listed.Select(Step)] : null,
            CalledFrom = c.CalledFrom.Count > 0 ? [.. c.CalledFrom.Select(Step)] : null,
            Background = c.Background,
        } : null);

    private static SummaryCallStep Step(CallStep step) => new(step.Method, Line(step.Line));

    private static SummarySourceLine? Line(SourceLine? line) => line is { } l ? new SummarySourceLine(l.File, l.Line) : null;

    private static double? NullIfNaN(double value) => double.IsNaN(value) ? null : value;
}
