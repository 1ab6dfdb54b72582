using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.WebUtilities;

namespace ConcurrencySandbox.Tests.Validation;

/// <summary>
/// The reader over a request's raw query string (the typed endpoints' path, which never builds Request.Query) reads
/// exactly what the reader over the parsed collection reads: values, defaults, errors and their messages.
/// </summary>
public sealed class QueryReaderTests
{
    [Theory]
    [InlineData("")]
    [InlineData("?")]
    [InlineData("?count=3")]
    [InlineData("?COUNT=3&Mode=SLOW")]
    [InlineData("?count=1&count=7&rate=&limit=20")]
    [InlineData("?count=7&count=")]
    [InlineData("?count")]
    [InlineData("?c%6Funt=4&rate=0%2E25")]
    [InlineData("?count=+5&mode=sl%6Fw&limit=2+0")]
    [InlineData("?count=x&rate=2&mode=&limit=0")]
    [InlineData("?&&count=2&&=9&limit=%")]
    [InlineData("?count=%F0%9F%98%80&mode=f%C3%A4st")]
    public void TheRawQueryStringReadsLikeTheParsedCollection(string queryString)
    {
        var (count, rate, mode, limit) = (DeclaredQueryFilterTests.Count, DeclaredQueryFilterTests.Rate, DeclaredQueryFilterTests.Mode, DeclaredQueryFilterTests.Limit);
        var raw = new QueryReader(new QueryString(queryString));
        var parsed = new QueryReader(new QueryCollection(QueryHelpers.ParseQuery(queryString)));

        Assert.Equal(parsed.Read(count), raw.Read(count));
        Assert.Equal(parsed.Read(rate), raw.Read(rate));
        Assert.Equal(parsed.Read(mode), raw.Read(mode));
        Assert.Equal(parsed.Read(limit), raw.Read(limit));
        Assert.Equal(parsed.Sent(limit), raw.Sent(limit));
        Assert.Equal(parsed.IsValid, raw.IsValid);
        Assert.Equal(parsed.Messages, raw.Messages);
    }
}
