using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Work;

public sealed class WorkBadInputTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>
{
    [Theory]
    [InlineData("/api/compute/sync", "cycles")]
    [InlineData("/api/compute/sync?cycles=", "cycles")]
    [InlineData("/api/compute/sync?cycles=abc", "cycles")]
    [InlineData("/api/compute/sync?cycles=-5", "cycles")]
    [InlineData("/api/compute/sync?cycles=0", "cycles")]
    [InlineData("/api/compute/sync?cycles=1.5", "cycles")]
    [InlineData("/api/compute/taskrun?cycles=10000000001", "cycles")]
    [InlineData("/api/compute/taskrun?cycles=99999999999999999999999", "cycles")]
    [InlineData("/api/spinwait/sync?iterations=0", "iterations")]
    [InlineData("/api/spinwait/taskrun?iterations=1000000001", "iterations")]
    [InlineData("/api/sleep/sync?milliseconds=60001", "milliseconds")]
    [InlineData("/api/sleep/async?milliseconds=-1", "milliseconds")]
    [InlineData("/api/sleep/taskrun?milliseconds=NaN", "milliseconds")]
    [InlineData("/api/compute/compare?cycles=10&repeat=0", "repeat")]
    [InlineData("/api/compute/compare?cycles=10&repeat=51", "repeat")]
    [InlineData("/api/sleep/compare?repeat=3", "milliseconds")]
    [InlineData("/api/compute/compare?cycles=10&ciWidth=0.5", "ciWidth")]
    [InlineData("/api/compute/compare?cycles=10&ciWidth=51", "ciWidth")]
    [InlineData("/api/compute/compare?cycles=10&ciWidth=NaN", "ciWidth")]
    [InlineData("/api/compute/compare?cycles=10&budgetSeconds=0", "budgetSeconds")]
    [InlineData("/api/compute/compare?cycles=10&budgetSeconds=1801", "budgetSeconds")]
    [InlineData("/api/compute/sweep?ciWidth=-5", "ciWidth")]
    [InlineData("/api/compute/sweep?budgetSeconds=forever", "budgetSeconds")]
    [InlineData("/api/compute/sweep?factor=1", "factor")]
    [InlineData("/api/compute/sweep?from=0", "from")]
    [InlineData("/api/compute/sweep?from=100&to=10", "from")]
    [InlineData("/api/compute/sweep?format=xml", "format")]
    [InlineData("/api/compute/sweep?to=10000000000&repeat=50", "to")]
    [InlineData("/api/sleep/sweep?from=60000&to=60000&repeat=50", "to")]
    public async Task BadInputGetsProblemDetailsNamingTheParameter(string url, string parameter)
    {
        using var response = await shared.Client.GetAsync(url);

        var detail = await ProblemAssert.IsBadRequestNamingAsync(response, parameter);
        Assert.Matches("from|limit|one of", detail);
    }

    [Fact]
    public async Task EveryBadParameterIsNamedInOneAnswer()
    {
        using var response = await shared.Client.GetAsync("/api/compute/compare?cycles=x&repeat=y");

        await ProblemAssert.IsBadRequestNamingAsync(response, "cycles", "repeat");
    }

    [Fact]
    public async Task CapsComeFromConfiguration()
    {
        await using var server = await SandboxServer.StartAsync("Limits:MaxCycles=1000");

        using var allowed = await server.Client.GetAsync("/api/compute/sync?cycles=1000");
        using var refused = await server.Client.GetAsync("/api/compute/sync?cycles=1001");

        Assert.True(allowed.IsSuccessStatusCode);
        var detail = await ProblemAssert.IsBadRequestNamingAsync(refused, "cycles");
        Assert.Contains("from 1 to 1000;", detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnInvalidCapStopsStartUpNamingTheSetting()
    {
        var failure = await SandboxServer.StartUpFailureAsync("Limits:MaxRepeat=0");

        Assert.Contains("Limits__MaxRepeat", failure, StringComparison.Ordinal);
    }
}
