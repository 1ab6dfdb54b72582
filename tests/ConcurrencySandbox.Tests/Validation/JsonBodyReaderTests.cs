using System.Text;
using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Tests.Validation;

public sealed class JsonBodyReaderTests
{
    private static readonly IntegerParameter Count = new("count", 1, 100, null, "How many.");

    [Theory]
    [InlineData("", JsonBodyReader.BodyKey, "The body is empty")]
    [InlineData("  \r\n", JsonBodyReader.BodyKey, "The body is empty")]
    [InlineData("{\"count\":", JsonBodyReader.BodyKey, "not valid JSON")]
    [InlineData("[{\"count\":3}]", JsonBodyReader.BodyKey, "is a JSON array")]
    [InlineData("7", JsonBodyReader.BodyKey, "is a JSON number")]
    [InlineData("{\"cuont\":3}", "cuont", "'cuont' is not a known property")]
    [InlineData("{\"Count\":3}", "Count", "'Count' is not a known property")]
    [InlineData("{\"count\":\"3\"}", "count", "'count' must be an integer from 1 to 100; got '\"3\"'")]
    [InlineData("{\"count\":2.5}", "count", "'count' must be an integer from 1 to 100; got '2.5'")]
    [InlineData("{\"count\":null}", "count", "got 'null'")]
    [InlineData("{\"count\":true}", "count", "got 'true'")]
    [InlineData("{\"count\":99999999999999999999999}", "count", "got '99999999999999999999999'")]
    [InlineData("{\"count\":101}", "count", "got '101'")]
    [InlineData("{\"count\":3,\"count\":4}", "count", "appears more than once")]
    public void EachBadBodyIsNamedWithWhatWasExpected(string body, string key, string message)
    {
        var reader = new JsonBodyReader(Encoding.UTF8.GetBytes(body), [Count]);

        Assert.True(reader.Has(key), $"no error under '{key}': {string.Join(" | ", reader.Messages)}");
        Assert.Contains(message, Assert.Single(reader.Messages), StringComparison.Ordinal);
        Assert.Null(reader.Read(Count));
    }

    [Fact]
    public void AnErrorForTheWholeBodyListsEveryPropertyWithItsRange()
    {
        var reader = new JsonBodyReader("[]"u8, [Count, new IntegerParameter("size", 5, 9, null, "How big.")]);

        Assert.Contains("count (an integer from 1 to 100), size (an integer from 5 to 9)", Assert.Single(reader.Messages), StringComparison.Ordinal);
    }

    [Fact]
    public void AValidBodyYieldsItsValuesAndLeavesOthersNull()
    {
        var reader = new JsonBodyReader("{\"count\": 42}"u8, [Count, new IntegerParameter("size", 5, 9, null, "How big.")]);

        Assert.True(reader.IsValid);
        Assert.Equal(42, reader.Read(Count));
    }
}
