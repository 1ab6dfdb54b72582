using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;

namespace ConcurrencySandbox.Contracts.Reports;

/// <summary>
/// A run's one result: its raw series (intervals, telemetry, distribution) and everything analysed from them once (steps,
/// peak, response curve and knee, verdict and claims, the diagnosis as its code worded it), written as summary.json as
/// each variant finishes. Every output (summary.md, report.html, the CSVs, the console's closing lines, <c>compare</c>,
/// the matrix, <c>--runs</c>, <c>report</c>) is rendered from this record alone. It is read through <see cref="Json"/>,
/// which refuses a missing, unknown or null-where-not-allowed member, so a renamed or retyped field fails a read of the
/// committed reports (docs/results) instead of reading as absent.
/// </summary>
/// <param name="Version">The layout this file holds; <see cref="CurrentVersion"/> when written by this build.</param>
/// <param name="Outcome">What the run says about the seed's effect: <c>Reproduced</c>, <c>NotReproduced</c> or <c>NotAssessed</c>.</param>
/// <param name="Verdict">The one sentence the reports print first.</param>
/// <param name="Observations">What the runtime observer saw, by variant label (empty when no process was observed).</param>
/// <param name="Fix">The --verify-fix re-run, when one was made.</param>
public sealed record RunSummary(
    int Version,
    string Experiment,
    string Seed,
    string Profile,
    string LoadShape,
    string Target,
    DateTimeOffset StartedAt,
    SummaryMachine Machine,
    int? ApiProcessorCount,
    IReadOnlyList<SummaryVariant> Variants,
    IReadOnlyList<SummaryComparison> Comparisons,
    string Outcome,
    string Verdict,
    IReadOnlyList<SummaryThreshold> Thresholds,
    bool Passed,
    string CommandLine,
    IReadOnlyDictionary<string, SummaryObservation> Observations,
    SummaryFix? Fix,
    SummaryWords Words,
    IReadOnlyList<SummaryEvidence> Evidence)
{
    /// <summary>
    /// The first screen's one plain sentence, computed by the analysis from the fields below: what was tested, what held
    /// and what failed by how much, and how sure the verdict is; absent in earlier summaries.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Answer { get; init; }

    /// <summary>The report's first paragraph when the run has one (run --url: the method to change, the load at the break and why, what the fix buys); absent in earlier summaries.</summary>
    // Left out when absent, so an earlier summary reads back and writes out the same.
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Headline { get; init; }

    /// <summary>Every figure <see cref="Headline"/> prints, by name, as printed (rounded): the headline says no figure that is not here; absent in earlier summaries.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummaryFigure>? HeadlineFigures { get; init; }

    /// <summary>What the headline rests on, said once below it: the load held and the break in full, the SLO and how it was set, the cause's evidence and the diagnosis; absent in earlier summaries.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? HeadlineDetails { get; init; }

    /// <summary>run --url --find-capacity's finding as figures (the load held, the load that broke and why, the fix verified); absent in earlier summaries and other runs.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public SummaryCapacity? Capacity { get; init; }

    /// <summary>The interleaved rounds the variants were measured in and the verdict figure of each; absent in earlier summaries and in single-round runs of an experiment without one.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public SummaryRounds? Rounds { get; init; }
    /// <summary>Set when the run was stopped (Ctrl+C, SIGTERM) before it finished: "partial: stopped after variant sync step 2 of 5 ..."; absent for a finished run.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Partial { get; init; }
    /// <summary>Each claim of the seed with its own verdict, where the seed makes several; absent in earlier summaries and where it makes one.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummaryClaim>? Claims { get; init; }

    /// <summary>Why the starvation diagnosis does not fit this experiment's load; absent where it does.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? DiagnosisDoesNotApplyBecause { get; init; }

    /// <summary>The layout this build writes and reads; raise it with any change of a member's name, type or meaning.</summary>
    /// <remarks>4: one result for every output (the raw series, the response curve and knee, the diagnosis's words); "schemaVersion" became "version".</remarks>
    public const int CurrentVersion = 4;

    /// <summary>The member that held the version before 4, read only to name an older file's version.</summary>
    private const string EarlierVersionMember = "schemaVersion";

    /// <summary>
    /// The contract settings (<see cref="ContractJson"/>), indented, and strict: every constructor member must be present,
    /// a member the record does not know fails, and null fails where the record does not allow it.
    /// </summary>
    public static JsonSerializerOptions Json { get; } = ContractJson.Configure(new JsonSerializerOptions(JsonSerializerDefaults.Web)
    {
        WriteIndented = true,
        RespectNullableAnnotations = true,
        RespectRequiredConstructorParameters = true,
        UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow,
    });

    public string ToJson() => JsonSerializer.Serialize(this, Json);

    /// <summary>Reads a summary of <see cref="CurrentVersion"/>; throws <see cref="JsonException"/> on any member that does not match.</summary>
    public static RunSummary Parse(string json)
    {
        var root = JsonNode.Parse(json) ?? throw new JsonException("summary.json holds null");
        foreach (var variant in ((root as JsonObject)?["variants"] as JsonArray ?? []).OfType<JsonObject>())
        {
            foreach (var member in RetiredVariantMembers)
            {
                variant.Remove(member);
            }
        }
        return root.Deserialize<RunSummary>(Json) ?? throw new JsonException("summary.json holds null");
    }

    /// <summary>
    /// A variant's members that summaries of this version held until the peak's figures read the peak step's row
    /// (<see cref="SummaryVariant.PeakStep"/>): a mean over a window half an interval wider than that row, which could
    /// disagree with it. Dropped as they are read, so those summaries still render (with the row's figures); never written.
    /// </summary>
    private static readonly string[] RetiredVariantMembers = ["peakLoadMeanMs", "sentAtPeak", "peakStepSeconds"];

    /// <summary>The version a summary declares ("version", or "schemaVersion" before 4), read before its layout is trusted; null when it has none.</summary>
    public static int? VersionOf(string json)
    {
        using var document = JsonDocument.Parse(json);
        var root = document.RootElement;
        return root.ValueKind == JsonValueKind.Object
            && (root.TryGetProperty("version", out var version) || root.TryGetProperty(EarlierVersionMember, out version))
            && version.ValueKind == JsonValueKind.Number && version.TryGetInt32(out var number) ? number : null;
    }
}

