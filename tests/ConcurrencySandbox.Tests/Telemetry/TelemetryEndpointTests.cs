using System.Text.Json;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Telemetry;

public sealed class TelemetryEndpointTests
{
    [Fact]
    public async Task FieldsMoveWhenWorkRuns()
    {
        await using var server = await SandboxServer.StartAsync();
        using var before = await SnapshotAsync(server);

        using var work = await server.Client.GetAsync("/api/fanout?calls=8&delayMs=20&strategy=threadpool");
        using var after = await SnapshotAsync(server);

        Assert.True(work.IsSuccessStatusCode);
        var (was, now) = (before.RootElement, after.RootElement);
        Assert.True(Read(now, "threadPool", "completedWorkItemCount") > Read(was, "threadPool", "completedWorkItemCount"));
        Assert.True(Read(now, "gc", "totalAllocatedBytes") > Read(was, "gc", "totalAllocatedBytes"));
        Assert.True(Read(now, "process", "cpuTimeMs") > Read(was, "process", "cpuTimeMs"));
        Assert.True(now.GetProperty("timestamp").GetDateTimeOffset() > was.GetProperty("timestamp").GetDateTimeOffset());
        Assert.True(now.GetProperty("uptimeSeconds").GetDouble() > was.GetProperty("uptimeSeconds").GetDouble());
    }

    [Fact]
    public async Task HistoryHoldsRecordedSamplesAfterTheGivenUptime()
    {
        await using var server = await SandboxServer.StartAsync();
        var samples = await HistoryUptimesAsync(server, "");
        // The recorder samples once a second on its own thread: wait for two samples, however slow this machine is.
        using var hangGuard = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        while (samples.Count < 2)
        {
            await Task.Delay(TimeSpan.FromMilliseconds(200), hangGuard.Token);
            samples = await HistoryUptimesAsync(server, "");
        }

        var cut = samples[0];
        var later = await HistoryUptimesAsync(server, $"?since={cut.ToString(System.Globalization.CultureInfo.InvariantCulture)}");

        // A sample recorded between the two reads may follow, so the second answer starts with the first's tail.
        Assert.All(later, uptime => Assert.True(uptime > cut, $"sample at {uptime} s is not after {cut} s"));
        Assert.Equal(samples.Skip(1), later.Take(samples.Count - 1));
    }

    private static async Task<List<double>> HistoryUptimesAsync(SandboxServer server, string query)
    {
        using var history = JsonDocument.Parse(await server.Client.GetStringAsync($"/api/telemetry/history{query}"));
        Assert.Equal(1, history.RootElement.GetProperty("intervalSeconds").GetDouble());
        return [.. history.RootElement.GetProperty("samples").EnumerateArray().Select(s => s.GetProperty("uptimeSeconds").GetDouble())];
    }

    [Theory]
    [InlineData("-1")]
    [InlineData("soon")]
    public async Task HistoryRefusesABadSince(string since)
    {
        await using var server = await SandboxServer.StartAsync();

        using var response = await server.Client.GetAsync($"/api/telemetry/history?since={since}");

        await ProblemAssert.IsBadRequestNamingAsync(response, "since");
    }

    [Fact]
    public async Task EverySnapshotHasTheDocumentedFields()
    {
        await using var server = await SandboxServer.StartAsync();

        using var json = await SnapshotAsync(server);
        var root = json.RootElement;

        Assert.Equal(Environment.ProcessorCount, root.GetProperty("processorCount").GetInt32());
        foreach (var field in new[] { "threadCount", "pendingWorkItemCount", "completedWorkItemCount", "minWorkerThreads", "maxWorkerThreads" })
        {
            Assert.True(Read(root, "threadPool", field) >= 0, field);
        }

        foreach (var field in new[] { "gen0Collections", "gen1Collections", "gen2Collections", "totalAllocatedBytes", "heapSizeBytes", "totalPauseDurationMs" })
        {
            Assert.True(Read(root, "gc", field) >= 0, field);
        }

        Assert.InRange(Read(root, "process", "cpuPercent"), 0, 100);
        Assert.True(Read(root, "process", "workingSetBytes") > 0);
        Assert.True(Read(root, "process", "osThreadCount") >= Read(root, "threadPool", "threadCount"));
        Assert.True(root.GetProperty("lockContentionCount").GetInt64() >= 0);
    }

    [Fact]
    public async Task InFlightRequestsCountsTheRequestsBeingServed()
    {
        await using var server = await SandboxServer.StartAsync();
        var slow = server.Client.GetAsync("/api/fanout?calls=1&delayMs=3000&strategy=async");

        var seen = 0.0;
        for (var attempt = 0; attempt < 100 && seen < 2; attempt++)
        {
            using var json = await SnapshotAsync(server);
            seen = json.RootElement.GetProperty("inFlightRequests").GetDouble();
            await Task.Delay(20);
        }

        Assert.Equal(2, seen);
        using var done = await slow;
        using var afterwards = await SnapshotAsync(server);
        Assert.Equal(1, afterwards.RootElement.GetProperty("inFlightRequests").GetInt64());
    }

    private static double Read(JsonElement root, string section, string field) => root.GetProperty(section).GetProperty(field).GetDouble();

    private static async Task<JsonDocument> SnapshotAsync(SandboxServer server) =>
        JsonDocument.Parse(await server.Client.GetStringAsync("/api/telemetry"));
}
