using System.Text.Json;
using System.Text.Json.Serialization;

namespace ConcurrencySandbox.Contracts.Reports;

/// <summary>
/// A report folder's summary.json: the one description of its layout. The runner writes it and <c>compare</c> and the
/// tests read it through this record and <see cref="Json"/>, which refuses a missing, unknown or null-where-not-allowed
/// member, so a renamed or retyped field fails a read of the committed reports (docs/results) instead of reading as absent.
/// </summary>
/// <param name="SchemaVersion">The layout this file holds; <see cref="CurrentSchemaVersion"/> when written by this build.</param>
/// <param name="Outcome">What the run says about the seed's effect: <c>Reproduced</c>, <c>NotReproduced</c> or <c>NotAssessed</c>.</param>
/// <param name="Verdict">The one sentence the reports print first.</param>
/// <param name="Observations">What the runtime observer saw, by variant label (empty when no process was observed).</param>
/// <param name="Fix">The --verify-fix re-run, when one was made.</param>
public sealed record RunSummary(
    int SchemaVersion,
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
    SummaryFix? Fix)
{
    /// <summary>The report's first paragraph when the run has one (run --url: the method to change, the load at the break and why, what the fix buys); absent in earlier summaries.</summary>
    // Left out when absent, so an earlier summary reads back and writes out the same.
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Headline { get; init; }

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

    /// <summary>The layout this build writes and reads; raise it with any change of a member's name, type or meaning.</summary>
    public const int CurrentSchemaVersion = 3;

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

    /// <summary>Reads a summary of <see cref="CurrentSchemaVersion"/>; throws <see cref="JsonException"/> on any member that does not match.</summary>
    public static RunSummary Parse(string json) =>
        JsonSerializer.Deserialize<RunSummary>(json, Json) ?? throw new JsonException("summary.json holds null");

    /// <summary>The <c>schemaVersion</c> a summary declares, read before its layout is trusted; null when it has none.</summary>
    public static int? SchemaVersionOf(string json)
    {
        using var document = JsonDocument.Parse(json);
        return document.RootElement.ValueKind == JsonValueKind.Object
            && document.RootElement.TryGetProperty("schemaVersion", out var version)
            && version.TryGetInt32(out var number) ? number : null;
    }
}

/// <summary>The machine the run happened on; <see cref="ProcessorCount"/> is the runner's.</summary>
public sealed record SummaryMachine(string CpuModel, int LogicalCores, int ProcessorCount, string Runtime, string Os);

/// <summary>One variant's figures: its totals, latency percentiles over the requests that got an answer, the peak step, the pool and the experiment's own figures.</summary>
/// <param name="Name">The variant's label as the report prints it ("threadpool@2cpu").</param>
/// <param name="PeakLoadMeanMs">The mean latency of the completed requests sent during the peak step; null when none completed.</param>
/// <param name="SentAtPeak">The requests sent during the peak step, wherever they ended.</param>
/// <param name="PeakStepSeconds">The peak step's start and end, in seconds since the variant began.</param>
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
    double? PeakLoadMeanMs,
    SummarySentAtPeak SentAtPeak,
    IReadOnlyList<SummaryStep> Steps,
    IReadOnlyList<double> PeakStepSeconds,
    int? PeakThreads,
    long? PeakQueue,
    double? MaxQueueWaitMs,
    IReadOnlyList<SummaryFigure> Figures,
    string? TelemetrySource)
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
}

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
    long Ok, long HttpErrors, long TimedOut, long ConnectionErrors, long Requests, long Failed, long Completed, long NotCompleted, double FailedPercent);

/// <summary>One row of the status and error table: "HTTP 503", "timed out (client timeout)" or a connection error's message, and how often.</summary>
public sealed record SummaryOutcomeCount(string What, long Count);

/// <summary>The requests sent during the peak step; <see cref="AtLeastMeanMs"/> counts a timed-out request at its timeout (a lower bound), null when none has a latency or a bound.</summary>
public sealed record SummarySentAtPeak(long Requests, long Completed, long TimedOut, long ConnectionErrors, double? AtLeastMeanMs);

/// <summary>One step of a stepped load.</summary>
public sealed record SummaryStep(double Load, double FromSeconds, double ToSeconds, double RequestsPerSecond, SummaryOutcomes Outcomes, double P50Ms, double P99Ms)
{
    /// <summary>The latency members that are lower bounds ("p50Ms", "p99Ms"); absent when none is.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<string>? LowerBounds { get; init; }

