using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http;

namespace ConcurrencySandbox.Tests.Validation;

/// <summary>
/// The record binding compiled once per record type: every declared kind (long, int, double, string, each also
/// nullable) gets the value sent, the declared default or null, as the per-request reflection binding gave.
/// </summary>
public sealed class DeclaredQueryBindingTests
{
    private static readonly QueryParameter[] Declared =
    [
        new IntegerParameter("big", 1, 10_000_000_000, 5_000_000_000, "long"),
        new IntegerParameter("small", -5, 5, -2, "int"),
        new NumberParameter("share", 0, 1, 0.25, "double"),
        new ChoiceParameter("word", ["alpha", "beta"], "alpha", "string"),
        new IntegerParameter("maybeBig", 1, 10_000_000_000, 7, "long?"),
        new IntegerParameter("maybeSmall", 1, 9, 3, "int?"),
        new NumberParameter("maybeShare", 0, 1, 0.5, "double?"),
        new ChoiceParameter("maybeWord", ["alpha", "beta"], null, "string?"),
    ];

    [Fact]
    public async Task LeftOutValuesTakeTheDeclaredDefaultsAndNullableOnesAreNull()
    {
        var (query, reader) = await BindAsync("");

        Assert.Equal(new WideQuery(5_000_000_000, -2, 0.25, "alpha", null, null, null, null), query);
        Assert.False(reader.Has("big"));
        Assert.True(reader.Has("maybeWord")); // required (no default): recorded for the filter's 400, bound as null
    }

    [Fact]
    public async Task SentValuesAreBoundTypedWithTheDeclaredSpellingOfAChoice()
    {
        var (query, reader) = await BindAsync("?big=9000000000&small=-5&share=1e-1&word=BETA&maybeBig=8&maybeSmall=9&maybeShare=0&maybeWord=Alpha");

        Assert.Equal(new WideQuery(9_000_000_000, -5, 0.1, "beta", 8, 9, 0, "alpha"), query);
        Assert.True(reader.IsValid);
    }

    [Fact]
    public async Task BadValuesBindPlaceholdersWithinRangeAndEveryErrorIsRecorded()
    {
        var (query, reader) = await BindAsync("?big=0&small=99&share=x&word=gamma&maybeBig=-1&maybeSmall=x&maybeShare=2&maybeWord=delta");

        // A bad value's placeholder is the default (or the minimum), never seen by a handler: the filter answers 400 first.
        Assert.Equal(new WideQuery(5_000_000_000, -2, 0.25, "alpha", 7, 3, 0.5, "alpha"), query);
        Assert.All(Declared, parameter => Assert.True(reader.Has(parameter.Name), parameter.Name));
    }

    private static async Task<(WideQuery Query, QueryReader Reader)> BindAsync(string queryString)
    {
        var context = new DefaultHttpContext();
        context.Request.QueryString = new QueryString(queryString);
        context.SetEndpoint(new Endpoint(null, new EndpointMetadataCollection(new QueryParameterMetadata(Declared)), "wide"));

        var query = await WideQuery.BindAsync(context);

        var reader = Assert.IsType<QueryReader>(Assert.Single(context.Items).Value);
        return (Assert.IsType<WideQuery>(query), reader);
    }
}

/// <summary>One member of each kind a declaration can bind, in the order <see cref="DeclaredQueryBindingTests"/> declares them.</summary>
public sealed record WideQuery(long Big, int Small, double Share, string Word, long? MaybeBig, int? MaybeSmall, double? MaybeShare, string? MaybeWord)
    : DeclaredQuery<WideQuery>;
