using ConcurrencySandbox.Tests.Hosting;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace ConcurrencySandbox.Tests.Validation;

/// <summary>
/// The one query filter on a small app of its own: a typed record of inputs, declared parameters checked before the
/// handler runs, the same 400 the API's endpoints give.
/// </summary>
public sealed class DeclaredQueryFilterTests
{
    // The probe endpoint's declarations; QueryReaderTests reads the same ones.
    internal static readonly IntegerParameter Count = new("count", 1, 10, null, "Required.");
    internal static readonly NumberParameter Rate = new("rate", 0, 1, 0.5, "A share.");
    internal static readonly ChoiceParameter Mode = new("mode", ["fast", "slow"], "fast", "A word.");
    internal static readonly IntegerParameter Limit = new("limit", 1, 100, 50, "Optional; null when left out.");

    [Fact]
    public async Task AValidQueryReachesTheHandlerTypedWithTheDeclaredSpellingAndDefaults()
    {
        await using var app = await ProbeApp.StartAsync();

        var query = await app.Client.GetOkAsync<ProbeQuery>("/declared?count=3&mode=SLOW");

        Assert.Equal(new ProbeQuery(3, 0.5, "slow", null), query);
        Assert.Equal(1, app.HandlerCalls);
    }

    [Fact]
    public async Task ARepeatedParameterCountsWithItsLastValueAndAnEmptyOneAsLeftOut()
    {
        await using var app = await ProbeApp.StartAsync();

        var query = await app.Client.GetOkAsync<ProbeQuery>("/declared?count=1&count=7&rate=&limit=20");

        Assert.Equal(new ProbeQuery(7, 0.5, "fast", 20), query);
    }

    [Theory]
    [InlineData("/declared", "count", "'count' is required: an integer from 1 to 10.")]
    [InlineData("/declared?count=", "count", "'count' is required: an integer from 1 to 10.")]
    [InlineData("/declared?count=11", "count", "'count' must be an integer from 1 to 10; got '11'.")]
    [InlineData("/declared?count=abc", "count", "'count' must be an integer from 1 to 10; got 'abc'.")]
    [InlineData("/declared?count=2.5", "count", "'count' must be an integer from 1 to 10; got '2.5'.")]
    [InlineData("/declared?count=2&rate=NaN", "rate", "'rate' must be a number from 0 to 1; got 'NaN'.")]
    [InlineData("/declared?count=2&mode=medium", "mode", "'mode' must be one of fast, slow; got 'medium'.")]
    [InlineData("/declared?count=2&limit=0", "limit", "'limit' must be an integer from 1 to 100; got '0'.")]
    public async Task ABadValueGetsTheProblemNamingItsParameterAndTheHandlerDoesNotRun(string url, string parameter, string message)
    {
        await using var app = await ProbeApp.StartAsync();

        using var response = await app.Client.GetAsync(url);

        Assert.Equal(message, await ProblemAssert.IsBadRequestNamingAsync(response, parameter));
        Assert.Equal(0, app.HandlerCalls);
    }

    [Fact]
    public async Task EveryBadParameterIsNamedInOneAnswer()
    {
        await using var app = await ProbeApp.StartAsync();

        using var response = await app.Client.GetAsync("/declared?count=x&rate=2&mode=");

        await ProblemAssert.IsBadRequestNamingAsync(response, "count", "rate");
        Assert.Equal(0, app.HandlerCalls);
    }

    [Fact]
    public async Task AnEndpointWithoutDeclarationsIsNotChecked()
    {
        await using var app = await ProbeApp.StartAsync();

        using var response = await app.Client.GetAsync("/undeclared?count=abc");

        Assert.True(response.IsSuccessStatusCode, $"{(int)response.StatusCode}");
        Assert.Equal(1, app.HandlerCalls);
    }

    [Fact]
    public async Task ARouteDependentNameFillsTheMemberItsDeclarationNames()
    {
        await using var app = await ProbeApp.StartAsync();

        var query = await app.Client.GetOkAsync<ProbeQuery>("/renamed?cycles=4");

        Assert.Equal(new ProbeQuery(4, 0.5, "fast", null), query);
    }

