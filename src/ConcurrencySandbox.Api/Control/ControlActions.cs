using ConcurrencySandbox.Api.Telemetry;
using ConcurrencySandbox.Api.ThreadPools;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.Telemetry;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Platform.Machine;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.Api.Control;

/// <summary>
/// The one implementation of each control action (health, thread pool read/change/reset, telemetry). Both
/// transports call it: the Kestrel endpoints and the <see cref="ControlListener"/>, whose threads are its own, so
/// every action here must run without a free ThreadPool thread: synchronous, no awaits, no pool work items.
/// </summary>
public sealed class ControlActions(ThreadPoolControl control, RuntimeSampler sampler, TelemetryRecorder recorder)
{
    /// <summary>The largest PUT body either transport reads.</summary>
    public const int MaxBodyBytes = 64 * 1024;

    /// <summary>The most the control listener reads of a request line and headers together, and the most header lines.</summary>
    public const int MaxHeaderBytes = 16 * 1024;

    /// <inheritdoc cref="MaxHeaderBytes"/>
    public const int MaxHeaderCount = 100;

    public static readonly NumberParameter Since = new(
        "since",
        0,
        1_000_000_000,
        0,
        "Only samples taken after this uptime, in seconds (an earlier answer's last uptimeSeconds).");

    public static Ok<HealthStatus> Health() => TypedResults.Ok(HealthStatus.Ok);

    public Ok<ThreadPoolStateResponse> ReadThreadPool() => TypedResults.Ok(ThreadPoolState());

    /// <summary>Validates the whole body against <see cref="ThreadPoolSettings"/> before anything changes.</summary>
    public Results<Ok<ThreadPoolStateResponse>, ValidationProblem, ProblemHttpResult> SetThreadPool(ReadOnlySpan<byte> body)
    {
        var reader = new JsonBodyReader(body, ThreadPoolSettings.All);
        var change = ThreadPoolSettings.Check(reader.Read, control.Current, reader, setting => setting.Name);
        return reader.IsValid ? Applied(control.Apply(change)) : reader.Problem();
    }

    public Results<Ok<ThreadPoolStateResponse>, ValidationProblem, ProblemHttpResult> ResetThreadPool() => Applied(control.Reset());

    public Ok<RuntimeSnapshot> Telemetry() => TypedResults.Ok(sampler.Sample());

    /// <summary>The control listener's history: its query read through the same declaration the API port's filter checks.</summary>
    public Results<Ok<TelemetryHistory>, ValidationProblem> History(IQueryCollection query)
    {
        var reader = new QueryReader(query);
        var since = reader.Read(Since);
        return reader.IsValid ? History(since) : reader.Problem();
    }

    public Ok<TelemetryHistory> History(double since) => TypedResults.Ok(new TelemetryHistory(recorder.Interval.TotalSeconds, recorder.Since(since)));

    private Results<Ok<ThreadPoolStateResponse>, ValidationProblem, ProblemHttpResult> Applied(ThreadPoolApplyResult result) =>
        result.Applied
            ? TypedResults.Ok(ThreadPoolState())
            : TypedResults.Problem(result.Refusal, statusCode: StatusCodes.Status409Conflict, title: "The runtime refused the thread pool settings.");

    private ThreadPoolStateResponse ThreadPoolState() =>
        new(ThreadPoolSnapshot.Capture(), control.StartupLimits, CurrentMachine.Info.ProcessorCount, CurrentMachine.Info.IsServerGC, GCMode.Description);
}
