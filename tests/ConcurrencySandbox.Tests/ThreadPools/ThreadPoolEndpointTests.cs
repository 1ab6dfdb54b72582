using System.Net;
using System.Net.Http.Json;
using System.Runtime;
using System.Text.Json;
using ConcurrencySandbox.Api.ThreadPools;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Tests.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Tests.ThreadPools;

/// <summary>
/// These change the process-wide pool, so they run alone and put the limits back afterwards. Tests with the default
/// settings share one server: it started with the limits every test starts from, so its reset point is theirs too.
/// </summary>
[Collection(ProcessWideCollection.Name)]
public sealed class ThreadPoolEndpointTests(SandboxServerFixture shared) : RestoresThreadPoolLimits, IClassFixture<SandboxServerFixture>
{
    [Fact]
    public async Task GetShowsTheLimitsTheLoadAndTheFacts()
    {
        var state = await shared.Client.GetOkAsync<ThreadPoolStateResponse>("/api/threadpool");

        var pool = state.ThreadPool;
        Assert.Equal(Original, new ThreadPoolLimits(pool.MinWorkerThreads, pool.MinIoThreads, pool.MaxWorkerThreads, pool.MaxIoThreads));
        Assert.True(pool.AvailableWorkerThreads < pool.MaxWorkerThreads, "the worker serving this request is not available");
        Assert.True(pool.CompletedWorkItemCount > 0);
        Assert.Equal(Environment.ProcessorCount, state.ProcessorCount);
        Assert.Equal(GCSettings.IsServerGC, state.IsServerGC);
        Assert.Matches("^(server|workstation), (non-)?concurrent$", state.GCMode);
        Assert.StartsWith(GCSettings.IsServerGC ? "server" : "workstation", state.GCMode, StringComparison.Ordinal);
    }

    [Fact]
    public async Task PutChangesTheLimitsAndResetPutsTheStartUpOnesBack()
    {
        using var put = await shared.Client.PutAsJsonAsync("/api/threadpool", new { minWorkerThreads = Original.MinWorkerThreads + 11 });
        var afterPut = await put.ReadOkAsync<ThreadPoolStateResponse>();
        Assert.Equal(HttpStatusCode.OK, put.StatusCode);
        Assert.Equal(Original.MinWorkerThreads + 11, afterPut.ThreadPool.MinWorkerThreads);
        Assert.Equal(Original.MinWorkerThreads + 11, ThreadPoolLimits.Read().MinWorkerThreads);

        using var reset = await shared.Client.PostAsync("/api/threadpool/reset", null);
        Assert.Equal(HttpStatusCode.OK, reset.StatusCode);
        Assert.Equal(Original, ThreadPoolLimits.Read());
    }

    [Theory]
    [InlineData("""{"minWorkerThreads":0}""", "minWorkerThreads", "from 1 to 32767")]
    [InlineData("""{"maxWorkerThreads":32768}""", "maxWorkerThreads", "to 32767")]
    [InlineData("""{"maxWorkerThreads":99999999999}""", "maxWorkerThreads", "to 32767")]
    [InlineData("""{"maxWorkerThreads":1}""", "maxWorkerThreads", "to 32767")]
    [InlineData("""{"minIoThreads":-1}""", "minIoThreads", "from 1 to 32767")]
    [InlineData("""{"maxIoThreads":0}""", "maxIoThreads", "to 32767")]
    [InlineData("""{"minWorkerThreads":500,"maxWorkerThreads":400}""", "minWorkerThreads", "must be at most")]
    [InlineData("""{"minWorkerThreads":"400"}""", "minWorkerThreads", "an integer")]
    [InlineData("""{"minWorkerThreads":400.5}""", "minWorkerThreads", "an integer")]
    [InlineData("""{"minWorkerThreadz":400}""", "minWorkerThreadz", "not a known property")]
    [InlineData("""{"minWorkerThreads":""", "body", "not valid JSON")]
    [InlineData("", "body", "empty")]
    [InlineData("""[{"minWorkerThreads":400}]""", "body", "array")]
    public async Task AnInvalidBodyIsRefusedNamingThePropertyAndWhatIsExpected(string body, string property, string expected)
    {
        using var response = await shared.Client.PutAsync("/api/threadpool", new StringContent(body, System.Text.Encoding.UTF8, "application/json"));

        var detail = await ProblemAssert.IsBadRequestNamingAsync(response, property);
        Assert.Contains(expected, detail, StringComparison.Ordinal);
        Assert.Equal(Original, ThreadPoolLimits.Read());
    }

    [Fact]
    public async Task SwaggersExampleBodyIsAccepted()
    {
        using var document = JsonDocument.Parse(await shared.Client.GetStringAsync("/swagger/v1/swagger.json"));
        var example = document.RootElement.GetProperty("paths").GetProperty("/api/threadpool").GetProperty("put")
            .GetProperty("requestBody").GetProperty("content").GetProperty("application/json").GetProperty("example").GetRawText();

        using var response = await shared.Client.PutAsync("/api/threadpool", new StringContent(example, System.Text.Encoding.UTF8, "application/json"));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(400, ThreadPoolLimits.Read().MinWorkerThreads);
    }

    [Fact]
    public async Task ARuntimeRefusalIs409AndChangesNothing()
    {
        await using var server = await SandboxServer.StartAsync(services => services.AddSingleton(new ThreadPoolControl(new RefusingSettings())));

        using var response = await server.Client.PutAsJsonAsync("/api/threadpool", new { minWorkerThreads = 10 });

        Assert.Equal(HttpStatusCode.Conflict, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.Contains("refused", await response.Content.ReadAsStringAsync(), StringComparison.Ordinal);
        Assert.Equal(Original, ThreadPoolLimits.Read());
    }

    [Fact]
    public async Task StartUpSettingsAreAppliedBeforeServingAndBecomeTheResetPoint()
    {
        var raised = Original.MinWorkerThreads + 13;
        await using var server = await SandboxServer.StartAsync($"ThreadPool:MinWorkerThreads={raised}");

        var state = await server.Client.GetOkAsync<ThreadPoolStateResponse>("/api/threadpool");

        Assert.Equal(raised, state.ThreadPool.MinWorkerThreads);
        Assert.Equal(raised, state.Startup.MinWorkerThreads);
    }

    [Theory]
    [InlineData("ThreadPool:MinWorkerThreads=0", "ThreadPool__MinWorkerThreads")]
    [InlineData("ThreadPool:MaxIoThreads=40000", "ThreadPool__MaxIoThreads")]
    [InlineData("ThreadPool:MinIoThreads=99999999999", "ThreadPool__MinIoThreads")]
    [InlineData("ThreadPool:MaxWorkerThreads=1", "ThreadPool__MaxWorkerThreads")]
    public async Task InvalidStartUpSettingsStopStartUpNamingThem(string setting, string environmentVariable)
    {
        var failure = await Assert.ThrowsAsync<OptionsValidationException>(() => SandboxServer.StartAsync(setting));

        Assert.Contains(environmentVariable, failure.Message, StringComparison.Ordinal);
    }

    /// <summary>A runtime that refuses every change, as one started with forced thread pool settings does.</summary>
    private sealed class RefusingSettings : IThreadPoolSettings
    {
        public ThreadPoolLimits Read() => ThreadPoolLimits.Read();

        public bool TrySetMin(int workerThreads, int ioThreads) => false;

        public bool TrySetMax(int workerThreads, int ioThreads) => false;
    }
}
