using System.Net;
using System.Text.Json;
using ConcurrencySandbox.Tests.Hosting;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Tests.FanOut;

public sealed class FanOutEndpointTests
{
    [Theory]
    [InlineData("threadpool", "pool")]
    [InlineData("sync-over-async", "pool")]
    [InlineData("dedicated", "dedicated")]
    [InlineData("async", "pool")]
    public async Task EveryStrategyAnswersWithItsContract(string strategy, string thread)
    {
        await using var server = await SandboxServer.StartAsync("FanOut:DedicatedThreads=2");

        using var json = await GetJsonAsync(server, $"/api/fanout?calls=3&delayMs=20&strategy={strategy}");
        var root = json.RootElement;

        Assert.Equal(strategy, root.GetProperty("strategy").GetString());
        Assert.Equal(3, root.GetProperty("calls").GetInt32());
        Assert.True(root.GetProperty("elapsedMs").GetDouble() > 0);
        Assert.Equal(3, root.GetProperty("okCount").GetInt32());
        Assert.Equal(0, root.GetProperty("failedCount").GetInt32() + root.GetProperty("timedOutCount").GetInt32());
        Assert.True(root.GetProperty("queueWaitMs").GetProperty("max").GetDouble() >= root.GetProperty("queueWaitMs").GetProperty("mean").GetDouble());
        Assert.True(root.GetProperty("durationMs").GetProperty("max").GetDouble() >= root.GetProperty("durationMs").GetProperty("mean").GetDouble());
        Assert.True(root.GetProperty("threadPoolBefore").GetProperty("threadCount").GetInt32() >= 1);
        Assert.True(root.GetProperty("threadPoolAfter").GetProperty("pendingWorkItemCount").GetInt64() >= 0);
        var results = root.GetProperty("results").EnumerateArray().ToList();
        Assert.Equal(3, results.Count);
        Assert.All(results, call => Assert.Equal("ok", call.GetProperty("outcome").GetString()));
        Assert.All(results, call => Assert.Equal(thread, call.GetProperty("thread").GetString()));
    }

    [Fact]
    public async Task AsyncFanOutStartsEveryCallOnTheRequestThread()
    {
        await using var server = await SandboxServer.StartAsync();

        using var json = await GetJsonAsync(server, "/api/fanout?calls=50&delayMs=100&strategy=async");

        Assert.Equal(1, json.RootElement.GetProperty("distinctThreads").GetInt32());
    }

    [Fact]
    public async Task WithOneDedicatedThreadTheCallsQueueBehindEachOther()
    {
        await using var server = await SandboxServer.StartAsync("FanOut:DedicatedThreads=1");

        using var json = await GetJsonAsync(server, "/api/fanout?calls=2&delayMs=100&strategy=dedicated");

        var results = json.RootElement.GetProperty("results");
        var first = results[0];
        var second = results[1];
        Assert.True(
            second.GetProperty("queueWaitMs").GetDouble() >= first.GetProperty("durationMs").GetDouble() * 0.5,
            $"the second call should wait for the first: {results}");
        Assert.Equal(1, json.RootElement.GetProperty("distinctThreads").GetInt32());
    }

    [Theory]
    [InlineData("threadpool")]
    [InlineData("async")]
    public async Task WhenEveryCallFailsTheAnswerIs502SayingSo(string strategy)
    {
        await using var server = await SandboxServer.StartAsync();

        using var response = await server.Client.GetAsync($"/api/fanout?calls=4&delayMs=5&failRate=1&strategy={strategy}");

        using var problem = await ReadProblemAsync(response, HttpStatusCode.BadGateway);
        Assert.Contains("4 failed", problem.RootElement.GetProperty("detail").GetString(), StringComparison.Ordinal);
        Assert.Equal(4, problem.RootElement.GetProperty("report").GetProperty("failedCount").GetInt32());
    }

