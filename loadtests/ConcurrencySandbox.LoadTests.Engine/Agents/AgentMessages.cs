using System.Text.Json.Serialization;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// What a load agent and its coordinator say to each other: one JSON object per line over one TCP connection the agent
/// opens, named by its <c>type</c>. The agent says hello; the coordinator answers with an assignment (or a refusal),
/// the agent says it is ready, the coordinator releases every agent at once (the start barrier), the agent streams an
/// interval line per reporting interval and a done line; then the next assignment, or finish.
/// </summary>
[JsonPolymorphic(TypeDiscriminatorPropertyName = "type")]
[JsonDerivedType(typeof(AgentHello), "hello")]
[JsonDerivedType(typeof(AgentRefused), "refused")]
[JsonDerivedType(typeof(AgentAssignment), "assignment")]
[JsonDerivedType(typeof(AgentReady), "ready")]
[JsonDerivedType(typeof(AgentStart), "start")]
[JsonDerivedType(typeof(AgentInterval), "interval")]
[JsonDerivedType(typeof(AgentDone), "done")]
[JsonDerivedType(typeof(AgentFinish), "finish")]
public abstract record AgentMessage;

/// <summary>Agent to coordinator, first: who it is and which runner build it runs (a coordinator refuses another version).</summary>
public sealed record AgentHello(int Index, string Version, string Host, int ProcessorCount) : AgentMessage;

/// <summary>Coordinator to agent: why it is not taken (another version, an index out of range or already taken); the agent exits 2 with it.</summary>
public sealed record AgentRefused(string Reason) : AgentMessage;

/// <summary>One step of the whole load shape, as the runner's load simulations name it (KeepConstant, RampingConstant, Inject, RampingInject).</summary>
public sealed record AgentLoadStep(string Kind, double Target, double DuringSeconds);

/// <summary>
/// Coordinator to agent: one variant's load. The agent runs share <see cref="Index"/> of <see cref="Count"/> of the
/// whole shape (<see cref="Steps"/>) against <see cref="BaseAddress"/>, and waits for <see cref="AgentStart"/> before it sends anything.
/// </summary>
public sealed record AgentAssignment(
    string Variant,
    string BaseAddress,
    string Request,
    int Index,
    int Count,
    IReadOnlyList<AgentLoadStep> Steps,
    double ReportingIntervalSeconds,
    double RequestTimeoutSeconds,
    int MaxInFlight) : AgentMessage;

/// <summary>Agent to coordinator: at the start barrier (client built), sending nothing until released.</summary>
public sealed record AgentReady(int Index) : AgentMessage;

/// <summary>Coordinator to every agent at once: the barrier's release.</summary>
public sealed record AgentStart : AgentMessage;

/// <summary>
/// Agent to coordinator, once per reporting interval: the interval's completed latencies in microseconds as an
/// HdrHistogram compressed histogram in base64 (the encoding of its .hlog format), its outcome counts, the CPU
/// seconds the agent's process has used since it was released, and the requests booked since the previous interval to
/// the step they were sent in (<see cref="SentSteps"/>), so the coordinator's step figures are exact too.
/// </summary>
public sealed record AgentInterval(
    int Index,
    int Sequence,
    double ElapsedSeconds,
    bool Partial,
    string Histogram,
    long Ok,
    long HttpErrors,
    long TimedOut,
    long ConnectionErrors,
    double CpuSeconds,
    IReadOnlyList<AgentSentStep> SentSteps) : AgentMessage
{
    /// <summary>The shortest time a request of the interval timed out after: where its timed-out requests are ranked, as lower bounds. Absent when none timed out.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public double? TimedOutAtMs { get; init; }
}

/// <summary>Requests booked to step <paramref name="Step"/> (the one they were sent in) since the agent's previous interval: answered latencies encoded as <see cref="AgentInterval.Histogram"/>, and outcome counts.</summary>
public sealed record AgentSentStep(int Step, string Histogram, long Ok, long HttpErrors, long TimedOut, long ConnectionErrors, double? TimedOutAtMs);

/// <summary>A count of failed requests that ended one way ("HTTP 503", "timed out ...", a connection error's message).</summary>
public sealed record AgentFailureCount(string What, long Count);

/// <summary>The requests an agent sent during one slice of the run, wherever they ended (the report's peak-step figures).</summary>
public sealed record AgentSentSlice(double FromSeconds, long Completed, double CompletedSumMs, long TimedOut, double TimedOutSumMs, long ConnectionErrors);

/// <summary>
/// Agent to coordinator after its last interval: how long it ran, its CPU seconds and processors (so the coordinator
/// can say it was client-bound), open-model arrivals it could not send on time (it fell behind its share), its failures
/// and sent slices.
/// </summary>
public sealed record AgentDone(
    int Index,
    double ElapsedSeconds,
    double CpuSeconds,
    int ProcessorCount,
    long NotSent,
    IReadOnlyList<AgentFailureCount> Failures,
    IReadOnlyList<AgentSentSlice> Sent) : AgentMessage;

/// <summary>Coordinator to agent: no more variants; the agent exits 0.</summary>
public sealed record AgentFinish : AgentMessage;
