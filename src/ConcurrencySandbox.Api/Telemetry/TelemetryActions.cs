using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.Experiments.Telemetry;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.Api.Telemetry;

/// <summary>
/// The telemetry snapshot and history. Both transports call them: the Kestrel endpoints and the control plane's
/// listener, whose threads are its own, so each must run without a free ThreadPool thread.
/// </summary>
public sealed class TelemetryActions(RuntimeSampler sampler, TelemetryRecorder recorder)
{
    public static readonly NumberParameter Since = new(
        "since",
        0,
        1_000_000_000,
        0,
        "Only samples taken after this uptime, in seconds (an earlier answer's last uptimeSeconds).");

    public Ok<RuntimeSnapshot> Snapshot() => TypedResults.Ok(sampler.Sample());

    /// <summary>The control listener's history: its query read through the same declaration the API port's filter checks.</summary>
    public Results<Ok<TelemetryHistory>, ValidationProblem> History(IQueryCollection query)
    {
        var reader = new QueryReader(query);
        var since = reader.Read(Since);
        return reader.IsValid ? History(since) : reader.Problem();
    }

    public Ok<TelemetryHistory> History(double since) => TypedResults.Ok(new TelemetryHistory(recorder.Interval.TotalSeconds, recorder.Since(since)));
}