/// <summary>What the report calls what its load sent ("requests", "messages"), its rate, its good outcome, the latency columns' prefix and what they measure.</summary>
public sealed record SummaryWords(string Unit, string What, string PerSecond, string Ok, string LatencyPrefix, string LatencyNote)
{
    /// <summary>The unit with a capital, to open a sentence: "Requests: ...".</summary>
    [JsonIgnore]
    public string Sentence => char.ToUpperInvariant(Unit[0]) + Unit[1..];
}

/// <summary>
/// A chart an experiment declares beside its verdict: one bar per variant of the figure in <paramref name="Unit"/> with the
/// seed's figures as reference lines, or (<paramref name="Distributions"/>) one curve per variant on a "nines" axis.
/// </summary>
public sealed record SummaryEvidence(string Title, string Unit, IReadOnlyList<SummaryNamedValue> Values, IReadOnlyList<SummaryNamedValue> SeedLines, IReadOnlyList<SummaryDistribution>? Distributions);

public sealed record SummaryNamedValue(string Name, double Value);

public sealed record SummaryDistribution(string Name, IReadOnlyList<SummaryPercentile> Points);

/// <summary>One point of a latency distribution; <paramref name="IsLowerBound"/> where it lies among timed-out requests (drawn at their timeout).</summary>
public sealed record SummaryPercentile(double Percentile, double LatencyMs, bool IsLowerBound);

/// <summary>The machine the run happened on; <see cref="ProcessorCount"/> is the runner's.</summary>
public sealed record SummaryMachine(string CpuModel, int LogicalCores, int ProcessorCount, string Runtime, string Os);

