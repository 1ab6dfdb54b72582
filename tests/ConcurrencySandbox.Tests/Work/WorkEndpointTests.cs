using System.Net;
using System.Runtime;
using ConcurrencySandbox.Api.Work;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Work;

public sealed class WorkEndpointTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>
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
        var run = await shared.Client.GetOkAsync<WorkRunResponse>(url);

        Assert.Equal(work, run.Work);
        Assert.Equal(mode, run.Mode);
        Assert.Equal(amount, run.Amount);
        Assert.Equal(Environment.ProcessorCount, run.ProcessorCount);
        Assert.Equal(GCSettings.IsServerGC, run.IsServerGC);
        Assert.Equal(2, run.ThreadIds.Count);
        Assert.True(run.ThreadPool.ThreadCount >= 1);
        Assert.True(run.ThreadPool.MinWorkerThreads >= 1);
    }

    [Fact]
    public async Task SyncRunsTheUnitsOnTheRequestThread()
    {
        var run = await shared.Client.GetOkAsync<WorkRunResponse>("/api/compute/sync?cycles=10");

        Assert.Equal([run.RequestThreadId, run.RequestThreadId], run.ThreadIds);
    }

    [Theory]
    [InlineData("compute", "cycles=100000")]
    [InlineData("spinwait", "iterations=1000")]
    [InlineData("sleep", "milliseconds=2")]
    public async Task CompareReportsTheMediansTheirRatioAndTheirDifference(string work, string amount)
    {
        var row = await shared.Client.GetOkAsync<CompareResponse>($"/api/{work}/compare?{amount}&repeat=3");

        Assert.Equal(work, row.Work);
        Assert.Equal(3, row.Repeat);
        Assert.Equal(row.Sync.Median, row.SyncSeconds);
        Assert.Equal(row.TaskRun.Median, row.TaskRunSeconds);
        Assert.Equal(row.SyncSeconds / row.TaskRunSeconds * 100, row.EfficiencyPercent, 6);
        Assert.Equal(row.TaskRunSeconds - row.SyncSeconds, row.TaskRunAddedSeconds, 9);
        Assert.Equal(Environment.ProcessorCount, row.ProcessorCount);
    }

    [Fact]
    public async Task SweepAsJsonListsEveryAmountAndTheBreakEven()
    {
        var sweep = await shared.Client.GetOkAsync<SweepReport>("/api/compute/sweep?from=1&to=10000&factor=10&repeat=1");

        Assert.Equal([1L, 10, 100, 1000, 10000], sweep.Rows.Select(row => row.Amount));
        Assert.Equal(sweep.Rows.FirstOrDefault(row => row.EfficiencyPercent >= 100)?.Amount, sweep.BreakEvenAmount);
        Assert.Equal(Environment.ProcessorCount, sweep.ProcessorCount);
        Assert.False(string.IsNullOrEmpty(sweep.RuntimeVersion));
    }

    [Theory]
    [InlineData("format=csv", null, "text/csv", "milliseconds,syncSeconds")]
    [InlineData("format=markdown", null, "text/markdown", "| Milliseconds | Sync (s) | Async (s) | % Efficiency |")]
    [InlineData("", "text/csv", "text/csv", "milliseconds,syncSeconds")]
    [InlineData("", "text/markdown", "text/markdown", "| Milliseconds |")]
    [InlineData("", null, "application/json", "{")]
    public async Task SweepFormatFollowsTheQueryOrTheAcceptHeader(string query, string? accept, string mediaType, string start)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, $"/api/sleep/sweep?from=1&to=1&repeat=1&{query}");
        if (accept is not null)
        {
            request.Headers.Accept.ParseAdd(accept);
        }

        using var response = await shared.Client.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(mediaType, response.Content.Headers.ContentType?.MediaType);
        Assert.StartsWith(start, await response.Content.ReadAsStringAsync(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task HealthAnswersAndTheRootLeadsToSwagger()
    {
        using var noRedirects = new HttpClient(new HttpClientHandler { AllowAutoRedirect = false }) { BaseAddress = shared.Server.BaseAddress };

        using var health = await shared.Client.GetAsync("/healthz");
        using var root = await noRedirects.GetAsync("/");
        using var swagger = await shared.Client.GetAsync("/swagger/index.html");

        Assert.Equal(HttpStatusCode.OK, health.StatusCode);
        Assert.Equal(HttpStatusCode.Redirect, root.StatusCode);
        Assert.Equal("/swagger", root.Headers.Location?.OriginalString);
        Assert.Equal(HttpStatusCode.OK, swagger.StatusCode);
    }
}
