using ConcurrencySandbox.Api.Admin;
using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.Api.ThreadPools;

/// <summary>The CLR ThreadPool's settings, read and changed at run time (seed 000's fix) and at start-up.</summary>
public static class ThreadPoolEndpoints
{
    private static readonly ApiTag Tag = new(
        "ThreadPool",
        "Seed 000: read and change the ThreadPool's limits at run time. During starvation use the control plane's URL (see servers): it needs no pool thread.",
        Order: 50);

    public static WebApplicationBuilder AddThreadPools(this WebApplicationBuilder builder)
    {
        builder.Services.AddSingleton<ThreadPoolControl>(_ => new ThreadPoolControl(ClrThreadPoolSettings.Instance));
        builder.Services.AddSingleton<ThreadPoolActions>();
        builder.Services.AddDeclaredSettings<ThreadPoolStartupOptions, ThreadPoolStartupOptionsValidator>(builder.Configuration, ThreadPoolStartupOptions.SectionName);
        builder.Services.AddHostedService<ThreadPoolStartup>();
        return builder;
    }

    public static IEndpointRouteBuilder MapThreadPools(this IEndpointRouteBuilder endpoints)
    {
        var group = endpoints.MapGroup(ControlRoutes.ThreadPool).WithApiTag(Tag);

        group.MapGet("", (ThreadPoolActions actions) => actions.Read())
            .WithName("GetThreadPool")
            .WithSummary("The CLR ThreadPool's minimum, maximum and available worker and I/O threads, its load, the processor count and GC mode.")
            .WithDescription("startup holds the limits reset returns to. While an experiment starves the pool, ask the control plane's server: it answers from threads of its own.");

        group.MapPut("", SetAsync)
            .WithName("SetThreadPool")
            .WithSummary("Changes any of minWorkerThreads, minIoThreads, maxWorkerThreads, maxIoThreads for the whole process; returns the new state.")
            .WithDescription("Seed 000's fix: raise minWorkerThreads (e.g. to 400) so a burst of blocking work gets threads at once instead of one or two a second. " +
                "Send it to the control port while the pool starves: this port needs a free pool thread to answer. " +
                "The body is a JSON object with any of the four settings (ranges in the schema; the maximums never below the processor count, at least 2), " +
                "each minimum at most its maximum; anything else (unknown property, string, fraction, overflow, malformed JSON, empty body, array) is 400 naming it. " +
                "A runtime refusal is 409 and nothing changes. Requires the admin key (X-Admin-Key) when Admin:Key is set, otherwise a loopback caller; that check answers first.")
            .WithJsonBody(ThreadPoolSettings.All, """{"minWorkerThreads": 400}""")
            .RequireAdminKey()
            .ProducesValidationProblem()
            .ProducesProblem(StatusCodes.Status409Conflict);

        group.MapPost("/reset", (ThreadPoolActions actions) => actions.Reset())
            .WithName("ResetThreadPool")
            .WithSummary("Returns the thread pool to its start-up settings (after the ThreadPool configuration section was applied).")
            .WithDescription("Takes no body. Requires the admin key (X-Admin-Key) when Admin:Key is set, otherwise a loopback caller. A runtime refusal is 409 and nothing changes.")
            .RequireAdminKey()
            .ProducesProblem(StatusCodes.Status409Conflict);

        return endpoints;
    }

    // The body is read here, not bound, so the admin key filter answers before any body problem.
    private static async Task<Results<Ok<ThreadPoolStateResponse>, ValidationProblem, ProblemHttpResult>> SetAsync(
        HttpRequest request, ThreadPoolActions actions, CancellationToken cancellationToken)
    {
        var body = await JsonBody.ReadAsync(request, ThreadPoolActions.MaxBodyBytes, cancellationToken);
        return actions.Set(body);
    }
}