/// <summary>One variant's figures: its totals, latency percentiles over the requests that got an answer, the peak step, the pool and the experiment's own figures.</summary>
/// <param name="Name">The variant's label as the report prints it ("threadpool@2cpu").</param>
/// <param name="PeakThreads">The most pool threads the API reported; null without telemetry.</param>
/// <param name="TelemetrySource">Where the runtime's figures came from, as the report names it.</param>
public sealed record SummaryVariant(
    string Name,
    string Request,
    string LoadUnit,
    double PeakLoad,
    double ElapsedSeconds,
    long Requests,
    long Ok,
    long Failed,
    SummaryOutcomes Outcomes,
    bool ExpectedToFail,
    IReadOnlyList<SummaryOutcomeCount> Failures,
    double RequestsPerSecond,
    double MeanMs,
    double MinMs,
    double P50Ms,
    double P75Ms,
    double P95Ms,
    double P99Ms,
    double P999Ms,
    double MaxMs,
    IReadOnlyList<SummaryStep> Steps,
    int? PeakThreads,
    long? PeakQueue,
    double? MaxQueueWaitMs,
    IReadOnlyList<SummaryFigure> Figures,
    string? TelemetrySource,
    string Color,
    IReadOnlyList<SummaryInterval> Intervals,
    IReadOnlyList<SummaryTelemetry> Telemetry,
    IReadOnlyList<SummaryPercentile> Distribution,
    SummaryCurve? Curve)
{
    /// <summary>One row per load agent when agents made the variant's load (--agents); absent when one runner did.</summary>
    // Left out when absent, so summaries of single-runner runs (every one written before agents) read back and write out the same.
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummaryAgent>? Agents { get; init; }

    /// <summary>
    /// The latency members that are lower bounds ("p50Ms", "maxMs"...): timed-out requests rank at or below them, counted
    /// at the time they were given up after. Absent when none is (and in earlier summaries).
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<string>? LowerBounds { get; init; }

    /// <summary>Every request of a burst (cold start), in completion order; absent for other loads.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummaryRequest>? Burst { get; init; }

    /// <summary>
    /// The peak step: the first step at the variant's peak load, the row the step table shows, with the requests sent in
    /// it wherever they ended. Every figure "at peak load" reads this row, so a page cannot give the peak two values.
    /// Null when no step reached the peak (a run stopped before its peak step closed).
    /// </summary>
    [JsonIgnore]
    public SummaryStep? PeakStep => Steps.FirstOrDefault(s => s.Load >= PeakLoad);
}

/// <summary>One reporting interval: its end (seconds since the variant began), whether it is the partial tail after the last full interval (<paramref name="Tail"/>), the load applied, and the requests that ended in it.</summary>
public sealed record SummaryInterval(
    double ElapsedSeconds, bool Tail, double Load, double RequestsPerSecond, long Ok, long HttpErrors, long TimedOut, long ConnectionErrors,
    double MeanMs, double P50Ms, double P75Ms, double P95Ms, double P99Ms, double P999Ms, double MaxMs)
{
    /// <summary>The latency members that are lower bounds; absent when none is.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<string>? LowerBounds { get; init; }

    /// <summary>The mean latency of the requests sent in this interval, wherever they ended, timed-out ones at their timeout (a lower bound then); absent when none has a latency or a bound.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public double? SentAtLeastMeanMs { get; init; }

    [JsonIgnore]
    public long Requests => Ok + HttpErrors + TimedOut + ConnectionErrors;

    /// <summary>Requests that got an answer: the latencies cover these.</summary>
    [JsonIgnore]
    public long Completed => Ok + HttpErrors;
}

/// <summary>
/// One reading of the API's runtime during a variant (seconds since it began). <paramref name="OsThreads"/> is null for a
/// reading of the runtime's counters over the diagnostics channel (a service the runner observes), which carry none.
/// </summary>
public sealed record SummaryTelemetry(
    double ElapsedSeconds, int ThreadCount, long QueueLength, long CompletedItems, double CpuPercent,
    int? OsThreads, long WorkingSetBytes,
    long HeapBytes, long AllocatedBytes, int Gen0, int Gen1, int Gen2, double GcPauseMs, long LockContentions, long InFlight);

