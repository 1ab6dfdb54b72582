using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Contracts.FanOut;
using ConcurrencySandbox.Experiments.FanOut;
using ConcurrencySandbox.Validation;
using ConcurrencySandbox.WebHosting;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.ThirdPartyStub;

/// <summary>
/// The slow third party served over HTTP, with the same behaviour as the API's in-process stub:
/// <c>GET /stub?delayMs=&amp;jitterMs=&amp;failRate=&amp;hangRate=</c> waits, then answers 200 or an injected 500;
/// a hanging call never answers until the caller gives up.
/// </summary>
public static class StubApp
{
    public const string DefaultUrl = "http://127.0.0.1:5090";
    public const string ReadyLine = "ConcurrencySandbox stub ready at";

    public static WebApplication Build(string[] args)
    {
        var builder = WebStartup.CreateBuilder(args, DefaultUrl);
        builder.Services.AddSingleton(new InProcessThirdParty(new StubDice()));

        var app = builder.Build();
        app.MapGet("/stub", AnswerAsync).WithQueryParameters(DelayMs, JitterMs, FailRate, HangRate);
        app.MapGet("/healthz", () => TypedResults.Ok(HealthStatus.Ok));
        app.WhenListening(addresses => Console.WriteLine($"{ReadyLine} {string.Join(' ', addresses)}"));
        return app;
    }

    private static readonly IntegerParameter DelayMs = new("delayMs", 0, int.MaxValue, 0, "The least time an answer takes, in ms.");
    private static readonly IntegerParameter JitterMs = new("jitterMs", 0, int.MaxValue, 0, "Up to this many ms more, at random.");
    private static readonly NumberParameter FailRate = new("failRate", 0, 1, 0, "The share of calls answered with an injected 500.");
    private static readonly NumberParameter HangRate = new("hangRate", 0, 1, 0, "The share of calls that never answer.");

    private static async Task<Results<Ok<StubAnswer>, ProblemHttpResult>> AnswerAsync(StubQuery query, InProcessThirdParty stub, CancellationToken cancellationToken)
    {
        var behaviour = new StubBehaviour(query.DelayMs, query.JitterMs, query.FailRate, query.HangRate);
        var answer = await stub.CallAsync(behaviour, Timeout.InfiniteTimeSpan, cancellationToken);
        return answer.Outcome == CallOutcome.Ok
            ? TypedResults.Ok(new StubAnswer(behaviour.DelayMs))
            : TypedResults.Problem(answer.Error, statusCode: StatusCodes.Status500InternalServerError);
    }
}

/// <summary>A call's inputs, each member filling the declared parameter of its name.</summary>
internal sealed record StubQuery(int DelayMs, int JitterMs, double FailRate, double HangRate) : DeclaredQuery<StubQuery>;

/// <summary>The stub's answer to a call that succeeded.</summary>
public sealed record StubAnswer(int DelayMs);
