using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Work;

public sealed class WorkEndpointTests
{
    [Theory]
    [InlineData("/api/compute/sync?cycles=1000", "compute", "sync", 1000)]
    [InlineData("/api/compute/taskrun?cycles=1000", "compute", "taskrun", 1000)]
    [InlineData("/api/spinwait/sync?iterations=100", "spinwait", "sync", 100)]
    [InlineData("/api/spinwait/taskrun?iterations=100", "spinwait", "taskrun", 100)]
    [InlineData("/api/sleep/sync?milliseconds=1", "sleep", "sync", 1)]
    [InlineData("/api/sleep/taskrun?milliseconds=1", "sleep", "taskrun", 1)]
    [InlineData("/api/sleep/async?milliseconds=1", "sleep", "async", 1)]
    public async Task EachModeAnswersWithItsContract(string url, string work, string mode, long amount)
    {
        await using var server = await SandboxServer.StartAsync();

        using var json = await GetJsonAsync(server, url);
        var root = json.RootElement;

        Assert.Equal(work, root.GetProperty("work").GetString());
        Assert.Equal(mode, root.GetProperty("mode").GetString());
        Assert.Equal(amount, root.GetProperty("amount").GetInt64());
        Assert.True(root.GetProperty("elapsedSeconds").GetDouble() > 0);
        Assert.Equal(Environment.ProcessorCount, root.GetProperty("processorCount").GetInt32());
        Assert.Equal(JsonValueKind.True == root.GetProperty("isServerGC").ValueKind, System.Runtime.GCSettings.IsServerGC);
        Assert.Equal(2, root.GetProperty("threadIds").GetArrayLength());
        var pool = root.GetProperty("threadPool");
        Assert.True(pool.GetProperty("threadCount").GetInt32() >= 1);
        Assert.True(pool.GetProperty("pendingWorkItemCount").GetInt64() >= 0);
        Assert.True(pool.GetProperty("minWorkerThreads").GetInt32() >= 1);
    }

    [Fact]
    public async Task SyncRunsTheUnitsOnTheRequestThread()
    {
        await using var server = await SandboxServer.StartAsync();

        using var json = await GetJsonAsync(server, "/api/compute/sync?cycles=10");

        var requestThread = json.RootElement.GetProperty("requestThreadId").GetInt32();
        Assert.All(json.RootElement.GetProperty("threadIds").EnumerateArray(), id => Assert.Equal(requestThread, id.GetInt32()));
    }

    [Theory]
    [InlineData("compute", "cycles=100000")]
    [InlineData("spinwait", "iterations=1000")]
    [InlineData("sleep", "milliseconds=2")]
    public async Task CompareGivesTheSeedsRow(string work, string amount)
    {
        await using var server = await SandboxServer.StartAsync();

        using var json = await GetJsonAsync(server, $"/api/{work}/compare?{amount}&repeat=3");
        var root = json.RootElement;

        var sync = root.GetProperty("syncSeconds").GetDouble();
        var taskRun = root.GetProperty("taskRunSeconds").GetDouble();
        Assert.Equal(sync / taskRun * 100, root.GetProperty("efficiencyPercent").GetDouble(), 6);
        Assert.Equal(3, root.GetProperty("repeat").GetInt32());
        Assert.Equal(Environment.ProcessorCount, root.GetProperty("processorCount").GetInt32());
        Assert.InRange(sync, root.GetProperty("sync").GetProperty("min").GetDouble(), root.GetProperty("sync").GetProperty("max").GetDouble());
    }

    [Fact]
    public async Task SweepAsJsonListsEveryAmountAndTheBreakEven()
    {
        await using var server = await SandboxServer.StartAsync();

        using var json = await GetJsonAsync(server, "/api/compute/sweep?from=1&to=10000&factor=10&repeat=1");
        var root = json.RootElement;

        var rows = root.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal([1L, 10, 100, 1000, 10000], rows.Select(r => r.GetProperty("amount").GetInt64()));
        var firstPaying = rows.FirstOrDefault(r => r.GetProperty("efficiencyPercent").GetDouble() >= 100);
        var breakEven = root.GetProperty("breakEvenAmount");
        long? expected = firstPaying.ValueKind == JsonValueKind.Undefined ? null : firstPaying.GetProperty("amount").GetInt64();
        long? actual = breakEven.ValueKind == JsonValueKind.Null ? null : breakEven.GetInt64();
        Assert.Equal(expected, actual);
        Assert.Equal(Environment.ProcessorCount, root.GetProperty("processorCount").GetInt32());
        Assert.False(string.IsNullOrEmpty(root.GetProperty("runtimeVersion").GetString()));
    }

    [Theory]
    [InlineData("format=csv", null, "text/csv", "milliseconds,syncSeconds")]
    [InlineData("format=markdown", null, "text/markdown", "| Milliseconds | Sync (s) | Async (s) | % Efficiency |")]
    [InlineData("", "text/csv", "text/csv", "milliseconds,syncSeconds")]
    [InlineData("", "text/markdown", "text/markdown", "| Milliseconds |")]
    [InlineData("", null, "application/json", "{")]
    public async Task SweepFormatFollowsTheQueryOrTheAcceptHeader(string query, string? accept, string mediaType, string start)
    {
        await using var server = await SandboxServer.StartAsync();
        using var request = new HttpRequestMessage(HttpMethod.Get, $"/api/sleep/sweep?from=1&to=1&repeat=1&{query}");
        if (accept is not null)
        {
            request.Headers.Accept.ParseAdd(accept);
        }

        using var response = await server.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(mediaType, response.Content.Headers.ContentType?.MediaType);
        Assert.StartsWith(start, await response.Content.ReadAsStringAsync(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task HealthAnswersAndTheRootLeadsToSwagger()
    {
        await using var server = await SandboxServer.StartAsync();
        using var noRedirects = new HttpClient(new HttpClientHandler { AllowAutoRedirect = false }) { BaseAddress = server.BaseAddress };

        Assert.Equal(HttpStatusCode.OK, (await server.Client.GetAsync("/healthz")).StatusCode);
        using var root = await noRedirects.GetAsync("/");
        Assert.Equal(HttpStatusCode.Redirect, root.StatusCode);
        Assert.Equal("/swagger", root.Headers.Location?.OriginalString);
        Assert.Equal(HttpStatusCode.OK, (await server.Client.GetAsync("/swagger/index.html")).StatusCode);
    }

    private static async Task<JsonDocument> GetJsonAsync(SandboxServer server, string url)
    {
        using var response = await server.Client.GetAsync(url);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return await JsonDocument.ParseAsync(await response.Content.ReadAsStreamAsync());
    }
}