/// <summary>One request of a burst: when it ended (seconds since the burst was sent), how long it took, and how it ended ("Ok", "HttpStatus", "Timeout", "ConnectionError").</summary>
public sealed record SummaryRequest(double CompletedSeconds, double LatencyMs, string End)
{
    /// <summary>An answer arrived (ok or another status), so its time is a latency.</summary>
    [JsonIgnore]
    public bool Answered => End is "Ok" or "HttpStatus";
}

/// <summary>
/// A variant's response curve, analysed once: one point per loaded step, the knee (the step index in
/// <see cref="SummaryVariant.Steps"/>) or why none is stated, and the sentence the reports print.
/// </summary>
public sealed record SummaryCurve(IReadOnlyList<SummaryCurvePoint> Points, SummaryKnee? Knee, string Line);

/// <summary>
/// One step of a response curve: the offered load, the latency of the requests sent in the step that got an answer
/// (null: none did), ok answers per second, and the requests sent in it that timed out (with the time they were given
/// up after, a lower bound) or failed without an answer.
/// </summary>
public sealed record SummaryCurvePoint(double Load, double? P50Ms, double? P99Ms, double OkPerSecond, long Answered, long SentTimedOut, long SentConnectionErrors, double? TimedOutAtLeastMs);

/// <summary>Where the curve bends: the point's index in <see cref="SummaryCurve.Points"/>, its step's index in the variant's steps, and why.</summary>
public sealed record SummaryKnee(int Point, int Step, string Reason);

/// <summary>One load agent's share of a variant, as the report's agent table prints it.</summary>
/// <param name="Index">The agent's index (its share of the load: index of count).</param>
/// <param name="Host">The host name the agent registered with.</param>
/// <param name="Requests">The requests it made, counted from the intervals it sent.</param>
/// <param name="CpuSeconds">Its process's CPU time from its release to its last report.</param>
/// <param name="CpuPercent">That CPU time as a percentage of its processors over its run.</param>
/// <param name="ClientBound">Its CPU was at its limit: the merged throughput is a lower bound on the server's capacity.</param>
/// <param name="Fault">Why its share did not run to the end (missed the barrier, died, went silent, fell behind); null when it did.</param>
/// <param name="MissingIntervalSeconds">The merged intervals (their end, seconds since the variant began) that lack its data because of its fault.</param>
public sealed record SummaryAgent(
    int Index,
    string Host,
    long Requests,
    double CpuSeconds,
    double ElapsedSeconds,
    int ProcessorCount,
    double CpuPercent,
    bool ClientBound,
    string? Fault,
    IReadOnlyList<double> MissingIntervalSeconds);

/// <summary>How a set of requests ended, counted, with the sums the reports print (requests, failed, completed = got an answer).</summary>
public sealed record SummaryOutcomes(
    long Ok, long HttpErrors, long TimedOut, long ConnectionErrors, long Requests, long Failed, long Completed, long NotCompleted, double FailedPercent)
{
    /// <summary>"3 of 1,052 failed (2 timed out, 1 HTTP error)", "all 1,052 ok" or "no requests".</summary>
    public string Describe()
    {
        if (Failed == 0)
        {
            return Requests == 0 ? "no requests" : $"all {CountText.Of(Requests)} ok";
        }
        return $"{CountText.Of(Failed)} of {CountText.Of(Requests)} failed ({FailureParts()})";
    }

    /// <summary>How the failed ones failed: "2 timed out, 1 HTTP error, 3 connection errors".</summary>
    public string FailureParts() => string.Join(", ", new[] { (TimedOut, "timed out", "timed out"), (HttpErrors, "HTTP error", "HTTP errors"), (ConnectionErrors, "connection error", "connection errors") }
        .Where(p => p.Item1 > 0).Select(p => CountText.Of(p.Item1, p.Item2, p.Item3)));

    /// <summary>No request got an answer or timed out: there is no latency.</summary>
    [JsonIgnore]
    public bool NoAnswer => Completed == 0 && TimedOut == 0;
}

