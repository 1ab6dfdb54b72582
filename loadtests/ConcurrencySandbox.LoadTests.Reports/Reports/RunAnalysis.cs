using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>
/// The one analysis stage: a run's raw results (<see cref="ExperimentReport"/>) into its one result
/// (<see cref="RunSummary"/>), with the peak, the steps, the response curve and its knee, the verdict and claims and the
/// diagnosis's words computed here once. Every report is rendered from what this returns, never from the raw results.
/// </summary>
public static class RunAnalysis
{
    public static RunSummary Of(ExperimentReport r, string commandLine)
    {
        var colors = VariantPalette.OfRun([.. r.Variants.Select(v => (v.Key.Name, r.StepJudgements?.ContainsKey(v.Key.Label) == true ? v.PeakLoad : (double?)null))]);
        var summary = Analysed(r, commandLine, colors);
        return summary with { Answer = PlainAnswer.Of(summary) };
    }

    /// <summary>
    /// A summary's sentences worded again by this build from the summary's own fields (what <c>report</c> renders): the
    /// plain answer, each response curve's knee and its sentence (from the curve's points as written), the words that
    /// name the unit and say what the latency columns hold, and the verdict's first words as its claims allow them
    /// (<see cref="Rejudged"/>). The verdict's figures, the claims and the diagnosis's words rest on the raw results,
    /// which a summary does not keep whole, so they stay as the run wrote them.
    /// </summary>
    public static RunSummary Reworded(RunSummary s)
    {
        var reworded = Rejudged(s) with
        {
            Words = Words(s.Words.Unit == ReportWords.Messages.Unit ? ReportWords.Messages : ReportWords.Requests),
            Variants = [.. s.Variants.Select(v => Reworded(v, s.Words.Unit))],
        };
        return reworded with { Answer = PlainAnswer.Of(reworded) };
    }

    /// <summary>
    /// The verdict held to this build's rule over the summary's claims (<see cref="ClaimsVerdict"/>): a run that stated
    /// "Reproduced" over claims not all confirmed reads "Partly reproduced: 1 of 3 claims confirmed, 2 inconclusive (...)",
    /// an inconclusive outcome, the rest of its sentence as written. As written when its sentence does not open with the
    /// words its outcome gives (a summary of other words than this build's).
    /// </summary>
    private static RunSummary Rejudged(RunSummary s)
    {
        var claims = s.Claims ?? [];
        if (!Enum.TryParse<Outcome>(s.Outcome, out var stated))
        {
            return s;
        }
        var opening = ClaimsVerdict.Label(stated, claims) + ": ";
        var held = ClaimsVerdict.Held(stated, claims);
        if (!s.Verdict.StartsWith(opening, StringComparison.Ordinal))
        {
            return s;
        }
        return s with { Outcome = held.ToString(), Verdict = $"{ClaimsVerdict.Label(held, claims)}: {s.Verdict[opening.Length..]}" };
    }

    /// <summary>A variant with its curve's knee and sentence found again from the points it holds; as written when its steps do not match its points.</summary>
    private static SummaryVariant Reworded(SummaryVariant v, string sent)
    {
        int[] loadedSteps = [.. v.Steps.Select((step, index) => (step, index)).Where(s => s.step.Load > 0).Select(s => s.index)];
        return v.Curve is { } curve && loadedSteps.Length == curve.Points.Count ? v with { Curve = ResponseCurve.Of(v.Name, v.LoadUnit, curve.Points, loadedSteps, sent) } : v;
    }

    private static SummaryWords Words(ReportWords w) => new(w.Unit, w.What, w.PerSecond, w.Ok, w.LatencyPrefix, w.LatencyNote);

