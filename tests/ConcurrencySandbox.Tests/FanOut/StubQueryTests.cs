using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.FanOut;

/// <summary>The stub reads its query through the same declarations as the API, so a bad value gets the same 400.</summary>
public sealed class StubQueryTests(StubAppFixture stubApp) : IClassFixture<StubAppFixture>
{
    [Theory]
    [InlineData("delayMs=-1", "delayMs", "an integer from 0 to")]
    [InlineData("jitterMs=abc", "jitterMs", "an integer from 0 to")]
    [InlineData("failRate=2", "failRate", "a number from 0 to 1")]
    [InlineData("hangRate=-0.5", "hangRate", "a number from 0 to 1")]
    public async Task ABadStubParameterIsNamedWithItsRange(string query, string parameter, string range)
    {
        using var client = new HttpClient { BaseAddress = stubApp.BaseUrl };

        using var response = await client.GetAsync($"stub?{query}");

        Assert.Contains(range, await ProblemAssert.IsBadRequestNamingAsync(response, parameter), StringComparison.Ordinal);
    }
}