/// <summary>One row of the status and error table: "HTTP 503", "timed out (client timeout)" or a connection error's message, and how often.</summary>
public sealed record SummaryOutcomeCount(string What, long Count);

/// <summary>One step of a stepped load.</summary>
public sealed record SummaryStep(double Load, double FromSeconds, double ToSeconds, double RequestsPerSecond, SummaryOutcomes Outcomes, double P50Ms, double P99Ms)
{
    /// <summary>How the step was judged against the SLO: "held", "held within noise", "starved, then held" or "broke"; absent where steps are not judged and in earlier summaries.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Verdict { get; init; }

    /// <summary>The sentence the verdict rests on: why it broke, the noise sentence of a p99 at the SLO, the spell that did not repeat; absent for a clear hold.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Why { get; init; }

    /// <summary>The latency members that are lower bounds ("p50Ms", "p99Ms"); absent when none is.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<string>? LowerBounds { get; init; }

    /// <summary>True when no request of the step got an answer or timed out, so its 0 latencies are none; absent otherwise.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public bool? NoAnswer { get; init; }

    /// <summary>The GC over the step's counter samples; absent when the runtime was not observed and in earlier summaries.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public SummaryStepGc? Gc { get; init; }
}

/// <summary>One claim of a seed with its own verdict (<c>Confirmed</c>, <c>Refuted</c> or <c>Inconclusive</c>), the figure it rests on, its 95 % CI or why there is none, and why.</summary>
public sealed record SummaryClaim(string What, string Verdict, string Figure, string Interval, string Why)
{
    /// <summary>"latency under load: confirmed: 4.1 x [3.2, 5.0] (why)", as every report prints the claim.</summary>
    [JsonIgnore]
    public string Line => $"{What}: {Verdict.ToLowerInvariant()}: {Figure} {Interval} ({Why})";
}

/// <summary>A figure an experiment computes for one variant, e.g. ("CPU per request", 1.8, "ms"), or one a cause at a break rests on (<see cref="SummaryFinding"/>).</summary>
public sealed record SummaryFigure(string Name, double Value, string Unit);

/// <summary>A figure from the seed beside today's.</summary>
public sealed record SummaryComparison(string Figure, string Seed, string Today);

/// <summary>One threshold as checked: its text, the variant, the measured value and whether it held.</summary>
public sealed record SummaryThreshold(string Threshold, string Variant, double Actual, bool Passed);

/// <summary>What the runtime observer saw during one variant.</summary>
/// <param name="Process">The observed process ("pid 1234", "container 0123456789ab").</param>
/// <param name="AdjustmentsByReason">The pool's adjustments counted by the runtime's reason ("Starvation", "Warmup", ...).</param>
public sealed record SummaryObservation(
    string Process,
    int Samples,
    double LongestGapSeconds,
    IReadOnlyList<SummaryAdjustment> Adjustments,
    SummaryStacks? Stacks,
    string? StacksNote,
    SummaryDiagnosis? Diagnosis,
    string? LostReason,
    IReadOnlyDictionary<string, int> AdjustmentsByReason)
{
    /// <summary>Events the runtime dropped from the observer's session (its buffers were full): the per-second counter sums miss those seconds. Absent in summaries written before it was counted.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public int? EventsLost { get; init; }

    /// <summary>The series in words: "complete", or how it ended early or lost events.</summary>
    public required string Series { get; init; }

    /// <summary>The pool threads' three largest call sites as the stack sampler words them; absent when not sampled.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? StacksText { get; init; }

    /// <summary>The diagnosis paragraph as the diagnosis code wrote it; absent without a diagnosis.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? DiagnosisText { get; init; }
}

/// <summary>A thread-pool adjustment on the variant's time axis.</summary>
public sealed record SummaryAdjustment(double ElapsedSeconds, int NewWorkerThreadCount, string Reason);