    private static RunSummary Analysed(ExperimentReport r, string commandLine, IReadOnlyList<string> colors) => new(
        RunSummary.CurrentVersion,
        r.Experiment,
        r.Seed,
        r.Profile,
        r.LoadShape,
        r.Target,
        r.StartedAt,
        r.Machine.ToSummary(),
        r.ApiProcessorCount,
        [.. r.Variants.Select((v, i) => Variant(v, r.ExpectedToFail.Contains(v.Key.Name), colors[i], EventsLost(r, v), r.Words.Unit, i == 0 ? r.ProfileStepJudgements : null))],
        [.. r.Finding.Comparisons.Select(c => new SummaryComparison(c.Figure, c.Seed, c.Today))],
        r.Finding.Stated.ToString(),
        r.Finding.Verdict,
        [.. r.Thresholds.Select(t => new SummaryThreshold(t.Threshold, t.Variant, t.Actual, t.Passed))],
        r.Passed,
        commandLine,
        r.Observations.ToDictionary(o => o.Key, o => Observation(o.Value)),
        r.Fix is { } fix ? new SummaryFix(fix.Before, fix.After, fix.MinimumThreads) : null,
        Words(r.Words),
        [.. r.Evidence.Select(Evidence)])
    {
        DiagnosisDoesNotApplyBecause = r.DiagnosisDoesNotApplyBecause,
        Headline = r.Headline,
        HeadlineFigures = r.HeadlineFigures,
        HeadlineDetails = r.HeadlineDetails,
        Capacity = r.Capacity is { } capacity && r.StepJudgements is { } judged ? capacity with { Steps = CapacitySteps(r, judged) } : r.Capacity,
        Rounds = r.Rounds,
        Partial = r.Partial,
        Claims = r.Finding.Claims.Count == 0 ? null : [.. r.Finding.Claims.Select(c => c.Summary)],
    };

    /// <summary>The events the observer's session of <paramref name="v"/> lost (<see cref="VariantObservation.EventsLost"/>); 0 when it was not observed.</summary>
    private static int EventsLost(ExperimentReport r, VariantResult v) => r.Observations.GetValueOrDefault(v.Key.Label)?.EventsLost ?? 0;

