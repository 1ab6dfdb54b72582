using System.Net;
using System.Runtime;
using System.Text.Json;
using ConcurrencySandbox.Api.Work;
using ConcurrencySandbox.Contracts;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Platform.Statistics;
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
    public async Task TheRunAnswerWrittenByGeneratedCodeIsTheSameJsonTheContractSerializerWrites()
    {
        using var response = await shared.Client.GetAsync("/api/compute/sync?cycles=1");
        var body = await response.Content.ReadAsStringAsync();

        var run = JsonSerializer.Deserialize<WorkRunResponse>(body, ContractJson.Options)!;
        Assert.Equal(JsonSerializer.Serialize(run, ContractJson.Options), body);
        Assert.Equal("application/json; charset=utf-8", response.Content.Headers.ContentType?.ToString());
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
    public async Task CompareReportsEachFigureWithItsIntervalThePolicyAndTheMachinesLoad(string work, string amount)
    {
        var row = await shared.Client.GetOkAsync<CompareResponse>($"/api/{work}/compare?{amount}&repeat=6&ciWidth=2.5&budgetSeconds=1");

        Assert.Equal(work, row.Work);
        Assert.True(row.Repeat >= 6);
        Assert.Equal(row.Repeat, row.Efficiency.Count);
        Assert.Equal(row.Sync.Median, row.SyncSeconds);
        Assert.Equal(row.TaskRun.Median, row.TaskRunSeconds);
        Assert.Equal(row.Efficiency.Median, row.EfficiencyPercent);
        Assert.InRange(row.EfficiencyPercent, row.Efficiency.Low!.Value, row.Efficiency.High!.Value);
        Assert.Equal(row.TaskRunSeconds - row.SyncSeconds, row.TaskRunAddedSeconds, 9);
        Assert.Contains("within +-2.5 % (at least 6 pairs, at most 1 s)", row.Policy, StringComparison.Ordinal);
        Assert.Equal(OperatingSystem.IsLinux(), row.Load is not null);
        Assert.Equal(Environment.ProcessorCount, row.ProcessorCount);
    }

    [Fact]
    public async Task SweepAsJsonListsEveryAmountAndTheBreakEven()
    {
        var sweep = await shared.Client.GetOkAsync<SweepReport>("/api/compute/sweep?from=1&to=10000&factor=10&repeat=1&budgetSeconds=1");

        Assert.Equal([1L, 10, 100, 1000, 10000], sweep.Rows.Select(row => row.Amount));
        Assert.Equal(Sweep.BreakEven(sweep.Rows, "cycles", sweep.ProcessorCount), sweep.BreakEvenAmount);
        var bracket = Assert.IsType<BreakEvenBracket>(sweep.Bracket);
        Assert.Equal(BreakEvens.Bracket(sweep.Rows, "cycles", sweep.ProcessorCount).Text, bracket.Text);
        Assert.Equal(sweep.BreakEvenAmount, bracket.Above);
        Assert.Equal(Environment.ProcessorCount, sweep.ProcessorCount);
        Assert.False(string.IsNullOrEmpty(sweep.RuntimeVersion));
    }

    [Theory]
    [InlineData("format=csv", null, "text/csv", "milliseconds,syncSeconds")]
    [InlineData("format=markdown", null, "text/markdown", "| Milliseconds | Sync (s) | Async (s) | % Efficiency | Efficiency 95 % CI |")]
    [InlineData("", "text/csv", "text/csv", "milliseconds,syncSeconds")]
    [InlineData("", "text/markdown", "text/markdown", "| Milliseconds |")]
    [InlineData("", null, "application/json", "{")]
    public async Task SweepFormatFollowsTheQueryOrTheAcceptHeader(string query, string? accept, string mediaType, string start)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, $"/api/sleep/sweep?from=1&to=1&repeat=1&budgetSeconds=1&{query}");
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