/// <summary>Pool threads grouped by their first frames in user code, largest group first; <see cref="Top"/> is the biggest group in user code.</summary>
public sealed record SummaryStacks(int PoolThreads, int AllThreads, IReadOnlyList<SummaryBlockingSite> Sites, bool BlocksQueuedWork, SummaryBlockingSite? Top)
{
    /// <summary>
    /// The call sites holding comparable shares of the blocked threads, <see cref="Top"/> first, when two or more do (the
    /// headline then names them all, none picked); left out when Top dominates, so summaries written before it read back the same.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummaryBlockingSite>? Holding { get; init; }
}

/// <summary>Where a number of pool threads were found ("FanOutStrategies.SyncOverAsync -> Task.Wait").</summary>
public sealed record SummaryBlockingSite(
    string CallSite,
    int Threads,
    bool InUserCode,
    bool InRequest,
    // Left out when absent (summaries written before call sites were named in source words), so those read back and write out the same.
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] SummaryCallSite? Source = null)
{
    /// <summary>Every line of one method the site's threads waited at, when more than one (the sites of one method merged: Top's and Holding's); left out otherwise.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummarySourceLine>? Lines { get; init; }
}

/// <summary>A blocking call site as the developer wrote it: method, primitive, file:line, route or handler, what the JIT inlined it into, and why lines are missing.</summary>
public sealed record SummaryCallSite(string Method, string Primitive, SummarySourceLine? Line, string? Route, string? Handler, string? InlinedInto, string? Note)
{
    /// <summary>How many methods could be the one that blocks, when more than one (unsure: <see cref="Listed"/> names them); left out when one.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public int? Candidates { get; init; }

    /// <summary>The methods that could be the one, each with the line of its blocking call, when more than one.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummaryCallStep>? Listed { get; init; }

    /// <summary>The callers from the method up to its handler or background service, nearest first, each with the line of its call.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummaryCallStep>? CalledFrom { get; init; }

    /// <summary>The background service whose work blocks outside any request.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Background { get; init; }

    /// <summary>How the route ASP.NET Core's own metrics reported bore on <see cref="Route"/> (confirmed, chose it, or disagreed and was trusted).</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? RouteCheck { get; init; }

    /// <summary>True when the thread ran work the request of <see cref="Route"/> queued (Task.Run), outside the request itself; left out otherwise.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public bool? Queued { get; init; }

    /// <summary>True when the call is made in the application's middleware, which runs for every request (<see cref="Route"/> is then the request caught); left out otherwise.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public bool? EveryRequest { get; init; }
}

/// <summary>A method on a call site's path (or among its candidates) with the line of its call.</summary>
public sealed record SummaryCallStep(string Method, SummarySourceLine? Line);

public sealed record SummarySourceLine(string File, int Line);

/// <summary>The pool the load needed (Little's law) against the one it had.</summary>
public sealed record SummaryDiagnosis(SummaryDiagnosisInputs Inputs, int NeededThreads, bool Starved, double? SecondsToGrow)
{
    /// <summary>
    /// The stretches the pool starved in (seconds since the variant began, oldest first): what a step's share of the spell,
    /// and so whether its break is one to confirm, is read from, kept so the break can be judged again from the summary;
    /// absent when the pool never starved and in earlier summaries.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummarySpan>? StarvedSpans { get; init; }
}

/// <summary>A stretch of a variant's time axis, in seconds since it began.</summary>
public sealed record SummarySpan(double FromSeconds, double ToSeconds);

/// <summary>What the diagnosis is computed from, all measured.</summary>
public sealed record SummaryDiagnosisInputs(
    double RequestsInFlight,
    string InFlightBasis,
    double ThreadsPerRequest,
    int PoolThreadsAtPeak,
    double GrowthPerSecond,
    long PeakQueueLength,
    int StarvationAdjustments,
    string? CallSite,
    double HoldMs,
    string LoadUnit);

