using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Platform.Machine;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.Api.ThreadPools;

/// <summary>
/// The thread pool's read, change and reset. Both transports call them: the Kestrel endpoints and the control plane's
/// listener, whose threads are its own, so each must run without a free ThreadPool thread: synchronous, no awaits,
/// no pool work items.
/// </summary>
public sealed class ThreadPoolActions(ThreadPoolControl control)
{
    /// <summary>The largest PUT body either transport reads.</summary>
    public const int MaxBodyBytes = 64 * 1024;

    public Ok<ThreadPoolStateResponse> Read() => TypedResults.Ok(State());

    /// <summary>Validates the whole body against <see cref="ThreadPoolSettings"/> before anything changes.</summary>
    public Results<Ok<ThreadPoolStateResponse>, ValidationProblem, ProblemHttpResult> Set(ReadOnlySpan<byte> body)
    {
        var reader = new JsonBodyReader(body, ThreadPoolSettings.All);
        var change = ThreadPoolSettings.Check(reader.Read, control.Current, reader, setting => setting.Name);
        return reader.IsValid ? Applied(control.Apply(change)) : reader.Problem();
    }

    public Results<Ok<ThreadPoolStateResponse>, ValidationProblem, ProblemHttpResult> Reset() => Applied(control.Reset());

    private Results<Ok<ThreadPoolStateResponse>, ValidationProblem, ProblemHttpResult> Applied(ThreadPoolApplyResult result) =>
        result.Applied
            ? TypedResults.Ok(State())
            : TypedResults.Problem(result.Refusal, statusCode: StatusCodes.Status409Conflict, title: "The runtime refused the thread pool settings.");

    private ThreadPoolStateResponse State() =>
        new(ThreadPoolSnapshot.Capture(), control.StartupLimits, CurrentMachine.Info.ProcessorCount, CurrentMachine.Info.IsServerGC, GCMode.Description);
}