    [Theory]
    [InlineData("member without declaration", "ProbeQuery.Limit fills no declared query parameter (the endpoint declares count, rate, mode).")]
    [InlineData("declaration without member", "ProbeQuery has no member extra for the declared query parameter 'extra'.")]
    [InlineData("type too small", "ProbeQuery.Count (Int32) cannot hold 'count', an integer of at least 1.")]
    [InlineData("same types swapped", "SwappedQuery.JitterMs stands where the endpoint declares 'delayMs': list the members in the declared order (delayMs, jitterMs).")]
    public async Task ARecordThatDisagreesWithItsDeclarationsStopsTheAppBeforeItListens(string mismatch, string message)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Logging.ClearProviders();
        builder.Services.AddDeclaredQueryCheck();
        await using var app = builder.Build();
        var delayMs = new IntegerParameter("delayMs", 0, 100, 0, "Same type as jitterMs.");
        var jitterMs = new IntegerParameter("jitterMs", 0, 100, 0, "Same type as delayMs.");
        _ = mismatch switch
        {
            "member without declaration" => app.MapGet("/mismatch", (ProbeQuery query) => TypedResults.Ok(query)).WithQueryParameters(Count, Rate, Mode),
            "declaration without member" => app.MapGet("/mismatch", (ProbeQuery query) => TypedResults.Ok(query))
                .WithQueryParameters(Count, Rate, Mode, Limit, new IntegerParameter("extra", 1, 2, 1, "No member.")),
            "type too small" => app.MapGet("/mismatch", (ProbeQuery query) => TypedResults.Ok(query)).WithQueryParameters(Count with { Max = long.MaxValue }, Rate, Mode, Limit),
            _ => app.MapGet("/mismatch", (SwappedQuery query) => TypedResults.Ok(query)).WithQueryParameters(delayMs, jitterMs),
        };

        var failure = await Assert.ThrowsAsync<InvalidOperationException>(() => app.StartAsync());

        Assert.Equal(message, failure.Message);
        Assert.False(app.Lifetime.ApplicationStarted.IsCancellationRequested, "the app started");
    }

    /// <summary>A Kestrel app on a free loopback port with one declared and one undeclared endpoint, counting handler calls.</summary>
    private sealed class ProbeApp : IAsyncDisposable
    {
        private readonly WebApplication _app;
        private int _handlerCalls;

        private ProbeApp(WebApplication app) => _app = app;

        public HttpClient Client { get; private set; } = null!;

        public int HandlerCalls => Volatile.Read(ref _handlerCalls);

        public static async Task<ProbeApp> StartAsync()
        {
            var builder = WebApplication.CreateSlimBuilder();
            builder.WebHost.UseUrls("http://127.0.0.1:0");
            builder.Logging.ClearProviders();
            builder.Services.AddProblemDetails();
            builder.Services.AddDeclaredQueryCheck();
            var probe = new ProbeApp(builder.Build());
            probe._app.MapGet("/declared", (ProbeQuery query) =>
            {
                Interlocked.Increment(ref probe._handlerCalls);
                return TypedResults.Ok(query);
            }).WithQueryParameters(Count, Rate, Mode, Limit);
            probe._app.MapGet("/renamed", (ProbeQuery query) => TypedResults.Ok(query))
                .WithQueryParameters(Count with { Name = "cycles", Member = nameof(ProbeQuery.Count) }, Rate, Mode, Limit);
            probe._app.MapGet("/undeclared", () =>
            {
                Interlocked.Increment(ref probe._handlerCalls);
                return TypedResults.Ok();
            });
            await probe._app.StartAsync();
            var address = probe._app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
            probe.Client = new HttpClient { BaseAddress = new Uri(address) };
            return probe;
        }

        public async ValueTask DisposeAsync()
        {
            Client.Dispose();
            await _app.StopAsync();
            await _app.DisposeAsync();
        }
    }
}

/// <summary>The probe endpoint's inputs, each member filling the declaration of its name, in the declared order.</summary>
public sealed record ProbeQuery(int Count, double Rate, string Mode, int? Limit) : DeclaredQuery<ProbeQuery>;

/// <summary>Two same-typed members in the other order than the endpoint declares them.</summary>
public sealed record SwappedQuery(int JitterMs, int DelayMs) : DeclaredQuery<SwappedQuery>;