/// <summary>
/// Where a service broke (run --url --find-capacity): the load's unit, the SLO and how it was set, the highest load held,
/// the lowest that broke (null when none did), why it broke and the cause at the break, the variant whose diagnosis the
/// report gives (<see cref="RunSummary.Observations"/>' key), and the --verify-fix ramp when one was run.
/// </summary>
public sealed record SummaryCapacity(string Unit, double SloP99Ms, string Slo, double? Held, double? BrokeAt, string? BrokeBecause, string? Cause, string? DiagnosedVariant, SummaryCapacityFix? Fix)
{
    /// <summary>The answered requests the unloaded p99 (the default SLO's baseline) rests on, as <see cref="Slo"/> states them; absent in earlier summaries.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public long? BaselineRequests { get; init; }

    /// <summary>Every step of the search, one point of its response curve (the load on x); absent in summaries of a stopped search.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummaryCapacityStep>? Steps { get; init; }

    /// <summary>Every cause seen at the break, one finding each, ranked: the first is <see cref="Cause"/>; absent when none broke, or the runtime was not observed and /proc did not show the cores bound it.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummaryFinding>? Findings { get; init; }
}

/// <summary>
/// One cause seen at the break: what it is ("CPU", "GC", "the upstream"), where to change it (the method with file:line,
/// or the call "GET pricing:5001/quotes/{id}"; null when not known), the evidence in words, the share of the break it
/// accounts for (0 to 1, what ranks it) and the figures it rests on.
/// </summary>
public sealed record SummaryFinding(string Cause, string? Place, string Evidence, double Weight, IReadOnlyList<SummaryFigure> Figures);

/// <summary>
/// One step of a capacity search: its variant, the ramp it belongs to ("search", or "--verify-fix" after the restart),
/// the load it held for its length, the latency of its answered requests (null: none), ok answers per second, its
/// requests, those answered and those timed out, and why it broke the SLO (null: it held).
/// </summary>
public sealed record SummaryCapacityStep(string Variant, string Ramp, double Load, double? P50Ms, double? P99Ms, double OkPerSecond, long Requests, long Answered, long TimedOut, string? BrokeBecause)
{
    /// <summary>How the step was judged against the SLO: "held", "held within noise", "starved, then held" or "broke"; absent where steps are not judged and in earlier summaries.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Verdict { get; init; }

    /// <summary>The sentence the verdict rests on: why it broke, the noise sentence of a p99 at the SLO, the spell that did not repeat; absent for a clear hold.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Why { get; init; }

    /// <summary>The latency members that are lower bounds ("p50Ms", "p99Ms": timed-out requests rank at or below them); absent when none is and in earlier summaries.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<string>? LowerBounds { get; init; }

    /// <summary>The state the step started from (a fresh process, or the pool's threads at its start); absent in earlier summaries.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public SummaryStepStart? StartedFrom { get; init; }

    /// <summary>The GC over the step, the figures the GC finding reads; absent when the runtime was not observed and in earlier summaries.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public SummaryStepGc? Gc { get; init; }

    /// <summary>The outgoing HTTP calls the service made over the step, the figures the upstream finding reads; absent when the runtime was not observed and in earlier summaries.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public SummaryStepUpstream? Upstream { get; init; }
}

/// <summary>
/// The outgoing HTTP calls of one capacity step as the runtime's HTTP client events showed them over
/// <paramref name="Seconds"/> (from the step's peak to its load's end), slowest p99 first; no call and
/// <paramref name="NotReadBecause"/> said when the step's trace was not read (an empty list read is a step that made no call).
/// </summary>
public sealed record SummaryStepUpstream(double? Seconds, IReadOnlyList<SummaryUpstreamCall> Calls, string? NotReadBecause);

/// <summary>
/// One outgoing call, by host, port and path with ids folded ("pricing:5001/quotes/{id}"): how many ended over the step,
/// their mean, p50 and p99, and the share of their time spent waiting for a connection from the service's pool.
/// </summary>
public sealed record SummaryUpstreamCall(string Call, int Requests, double MeanMs, double P50Ms, double P99Ms, double QueueShare)
{
    /// <summary>
    /// The exchanges these calls made on the wire: more than <see cref="Requests"/> when a DelegatingHandler retried inside
    /// HttpClient.SendAsync, which counts all its attempts as one call; absent when not read and in earlier summaries.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public int? Attempts { get; init; }