    /// <param name="sent">What the load sent, as the curve's sentences count it (<see cref="ReportWords.Unit"/>).</param>
    /// <param name="judged">A plain profile's verdict on each of <paramref name="v"/>'s steps, in order; null when its steps were not judged.</param>
    private static SummaryVariant Variant(VariantResult v, bool expectedToFail, string color, int eventsLost, string sent, IReadOnlyList<StepJudgement>? judged)
    {
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
            [.. v.Steps.Select((s, index) => new SummaryStep(s.Load, s.FromSeconds, s.ToSeconds, s.RequestsPerSecond, Outcomes(s.Stats.Outcomes), s.Stats.P50Ms, s.Stats.P99Ms)
            {
                Verdict = judged?.ElementAtOrDefault(index)?.Verdict,
                Why = judged?.ElementAtOrDefault(index)?.Why,
                LowerBounds = LowerBounds(s.Stats, LatencyBounds.P50 | LatencyBounds.P99),
                NoAnswer = s.Stats.NoAnswer ? true : null,
                Gc = StepGc(v, s.FromSeconds, s.ToSeconds, eventsLost),
            })],
            v.PeakThreads,
            v.PeakQueue,
            v.MaxQueueWaitMs,
            [.. v.Figures.Select(f => new SummaryFigure(f.Name, f.Value, f.Unit))],
            v.TelemetrySource,
            color,
            Intervals(v),
            [.. v.Telemetry.Select(Telemetry)],
            [.. v.Distribution.Select(Percentile)],
            ResponseCurve.Of(v, sent))
        {
            Burst = v.LoadUnit == "burst" ? [.. v.Requests.Select(q => new SummaryRequest(q.CompletedSeconds, q.LatencyMs, q.End.ToString()))] : null,
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

    /// <summary>A capacity search's steps as its curve's points, in the order they ran.</summary>
    private static SummaryCapacityStep[] CapacitySteps(ExperimentReport r, IReadOnlyDictionary<string, StepJudgement> judged) =>
        [.. r.Variants.Where(v => judged.ContainsKey(v.Key.Label)).Select(v => CapacityStep(r, v, judged[v.Key.Label]))];

    /// <summary>
    /// One capacity step over the part that held its load (after its climb, <see cref="VariantResult.HeldAt"/>): the part the
    /// step was judged on, whose figures the headline reads.
    /// </summary>
    private static SummaryCapacityStep CapacityStep(ExperimentReport r, VariantResult v, StepJudgement judged)
    {
        var held = v.HeldAt(v.PeakLoad);
        var stats = held?.Stats ?? v.Total;
        var seconds = held is { } h ? h.ToSeconds - h.FromSeconds : v.ElapsedSeconds;
        return new SummaryCapacityStep(
            v.Key.Label,
            r.FixRampPrefix is { } prefix && v.Key.Label.StartsWith(prefix, StringComparison.Ordinal) ? "--verify-fix" : "search",
            v.PeakLoad,
            stats.Completed > 0 ? stats.P50Ms : null,
            stats.Completed > 0 ? stats.P99Ms : null,
            seconds > 0 ? stats.Ok / seconds : 0,
            stats.Requests,
            stats.Completed,
            stats.TimedOut,
            judged.BrokeBecause)
        {
            Verdict = judged.Verdict,
            Why = judged.Why,
            LowerBounds = stats.Completed > 0 ? LowerBounds(stats, LatencyBounds.P50 | LatencyBounds.P99) : null,
            StartedFrom = r.StepStarts?.GetValueOrDefault(v.Key.Label),
            // The step's whole run: the span the GC finding reads (GcFigures.Of).
            Gc = StepGc(v, double.NegativeInfinity, v.ElapsedSeconds, EventsLost(r, v)),
            Upstream = StepUpstream(r.Observations.GetValueOrDefault(v.Key.Label)),
        };
    }

    /// <summary>The outgoing calls a step's trace saw (<see cref="CauseTrace.Calls"/>), or why none was read; null when the runtime was not observed.</summary>
    private static SummaryStepUpstream? StepUpstream(VariantObservation? observation) => observation switch
    {
        null => null,
        { Causes: { } causes } => new SummaryStepUpstream(causes.CallsSeconds, [.. causes.Calls.Select(SummaryCall)], null),
        _ => new SummaryStepUpstream(null, [], observation.CauseTraceNote ?? "no trace of the step was read"),
    };

    /// <summary>One call of a step's trace as summary.json holds it: its attempts on the wire, by status in order, only where they were read.</summary>
    private static SummaryUpstreamCall SummaryCall(UpstreamCall c) => new(c.Call, c.Requests, c.MeanMs, c.P50Ms, c.P99Ms, c.QueueShare)
    {
        Attempts = c.Attempts,
        AttemptStatuses = c.Attempts is null ? null : new SortedDictionary<int, int>(c.AttemptStatuses.ToDictionary()),
    };

    /// <summary>The GC over a step's counter samples (<see cref="GcFigures.Between"/>), or why it could not be read; null when the runtime was not observed.</summary>
    private static SummaryStepGc? StepGc(VariantResult v, double fromSeconds, double toSeconds, int eventsLost)
    {
        if (v.Telemetry.Count == 0)
        {
            return null;
        }
        var (gc, why) = GcFigures.Between(v, fromSeconds, toSeconds, eventsLost);
        return new SummaryStepGc(gc?.PauseShare, gc?.BytesPerRequest, gc?.PeakHeapBytes, why);
    }

    /// <summary>Each interval with the requests that ended in it, and the mean latency of those sent in it (timed-out ones at their timeout).</summary>
    private static SummaryInterval[] Intervals(VariantResult v) =>
    [
        .. v.Intervals.Select((i, index) =>
        {
            var (s, o) = (i.Stats, i.Stats.Outcomes);
            var sent = SentSummary.Of(v.Sent.Where(slice => slice.FromSeconds >= (index == 0 ? 0 : v.Intervals[index - 1].ElapsedSeconds) && slice.FromSeconds < i.ElapsedSeconds));
            return new SummaryInterval(i.ElapsedSeconds, i.Partial, i.Load, i.RequestsPerSecond, o.Ok, o.HttpErrors, o.TimedOut, o.ConnectionErrors,
                s.MeanMs, s.P50Ms, s.P75Ms, s.P95Ms, s.P99Ms, s.P999Ms, s.MaxMs)
            {
                LowerBounds = LowerBounds(s, ~LatencyBounds.None),
                SentAtLeastMeanMs = NullIfNaN(sent.AtLeastMeanMs),
            };
        }),
    ];

    private static SummaryTelemetry Telemetry(TelemetryRow row)
    {
        var (t, p, g) = (row.Snapshot.ThreadPool, row.Snapshot.Process, row.Snapshot.GC);
        return new SummaryTelemetry(row.ElapsedSeconds, t.ThreadCount, t.PendingWorkItemCount, t.CompletedWorkItemCount, p.CpuPercent, p.OsThreadCount, p.WorkingSetBytes,
            g.HeapSizeBytes, g.TotalAllocatedBytes, g.Gen0Collections, g.Gen1Collections, g.Gen2Collections, g.TotalPauseDurationMs, row.Snapshot.LockContentionCount, row.Snapshot.InFlightRequests);
    }

    private static SummaryPercentile Percentile(PercentilePoint p) => new(p.Percentile, p.LatencyMs, p.IsLowerBound);

    public static SummaryEvidence Evidence(EvidenceChart e) => new(e.Title, e.Unit,
        [.. e.Values.Select(v => new SummaryNamedValue(v.Name, v.Value))], [.. e.SeedLines.Select(v => new SummaryNamedValue(v.Name, v.Value))],
        e.Distributions is { } distributions ? [.. distributions.Select(d => new SummaryDistribution(d.Name, [.. d.Points.Select(Percentile)]))] : null);

    private static SummaryOutcomes Outcomes(OutcomeCounts o) =>
        new(o.Ok, o.HttpErrors, o.TimedOut, o.ConnectionErrors, o.Requests, o.Failed, o.Completed, o.NotCompleted, o.FailedPercent);

    private static SummaryObservation Observation(VariantObservation o) => new(
        o.Process,
        o.Samples,
        o.LongestGapSeconds,
        [.. o.Adjustments.Select(a => new SummaryAdjustment(a.ElapsedSeconds, a.NewWorkerThreadCount, a.Reason))],
        o.Stacks is { } stacks
            ? new SummaryStacks(stacks.PoolThreads, stacks.AllThreads, [.. stacks.Sites.Select(Site)], stacks.BlocksQueuedWork, stacks.Top is { } top ? Site(top) : null)
            {
                Holding = stacks.Holding is { Count: > 1 } holding ? [.. holding.Select(Site)] : null,
            }
            : null,
        o.StacksNote,
        o.Diagnosis is { Inputs: var i } d
            ? new SummaryDiagnosis(
                new SummaryDiagnosisInputs(i.RequestsInFlight, i.InFlightBasis, i.ThreadsPerRequest, i.PoolThreadsAtPeak, i.GrowthPerSecond, i.PeakQueueLength, i.StarvationAdjustments, i.CallSite, i.HoldMs, i.LoadUnit),
                d.NeededThreads, d.Starved, d.SecondsToGrow)
            {
                StarvedSpans = i.Spell.Spans.Count > 0 ? [.. i.Spell.Spans.Select(span => new SummarySpan(span.From, span.To))] : null,
            }
            : null,
        o.LostReason,
        o.AdjustmentsByReason)
    {
        EventsLost = o.EventsLost,
        Series = o.Series,
        StacksText = o.Stacks is { } sampled ? string.Join("; ", sampled.Sites.Take(3).Select(sampled.Describe)) : null,
        DiagnosisText = o.Diagnosis?.Describe(),
    };

    private static SummaryBlockingSite Site(BlockingSite s) => new(s.CallSite, s.Threads, s.InUserCode, s.InRequest,
        s.Source is { } c ? new SummaryCallSite(c.Method, c.Primitive, Line(c.Line), c.Route, c.Handler, c.InlinedInto, c.Note)
        {
            Candidates = c.Unsure ? c.Candidates : null,
            Listed = c.Listed.Count > 0 ? [.. c.Listed.Select(Step)] : null,
            CalledFrom = c.CalledFrom.Count > 0 ? [.. c.CalledFrom.Select(Step)] : null,
            Background = c.Background,
            RouteCheck = c.RouteCheck,
            Queued = c.Queued ? true : null,
            EveryRequest = c.EveryRequest ? true : null,
        } : null)
    {
        Lines = s.Lines.Count > 1 ? [.. s.Lines.Select(l => Line(l)!)] : null,
    };

    private static SummaryCallStep Step(CallStep step) => new(step.Method, Line(step.Line));

    private static SummarySourceLine? Line(SourceLine? line) => line is { } l ? new SummarySourceLine(l.File, l.Line) : null;

    private static double? NullIfNaN(double value) => double.IsNaN(value) ? null : value;
}