    [Fact]
    public async Task HangingCallsAreReportedAsTimedOut()
    {
        await using var server = await SandboxServer.StartAsync();

        using var response = await server.Client.GetAsync("/api/fanout?calls=2&delayMs=5&hangRate=1&timeoutMs=100&strategy=dedicated");

        using var problem = await ReadProblemAsync(response, HttpStatusCode.BadGateway);
        var report = problem.RootElement.GetProperty("report");
        Assert.Equal(2, report.GetProperty("timedOutCount").GetInt32());
        Assert.All(report.GetProperty("results").EnumerateArray(), call => Assert.Equal("timedOut", call.GetProperty("outcome").GetString()));
    }

    [Theory]
    [InlineData("calls=0", "calls")]
    [InlineData("calls=1001", "calls")]
    [InlineData("calls=ten", "calls")]
    [InlineData("delayMs=-1", "delayMs")]
    [InlineData("delayMs=60001", "delayMs")]
    [InlineData("strategy=fast", "strategy")]
    [InlineData("jitterMs=-1", "jitterMs")]
    [InlineData("jitterMs=60001", "jitterMs")]
    [InlineData("failRate=1.5", "failRate")]
    [InlineData("failRate=-0.1", "failRate")]
    [InlineData("hangRate=2", "hangRate")]
    [InlineData("hangRate=NaN", "hangRate")]
    [InlineData("timeoutMs=0", "timeoutMs")]
    [InlineData("timeoutMs=120001", "timeoutMs")]
    [InlineData("calls=1000&delayMs=60000", "calls")]
    public async Task BadInputGetsProblemDetailsNamingTheParameter(string query, string parameter)
    {
        await using var server = await SandboxServer.StartAsync();

        using var response = await server.Client.GetAsync($"/api/fanout?{query}");

        var detail = await ProblemAssert.IsBadRequestNaming(response, parameter);
        Assert.Matches("from|limit|one of", detail);
    }

    [Theory]
    [InlineData("threadpool")]
    [InlineData("async")]
    public async Task AnAbandonedFanOutStopsWaiting(string strategy)
    {
        await using var server = await SandboxServer.StartAsync();
        using var client = new CancellationTokenSource(TimeSpan.FromMilliseconds(300));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(
            () => server.Client.GetAsync($"/api/fanout?calls=2&delayMs=60000&strategy={strategy}", client.Token));

        // The server's handler ends long before the 60 s calls would: only the telemetry request is left in flight.
        for (var attempt = 0; attempt < 200 && await InFlightAsync(server) > 1; attempt++)
        {
            await Task.Delay(50);
        }

        Assert.Equal(1, await InFlightAsync(server));
    }

    [Theory]
    [InlineData("FanOut:DedicatedThreads=0", "FanOut__DedicatedThreads")]
    [InlineData("FanOut:MaxCalls=-1", "FanOut__MaxCalls")]
    [InlineData("ThirdParty:BaseUrl=not-a-url", "ThirdParty__BaseUrl")]
    [InlineData("ThirdParty:TimeoutMs=0", "ThirdParty__TimeoutMs")]
    public async Task AnInvalidSettingStopsStartUpNamingIt(string setting, string environmentVariable)
    {
        var failure = await Assert.ThrowsAsync<OptionsValidationException>(() => SandboxServer.StartAsync(setting));

        Assert.Contains(environmentVariable, failure.Message, StringComparison.Ordinal);
    }

    private static async Task<long> InFlightAsync(SandboxServer server)
    {
        using var json = await GetJsonAsync(server, "/api/telemetry");
        return json.RootElement.GetProperty("inFlightRequests").GetInt64();
    }

    private static async Task<JsonDocument> GetJsonAsync(SandboxServer server, string url)
    {
        using var response = await server.Client.GetAsync(url);
        var body = await response.Content.ReadAsStringAsync();
        Assert.True(response.IsSuccessStatusCode, $"{url}: {(int)response.StatusCode} {body}");
        return JsonDocument.Parse(body);
    }

    private static async Task<JsonDocument> ReadProblemAsync(HttpResponseMessage response, HttpStatusCode status)
    {
        Assert.Equal(status, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        return JsonDocument.Parse(await response.Content.ReadAsStringAsync());
    }
}
