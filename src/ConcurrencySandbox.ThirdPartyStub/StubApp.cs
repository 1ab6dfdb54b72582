using System.Globalization;
using ConcurrencySandbox.Experiments.FanOut;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
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
        var builder = WebApplication.CreateBuilder(args);
        var portsGiven = builder.Configuration["urls"] is not null || builder.Configuration["http_ports"] is not null;
        if (!portsGiven)
        {
            builder.WebHost.UseUrls(DefaultUrl);
        }

        builder.Services.AddSingleton(new InProcessThirdParty(new StubDice()));
        builder.Services.AddProblemDetails();

        var app = builder.Build();
        app.MapGet("/stub", AnswerAsync);
        app.MapGet("/healthz", () => TypedResults.Ok(new { status = "ok" }));
        app.Lifetime.ApplicationStarted.Register(() =>
        {
            var addresses = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()?.Addresses ?? [];
            Console.WriteLine($"{ReadyLine} {string.Join(' ', addresses)}");
        });
        return app;
    }

    private static async Task<Results<Ok<StubAnswer>, ProblemHttpResult>> AnswerAsync(
        HttpRequest request, InProcessThirdParty stub, CancellationToken cancellationToken)
    {
        StubBehaviour behaviour;
        try
        {
            var query = request.Query;
            behaviour = new StubBehaviour(
                Read<int>(query, "delayMs"), Read<int>(query, "jitterMs"), Read<double>(query, "failRate"), Read<double>(query, "hangRate"));
        }
        catch (Exception e) when (e is FormatException or ArgumentOutOfRangeException)
        {
            return TypedResults.Problem(
                $"{e.Message} Expected delayMs and jitterMs >= 0 (ms), failRate and hangRate between 0 and 1.",
                statusCode: StatusCodes.Status400BadRequest);
        }

        var answer = await stub.CallAsync(behaviour, Timeout.InfiniteTimeSpan, cancellationToken);
        return answer.Outcome == CallOutcome.Ok
            ? TypedResults.Ok(new StubAnswer(behaviour.DelayMs))
            : TypedResults.Problem(answer.Error, statusCode: StatusCodes.Status500InternalServerError);
    }

    private static T Read<T>(IQueryCollection query, string name)
        where T : struct, IParsable<T> =>
        query[name].ToString() is { Length: > 0 } text
            ? T.TryParse(text, CultureInfo.InvariantCulture, out var value) ? value : throw new FormatException($"'{name}' is not a number: '{text}'.")
            : default;
}

/// <summary>The stub's answer to a call that succeeded.</summary>
public sealed record StubAnswer(int DelayMs);