    /// <summary>True when no request of the step got an answer or timed out, so its 0 latencies are none; absent otherwise.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public bool? NoAnswer { get; init; }
}

/// <summary>One claim of a seed with its own verdict (<c>Confirmed</c>, <c>Refuted</c> or <c>Inconclusive</c>), the figure it rests on, its 95 % CI or why there is none, and why.</summary>
public sealed record SummaryClaim(string What, string Verdict, string Figure, string Interval, string Why);

/// <summary>A figure an experiment computes for one variant, e.g. ("CPU per request", 1.8, "ms").</summary>
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
}

/// <summary>A thread-pool adjustment on the variant's time axis.</summary>
public sealed record SummaryAdjustment(double ElapsedSeconds, int NewWorkerThreadCount, string Reason);

/// <summary>Pool threads grouped by their first frames in user code, largest group first; <see cref="Top"/> is the biggest group in user code.</summary>
public sealed record SummaryStacks(int PoolThreads, int AllThreads, IReadOnlyList<SummaryBlockingSite> Sites, bool BlocksQueuedWork, SummaryBlockingSite? Top);

/// <summary>Where a number of pool threads were found ("FanOutStrategies.SyncOverAsync -> Task.Wait").</summary>
public sealed record SummaryBlockingSite(
    string CallSite,
    int Threads,
    bool InUserCode,
    bool InRequest,
    // Left out when absent (summaries written before call sites were named in source words), so those read back and write out the same.
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] SummaryCallSite? Source = null);

/// <summary>A blocking call site as the developer wrote it: method, primitive, file:line, route or handler, what the JIT inlined it into, and why lines are missing.</summary>
public sealed record SummaryCallSite(string Method, string Primitive, SummarySourceLine? Line, string? Route, string? Handler, string? InlinedInto, string? Note)
{
    /// <summary>How many methods could be the one that blocks (more than one: unsure, <see cref="Listed"/> names them).</summary>
    public int Candidates { get; init; } = 1;

    /// <summary>The methods that could be the one, each with the line of its blocking call, when more than one.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummaryCallStep>? Listed { get; init; }

    /// <summary>The callers from the method up to its handler or background service, nearest first, each with the line of its call.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<SummaryCallStep>? CalledFrom { get; init; }

    /// <summary>The background service whose work blocks outside any request.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Background { get; init; }
}

/// <summary>A method on a call site's path (or among its candidates) with the line of its call.</summary>
public sealed record SummaryCallStep(string Method, SummarySourceLine? Line);

public sealed record SummarySourceLine(string File, int Line);

/// <summary>The pool the load needed (Little's law) against the one it had.</summary>
public sealed record SummaryDiagnosis(SummaryDiagnosisInputs Inputs, int NeededThreads, bool Starved, double? SecondsToGrow);

/// <summary>What the diagnosis is computed from, all measured.</summary>
public sealed record SummaryDiagnosisInputs(
    double RequestsInFlight,
    string InFlightBasis,
    double ThreadsPerRequest,
    int PoolThreadsAtPeak,
    double GrowthPerSecond,
    long PeakQueueLength,
    int StarvationAdjustments,
    string? CallSite);

/// <summary>
/// Where a service broke (run --url --find-capacity): the load's unit, the SLO and how it was set, the highest load held,
/// the lowest that broke (null when none did), why it broke and the cause at the break, the variant whose diagnosis the
/// report gives (<see cref="RunSummary.Observations"/>' key), and the --verify-fix ramp when one was run.
/// </summary>
public sealed record SummaryCapacity(string Unit, double SloP99Ms, string Slo, double? Held, double? BrokeAt, string? BrokeBecause, string? Cause, string? DiagnosedVariant, SummaryCapacityFix? Fix);

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
/// and each round.
/// </summary>
public sealed record SummaryRounds(string Order, int Planned, string? Figure, double? Median, double? Low, double? High, IReadOnlyList<SummaryRound> Rounds);

/// <summary>One round: its variants in the order they ran, the verdict figure it gave (null: none) and that round's outcome alone.</summary>
public sealed record SummaryRound(int Round, IReadOnlyList<string> Order, double? Figure, string Outcome, IReadOnlyList<SummaryRoundVariant> Variants);

/// <summary>A variant's throughput and latency in one round.</summary>
public sealed record SummaryRoundVariant(string Variant, double RequestsPerSecond, double? MeanMs, double? P99Ms, double ElapsedSeconds);