    /// <summary>How many of <see cref="Attempts"/> each status answered, by status ({"200": 240, "503": 40}); absent when the attempts were not read and in earlier summaries.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyDictionary<int, int>? AttemptStatuses { get; init; }

    /// <summary>
    /// "280 attempts on the wire (200 x 240, 503 x 40)": the exchanges a call's requests made, with the statuses that
    /// answered them, most first; the one wording of the diagnosis's sentence and the step table's cell.
    /// </summary>
    public static string OnTheWire(int attempts, IReadOnlyDictionary<int, int>? statuses) =>
        $"{CountText.Of(attempts, "attempt")} on the wire" + (statuses is not { Count: > 0 } ? ""
            : $" ({string.Join(", ", statuses.OrderByDescending(s => s.Value).Select(s => string.Create(CultureInfo.InvariantCulture, $"{s.Key} x {s.Value}")))})");
}

/// <summary>
/// The GC over one step, from the runtime's counters: the share of the step's time the GC paused the process, the bytes
/// allocated per request and the largest heap; the figures null and <paramref name="NotReadBecause"/> said when the
/// step's counters could not be read (never 0 for unread).
/// </summary>
public sealed record SummaryStepGc(double? PauseShare, double? AllocatedBytesPerRequest, long? PeakHeapBytes, string? NotReadBecause);

/// <summary>
/// The state a capacity step started from: the pool's worker threads as it started (null when not read) and in words
/// ("a fresh process", "the pool at 4 threads, its start size", "inherited a pool of 78 threads grown by an earlier step").
/// </summary>
public sealed record SummaryStepStart(int? PoolThreads, string State);

/// <summary>
/// --verify-fix on a ramp: the pool minimum the service was started again with, the capacity the diagnosis predicted with
/// it (no wait) and once the blocking call is async (null without a CPU figure), and what the ramp after it measured.
/// </summary>
public sealed record SummaryCapacityFix(int MinimumThreads, double PredictedCapacity, double? AsyncCapacity, double? Held, double? BrokeAt, string? Cause);

/// <summary>The --verify-fix re-run: the starving variant before, the one run with the pool's minimum raised, and that minimum.</summary>
public sealed record SummaryFix(string Before, string After, int MinimumThreads);

/// <summary>
/// How a load run's variants were measured in rounds: the <paramref name="Order"/> ("sync taskrun | taskrun sync"), the
/// verdict figure's name, its median and 95 % CI over the rounds (null ends: no CI below 6 rounds; all null: no figure),
/// each round, and the figure's <paramref name="Format"/>: the one precision the verdict, the answer and the rounds print it at.
/// </summary>
public sealed record SummaryRounds(string Order, int Planned, string? Figure, double? Median, double? Low, double? High, IReadOnlyList<SummaryRound> Rounds, string? Format = null)
{
    /// <summary>The precision of a summary written before the figure's format was stored (the rounds' list's).</summary>
    public const string UnstatedFormat = "0.###";

    /// <summary>A value of the verdict figure as every place prints it ("8.2" at the figure's format "0.0").</summary>
    public string Show(double value) => value.ToString(Format ?? UnstatedFormat, CultureInfo.InvariantCulture);
}

/// <summary>One round: its variants in the order they ran, the verdict figure it gave (null: none) and that round's outcome alone.</summary>
public sealed record SummaryRound(int Round, IReadOnlyList<string> Order, double? Figure, string Outcome, IReadOnlyList<SummaryRoundVariant> Variants);

/// <summary>A variant's throughput and latency in one round.</summary>
public sealed record SummaryRoundVariant(string Variant, double RequestsPerSecond, double? MeanMs, double? P99Ms, double ElapsedSeconds);
