using System.Text.Json;
using ConcurrencySandbox.Api.Admin;
using ConcurrencySandbox.Experiments.Machine;
using ConcurrencySandbox.Experiments.ThreadPools;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.ThreadPools;

/// <summary>The CLR ThreadPool's settings, read and changed at run time (seed 000's fix) and at start-up.</summary>
public static class ThreadPoolEndpoints
{
    public static WebApplicationBuilder AddThreadPools(this WebApplicationBuilder builder)
    {
        builder.Services.AddSingleton<ThreadPoolControl>(_ => new ThreadPoolControl(ClrThreadPoolSettings.Instance));
        builder.Services.AddOptions<ThreadPoolStartupOptions>().Bind(builder.Configuration.GetSection(ThreadPoolStartupOptions.SectionName)).ValidateOnStart();
        builder.Services.AddSingleton<IValidateOptions<ThreadPoolStartupOptions>, ThreadPoolStartupOptionsValidator>();
        builder.AddAdminKey();
        builder.Services.AddHostedService<ThreadPoolStartup>();
        return builder;
    }

    public static IEndpointRouteBuilder MapThreadPools(this IEndpointRouteBuilder endpoints)
    {
        var group = endpoints.MapGroup("/api/threadpool").WithTags("ThreadPool");

        group.MapGet("", (ThreadPoolControl control) => TypedResults.Ok(ThreadPoolStateResponse.Read(control)))
            .WithName("GetThreadPool")
            .WithSummary("The CLR ThreadPool's minimum, maximum and available worker and I/O threads, its load, the processor count and GC mode.");

        group.MapPut("", Set)
            .WithName("SetThreadPool")
            .WithSummary("Changes any of minWorkerThreads, minIoThreads, maxWorkerThreads, maxIoThreads for the whole process; returns the new state.")
            .WithDescription("Seed 000's fix: raise minWorkerThreads (e.g. to 400) so a burst of blocking work gets threads at once instead of one or two a second. " +
                "Each value 1..32767 and each minimum at most its maximum, else 400 naming the setting. A runtime refusal is 409 and nothing changes. " +
                "Requires the admin key (X-Admin-Key) when Admin:Key is set, otherwise a loopback caller.")
            .RequireAdminKey()
            .ProducesProblem(StatusCodes.Status409Conflict);

        group.MapPost("/reset", (ThreadPoolControl control) => Applied(control, control.Reset()))
            .WithName("ResetThreadPool")
            .WithSummary("Returns the thread pool to its start-up settings (after the ThreadPool configuration section was applied).")
            .RequireAdminKey()
            .ProducesProblem(StatusCodes.Status409Conflict);

        return endpoints;
    }

    private static Results<Ok<ThreadPoolStateResponse>, ValidationProblem, ProblemHttpResult> Set(ThreadPoolChange change, ThreadPoolControl control)
    {
        var problems = change.Problems(control.Current, JsonNamingPolicy.CamelCase.ConvertName);
        if (problems.Count > 0)
        {
            return TypedResults.ValidationProblem(
                problems.ToDictionary(problem => problem.Key, problem => new[] { problem.Value }),
                detail: string.Join(" ", problems.Values),
                title: "One or more thread pool settings are invalid.");
        }

        return Applied(control, control.Apply(change));
    }

    private static Results<Ok<ThreadPoolStateResponse>, ValidationProblem, ProblemHttpResult> Applied(ThreadPoolControl control, ThreadPoolApplyResult result) =>
        result.Applied
            ? TypedResults.Ok(ThreadPoolStateResponse.Read(control))
            : TypedResults.Problem(result.Refusal, statusCode: StatusCodes.Status409Conflict, title: "The runtime refused the thread pool settings.");
}

/// <summary>The pool now, the start-up limits that reset returns to, and the facts that explain the pool's behaviour.</summary>
public sealed record ThreadPoolStateResponse(ThreadPoolSnapshot ThreadPool, ThreadPoolLimits Startup, int ProcessorCount, bool IsServerGC, string GCMode)
{
    public static ThreadPoolStateResponse Read(ThreadPoolControl control) =>
        new(ThreadPoolSnapshot.Capture(), control.StartupLimits, MachineInfo.Current.ProcessorCount, MachineInfo.Current.IsServerGC, Experiments.ThreadPools.GCMode.Description);
}
