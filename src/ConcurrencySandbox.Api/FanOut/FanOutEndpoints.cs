using System.Globalization;
using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.Experiments.FanOut;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.FanOut;

/// <summary>Seed 003 as a service: one request fans out to several slow third-party calls, run by the chosen strategy.</summary>
public static class FanOutEndpoints
{
    private static readonly ApiTag Tag = new(
        "FanOut", "Seed 003: one request fans out to a slow third party under four strategies; per-call queue waits show the pool's delay.", Order: 20);

    public static WebApplicationBuilder AddFanOut(this WebApplicationBuilder builder)
    {
        builder.Services.AddDeclaredSettings<FanOutOptions, FanOutOptionsValidator>(builder.Configuration, FanOutOptions.SectionName);
        builder.Services.AddDeclaredSettings<ThirdPartyOptions, ThirdPartyOptionsValidator>(builder.Configuration, ThirdPartyOptions.SectionName);

        builder.Services.AddSingleton<FanOutParameters>();
        builder.Services.TryAddSingleton(TimeProvider.System);
        builder.Services.AddSingleton(services => new DedicatedThreadPool(
            services.GetRequiredService<IOptions<FanOutOptions>>().Value.DedicatedThreads, "fanout-dedicated"));
        builder.Services.AddTransient<FanOutRunner>();

        var baseUrl = builder.Configuration.GetSection(ThirdPartyOptions.SectionName)[nameof(ThirdPartyOptions.BaseUrl)];
        if (string.IsNullOrEmpty(baseUrl))
        {
            builder.Services.AddSingleton<IThirdParty>(new InProcessThirdParty(new StubDice()));
        }
        else
        {
            builder.Services.AddHttpClient<IThirdParty, HttpThirdPartyAdapter>(client =>
            {
                client.BaseAddress = new Uri(baseUrl.TrimEnd('/') + "/");
                client.Timeout = Timeout.InfiniteTimeSpan; // each call has its own timeout
            });
        }

        return builder;
    }

    public static IEndpointRouteBuilder MapFanOut(this IEndpointRouteBuilder endpoints)
    {
        endpoints.MapGroup("/api/fanout").WithApiTag(Tag)
            .MapGet("", (FanOutQuery query, FanOutRunner runner, IOptions<FanOutOptions> options, CancellationToken cancellationToken) => FanOutAsync(options.Value, query, runner, cancellationToken))
            .WithName("FanOut")
            .WithSummary("Seed 003: one request fans out to `calls` slow third-party calls, run by the chosen strategy.")
            .WithDescription(
                "threadpool: each call queued with ThreadPool.QueueUserWorkItem and blocking its thread (the seed's original; the request thread blocks too). " +
                "sync-over-async: the same, but each call blocks on an asynchronous call's Task (.Result), which the pool notices and answers with threads sooner. " +
                "dedicated: the blocking calls run on the app's own fixed pool (FanOut:DedicatedThreads); the request awaits without holding a thread. " +
                "async: awaited all the way, no thread held while waiting. " +
                "Per call: queueWaitMs (enqueued to started: the seed's 'waiting for work to even start'), durationMs, outcome and the thread that ran it; " +
                "the CLR pool before and after. 502 when no call succeeded.")
            .WithQueryParameters<FanOutParameters>(parameters => parameters.FanOut)
            .ProducesProblem(StatusCodes.Status502BadGateway);
        return endpoints;
    }

    private static async Task<Results<Ok<FanOutReport>, ValidationProblem, ProblemHttpResult>> FanOutAsync(
        FanOutOptions limits, FanOutQuery query, FanOutRunner runner, CancellationToken cancellationToken)
    {
        var totalMs = (long)query.Calls * (query.DelayMs + query.JitterMs);
        if (totalMs > limits.MaxTotalDelayMs)
        {
            return QueryReader.Refuse(
                "calls",
                $"'calls' x ('delayMs' + 'jitterMs') is {totalMs.ToString(CultureInfo.InvariantCulture)} ms; the limit is " +
                $"{limits.MaxTotalDelayMs.ToString(CultureInfo.InvariantCulture)} ms ({SettingName.Of(FanOutOptions.SectionName, nameof(limits.MaxTotalDelayMs))}). Lower 'calls' or 'delayMs'.");
        }

        var plan = new FanOutPlan(
            FanOutStrategies.Parse(query.Strategy),
            query.Calls,
            new StubBehaviour(query.DelayMs, query.JitterMs, query.FailRate, query.HangRate),
            TimeSpan.FromMilliseconds(query.TimeoutMs));
        var report = await runner.RunAsync(plan, cancellationToken);
        if (report.OkCount > 0 || report.Calls == 0)
        {
            return TypedResults.Ok(report);
        }

        var firstError = report.Results[0].Error;
        return TypedResults.Problem(
            $"All {report.Calls} third-party calls failed: {report.FailedCount} failed, {report.TimedOutCount} timed out. First error: {firstError}.",
            statusCode: StatusCodes.Status502BadGateway,
            title: "Every third-party call failed.",
            extensions: new Dictionary<string, object?> { ["report"] = report });
    }

}

/// <summary>The fan-out query's declarations, with ranges from the configured caps.</summary>
internal sealed class FanOutParameters(IOptions<FanOutOptions> options, IOptions<ThirdPartyOptions> thirdParty)
{
    private readonly FanOutOptions _limits = options.Value;

    /// <summary>In the order <see cref="FanOutQuery"/> lists its members.</summary>
    public QueryParameter[] FanOut =>
    [
        new IntegerParameter("calls", 1, _limits.MaxCalls, 10, "How many third-party calls the request makes."),
        new IntegerParameter("delayMs", 0, _limits.MaxDelayMs, 1000, "How long the stub takes to answer each call, in milliseconds (seed 003: 4000)."),
        new ChoiceParameter("strategy", [.. FanOutStrategies.Names], "async", "How the calls run: threadpool, sync-over-async, dedicated or async."),
        new IntegerParameter("jitterMs", 0, _limits.MaxJitterMs, 0, "Up to this many milliseconds added at random to each call's delay."),
        new NumberParameter("failRate", 0, 1, 0, "Share of calls the stub answers with an error."),
        new NumberParameter("hangRate", 0, 1, 0, "Share of calls the stub never answers; they time out."),
        new IntegerParameter("timeoutMs", 1, _limits.MaxTimeoutMs, thirdParty.Value.TimeoutMs, "Each call's timeout in milliseconds (default: ThirdParty:TimeoutMs)."),
    ];
}

/// <summary>One fan-out request's inputs; <c>strategy</c> is one of the <see cref="FanOutStrategies.Names"/>.</summary>
internal sealed record FanOutQuery(int Calls, int DelayMs, string Strategy, int JitterMs, double FailRate, double HangRate, int TimeoutMs)
    : DeclaredQuery<FanOutQuery>;
